#include "executor/log_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "executor/live_output.hpp"

namespace tether::worker::executor {

Masker::Masker(const std::vector<std::string>& secret_values) {
  for (const std::string& value : secret_values) {
    if (value.empty()) continue;
    if (value.find('\n') == std::string::npos) {
      needles_.push_back(value);
      continue;
    }
    std::size_t start = 0;
    while (start <= value.size()) {
      std::size_t end = value.find('\n', start);
      if (end == std::string::npos) end = value.size();
      std::string part = value.substr(start, end - start);
      if (!part.empty() && part.back() == '\r') part.pop_back();
      if (part.size() >= 4) needles_.push_back(part);
      start = end + 1;
    }
  }
  std::sort(needles_.begin(), needles_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  needles_.erase(std::unique(needles_.begin(), needles_.end()), needles_.end());
}

void Masker::AppendMasked(std::string_view line, std::string* out) const {
  if (needles_.empty()) {
    out->append(line);
    return;
  }
  std::string work(line);
  for (const std::string& needle : needles_) {
    std::size_t pos = 0;
    while ((pos = work.find(needle, pos)) != std::string::npos) {
      work.replace(pos, needle.size(), "***");
      pos += 3;
    }
  }
  out->append(work);
}

std::size_t Masker::SafeSplit(std::string_view text, std::size_t at) const {
  std::size_t p = std::min(at, text.size());
  for (bool moved = true; moved;) {
    moved = false;
    for (const std::string& needle : needles_) {
      // Occurrences that could straddle p start in (p - size, p).
      std::size_t from = p >= needle.size() ? p - needle.size() + 1 : 0;
      for (std::size_t s = text.find(needle, from); s != std::string_view::npos && s < p;
           s = text.find(needle, s + 1)) {
        if (s + needle.size() > p) {
          p = s + needle.size();  // the whole occurrence goes before the split
          moved = true;
        }
      }
    }
  }
  return p;
}

std::string Masker::Mask(std::string_view line) const {
  std::string out;
  AppendMasked(line, &out);
  return out;
}

Error LogWriter::Open(Options options, std::unique_ptr<LogWriter>* out) {
  int fd = ::open(options.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Error(ErrorCode::kIo, "cannot create " + options.path + ": " + std::strerror(errno));
  }
  out->reset(new LogWriter(std::move(options), fd));
  return Error();
}

LogWriter::~LogWriter() { Close(); }

void LogWriter::Write(std::string_view data) {
  if (closed_) return;
  writing_ = true;
  // Nothing to mask and no live copy: whole lines go to the file in bulk
  // (one memrchr per chunk instead of work per line), while under the limit.
  const bool plain =
      (options_.masker == nullptr || options_.masker->empty()) && options_.live == nullptr;
  while (!data.empty()) {
    if (dropping_) {  // the rest of a line that was cut: up to its newline
      const char* end = static_cast<const char*>(std::memchr(data.data(), '\n', data.size()));
      if (end == nullptr) break;
      data.remove_prefix(static_cast<std::size_t>(end - data.data()) + 1);
      dropping_ = false;
      continue;
    }
    if (plain && carry_.empty() && !truncated_) {
      // (data is not empty, so begin is never null; said for GCC, whose
      // -Wnonnull under the sanitizers' instrumentation cannot see it.)
      const char* begin = data.data();
      const void* last = begin != nullptr ? ::memrchr(begin, '\n', data.size()) : nullptr;
      std::size_t len = last ? static_cast<const char*>(last) - data.data() + 1 : 0;
      // (A chunk no longer than the line limit holds no line to cut.)
      if (len > 0 &&
          (options_.max_bytes == 0 || (bytes_ + len <= options_.max_bytes && len <= LineLimit()))) {
        AppendToFile(data.substr(0, len));
        bytes_ += len;
        data.remove_prefix(len);
        continue;
      }
    }
    const char* nl = static_cast<const char*>(std::memchr(data.data(), '\n', data.size()));
    if (nl == nullptr) {
      carry_.append(data);
      if (options_.max_bytes != 0) {
        if (carry_.size() >= LineLimit() + Lookahead()) CutLine(false);
      } else if (carry_.size() >= kMaxLine) {
        SplitLongCarry();
      }
      break;
    }
    std::size_t len = static_cast<std::size_t>(nl - data.data());
    if (options_.max_bytes != 0 && carry_.size() + len > LineLimit()) {
      carry_.append(data.substr(0, len));
      CutLine(true);
    } else if (carry_.empty()) {
      EmitLine(data.substr(0, len));
    } else {
      carry_.append(data.substr(0, len));
      EmitLine(carry_);
      carry_.clear();
    }
    data.remove_prefix(len + 1);
  }
  // Each batch the stream read goes to the file now, so a running step's log
  // can be followed and a crash of the worker loses no line it read. (The
  // stream reads up to 1 MiB at a time: a chatty step still costs one
  // write(2) per read(2), not per line.)
  FlushFile();
  writing_ = false;
  if (!live_buf_.empty() && options_.live != nullptr) {
    options_.live->Write(live_buf_);
    live_buf_.clear();
  }
}

// A partial line of kMaxLine bytes or more is written as a line of its own,
// keeping back what may be the start of a secret still arriving (the longest
// secret's length minus one) and never cutting through a secret it holds.
void LogWriter::SplitLongCarry() {
  const Masker* masker = options_.masker;
  std::size_t at = carry_.size();
  if (masker != nullptr && !masker->empty()) {
    const std::size_t keep = masker->longest() - 1;
    at = carry_.size() > keep ? carry_.size() - keep : 0;
    at = masker->SafeSplit(carry_, at);
  }
  if (at == 0) return;  // all of it may be one secret's start: wait for more
  EmitLine(std::string_view(carry_).substr(0, at));
  carry_.erase(0, at);
}

std::size_t LogWriter::LineLimit() const {
  if (options_.max_bytes == 0) return kMaxLine;
  return static_cast<std::size_t>(
      std::min<std::uint64_t>(kMaxLine, std::max<std::uint64_t>(options_.max_bytes / 4, 80)));
}

// What must be seen past a cut before it is made: a secret that starts
// before the cut ends within the longest secret's length.
std::size_t LogWriter::Lookahead() const {
  const Masker* masker = options_.masker;
  return masker != nullptr && !masker->empty() ? masker->longest() - 1 : 0;
}

// carry_ holds a line (whole, or its start) longer than LineLimit(): its
// first LineLimit() bytes are kept (a secret across the cut is kept whole, so
// it is masked whole), the rest is dropped up to its newline, and a note says
// so. Later lines are kept.
void LogWriter::CutLine(bool whole) {
  dropping_ = !whole;
  if (truncated_) {  // past --max-log-size: nothing more is kept, nor noted
    carry_.clear();
    return;
  }
  std::size_t at = std::min(LineLimit(), carry_.size());
  if (options_.masker != nullptr && !options_.masker->empty())
    at = options_.masker->SafeSplit(carry_, at);
  EmitLine(std::string_view(carry_).substr(0, at));
  Note("[tether-worker] line cut: it is longer than " + std::to_string(LineLimit()) +
       " bytes (a quarter of --max-log-size, at most 1 MiB); the rest of the line was dropped");
  carry_.clear();
}

void LogWriter::EmitLine(std::string_view line) {
  if (truncated_) return;
  std::size_t before = file_buf_.size();
  if (options_.masker != nullptr) {
    options_.masker->AppendMasked(line, &file_buf_);
  } else {
    file_buf_.append(line);
  }
  file_buf_.push_back('\n');
  std::size_t added = file_buf_.size() - before;
  if (options_.max_bytes != 0 && bytes_ + added > options_.max_bytes) {
    file_buf_.resize(before);
    truncated_ = true;
    Note("[tether-worker] log truncated: --max-log-size of " + std::to_string(options_.max_bytes) +
         " bytes reached; the rest of this output was dropped");
    return;
  }
  bytes_ += added;
  if (options_.live != nullptr) {
    live_buf_.append(options_.live_prefix);
    live_buf_.append(file_buf_, before, added);
  }
}

void LogWriter::Note(std::string_view line) {
  if (closed_) return;
  file_buf_.append(line);
  file_buf_.push_back('\n');
  if (options_.live != nullptr) {
    live_buf_.append(options_.live_prefix);
    live_buf_.append(line);
    live_buf_.push_back('\n');
  }
  if (!writing_) FlushFile();  // a note outside Write (a worker event) is written at once
}

void LogWriter::AppendToFile(std::string_view bytes) {
  if (file_buf_.size() + bytes.size() <= (256u << 10)) {
    file_buf_.append(bytes);
    return;
  }
  FlushFile();
  WriteAll(bytes);
}

void LogWriter::WriteAll(std::string_view bytes) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // disk full or similar: the build still finishes; the log is short
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void LogWriter::FlushFile() {
  if (file_buf_.empty()) return;
  WriteAll(file_buf_);
  file_buf_.clear();
}

void LogWriter::Close() {
  if (closed_) return;
  if (options_.max_bytes != 0 && carry_.size() > LineLimit()) {
    CutLine(true);
  } else if (!carry_.empty()) {
    EmitLine(carry_);
    carry_.clear();
  }
  FlushFile();
  if (!live_buf_.empty() && options_.live != nullptr) options_.live->Write(live_buf_);
  live_buf_.clear();
  ::close(fd_);
  closed_ = true;
}

}  // namespace tether::worker::executor
