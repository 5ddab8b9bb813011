#include "executor/live_output.hpp"

#include <algorithm>

namespace tether::worker::executor {

LiveOutput::LiveOutput(std::FILE* out, bool lines, bool progress)
    : out_(out), lines_(lines), progress_(progress) {}

void LiveOutput::ClearBlockLocked() {
  for (std::size_t i = 0; i < drawn_; ++i) std::fputs("\x1b[1A\x1b[2K", out_);
  drawn_ = 0;
}

void LiveOutput::DrawBlockLocked() {
  for (const Row& r : rows_) {
    std::fprintf(out_, "  %-10s %s/%s\n", r.status.c_str(), r.build.c_str(), r.name.c_str());
  }
  drawn_ = rows_.size();
}

void LiveOutput::Write(std::string_view text) {
  if (!lines_ || text.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (progress_) ClearBlockLocked();
  std::fwrite(text.data(), 1, text.size(), out_);
  if (progress_) DrawBlockLocked();
  std::fflush(out_);
}

void LiveOutput::SetStatus(const std::string& build, const std::string& name,
                           std::string_view status) {
  if (!progress_) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(rows_.begin(), rows_.end(),
                         [&](const Row& r) { return r.build == build && r.name == name; });
  if (it == rows_.end()) {
    rows_.push_back(Row{build, name, std::string(status)});
  } else {
    it->status = std::string(status);
  }
  ClearBlockLocked();
  DrawBlockLocked();
  std::fflush(out_);
}

void LiveOutput::ContainerDone(const std::string& build, const std::string& name,
                               std::string_view text) {
  if (!lines_ && !progress_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (progress_) ClearBlockLocked();
  std::fprintf(out_, "[%s/%s] %.*s\n", build.c_str(), name.c_str(), static_cast<int>(text.size()),
               text.data());
  if (progress_) DrawBlockLocked();
  std::fflush(out_);
}

void LiveOutput::BuildDone(const std::string& build, BuildStatus build_status,
                           std::string_view detail) {
  std::string_view status = BuildStatusName(build_status);
  std::lock_guard<std::mutex> lock(mu_);
  if (progress_) {
    ClearBlockLocked();
    rows_.erase(
        std::remove_if(rows_.begin(), rows_.end(), [&](const Row& r) { return r.build == build; }),
        rows_.end());
  }
  if (lines_ || progress_) {
    std::fprintf(out_, "[%s] build %.*s%s%.*s\n", build.c_str(), static_cast<int>(status.size()),
                 status.data(), detail.empty() ? "" : ": ", static_cast<int>(detail.size()),
                 detail.data());
  }
  if (progress_) DrawBlockLocked();
  std::fflush(out_);
}

}  // namespace tether::worker::executor
