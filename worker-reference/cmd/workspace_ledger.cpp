#include "cmd/workspace_ledger.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "executor/result.hpp"
#include "queue/job.hpp"

namespace tether::worker::cmd {

namespace fs = std::filesystem;

namespace {

constexpr const char kPrefix[] = ".tether-owner-";
constexpr const char kLock[] = ".lock";

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A dead worker's build: its workspace ROOT/<id>-<tag>-XXXXXX removed (only
// the dead worker's: a live worker may run the same build id again under the
// same root), and for a `run` build without build.json, the record of how it
// ended.
void RecoverBuild(const std::string& root, const std::string& tag, const std::string& id,
                  const std::string& entry) {
  std::ifstream in(entry);
  std::string record, pipeline, result_dir;
  std::getline(in, record);
  std::getline(in, pipeline);
  std::getline(in, result_dir);
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string owned = id + "-" + tag + "-";
    if (name.size() == owned.size() + 6 && name.compare(0, owned.size(), owned) == 0) {
      std::error_code rm;
      fs::remove_all(it->path(), rm);
      std::cerr << "tether-worker: removed workspace " << it->path().string() << " of build " << id
                << " (its worker died)" << (rm ? ": " + rm.message() : std::string()) << "\n";
    }
  }
  if (record == "record" && !result_dir.empty() && fs::is_directory(result_dir, ec) &&
      !fs::exists(result_dir + "/build.json", ec)) {
    executor::BuildRecord build;
    build.id = id;
    build.pipeline_file = pipeline;
    build.status = BuildStatus::kError;
    build.reason = "worker died";
    build.finished = WallClock::now();
    if (executor::WriteBuildJson(build, result_dir + "/build.json").ok()) {
      std::cerr << "tether-worker: build " << id << ": recorded as error (worker died) in "
                << result_dir << "\n";
    }
  }
}

}  // namespace

Error WorkspaceLedger::Open(const std::string& root, bool record_on_crash,
                            std::unique_ptr<WorkspaceLedger>* out) {
  const std::string base = root + "/" + kPrefix + queue::RandomTag();
  std::error_code ec;
  fs::create_directories(base + ".d", ec);
  if (ec) return Error(ErrorCode::kIo, "cannot create " + base + ".d: " + ec.message());
  // Locked under a name recovery ignores, then renamed into place: no one
  // ever sees this live worker's lock unheld. Not io::AtomicFile: the file
  // has no content to write whole; what the rename publishes is the flock
  // held on its descriptor, which stays open for the worker's life.
  const std::string temp = base + ".tmp";
  int fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0 ||
      ::rename(temp.c_str(), (base + kLock).c_str()) != 0) {
    Error err(ErrorCode::kIo,
              "cannot create the workspace lock " + base + kLock + ": " + std::strerror(errno));
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    fs::remove_all(base + ".d", ec);
    return err;
  }
  out->reset(new WorkspaceLedger(root, base, fd, record_on_crash));
  return Error();
}

WorkspaceLedger::~WorkspaceLedger() {
  std::error_code ec;
  fs::remove_all(base_ + ".d", ec);
  ::unlink((base_ + kLock).c_str());  // while still held
  ::close(lock_fd_);
}

Error WorkspaceLedger::Begin(const std::string& id, const std::string& pipeline_file,
                             const std::string& result_dir) {
  std::lock_guard<std::mutex> lock(mu_);
  std::error_code ec;
  const std::string absolute = result_dir.empty() ? "" : fs::absolute(result_dir, ec).string();
  std::ofstream out(base_ + ".d/" + id, std::ios::trunc);
  out << (record_on_crash_ ? "record" : "no-record") << "\n"
      << pipeline_file << "\n"
      << absolute << "\n";
  out.flush();
  if (!out) return Error(ErrorCode::kIo, "cannot write " + base_ + ".d/" + id);
  return Error();
}

std::string WorkspaceLedger::tag() const {
  return base_.substr(base_.rfind('/') + 1 + std::strlen(kPrefix));
}

void WorkspaceLedger::End(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  ::unlink((base_ + ".d/" + id).c_str());
}

int WorkspaceLedger::RecoverDead(const std::string& root, int* ledgers) {
  int recovered = 0;
  if (ledgers != nullptr) *ledgers = 0;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(kPrefix, 0) != 0 || !EndsWith(name, kLock)) continue;
    const std::string base = root + "/" + name.substr(0, name.size() - std::strlen(kLock));
    int fd = ::open(it->path().c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;  // another recoverer was first
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);  // its worker lives
      continue;
    }
    if (ledgers != nullptr) ++*ledgers;
    std::error_code dir_ec;
    for (fs::directory_iterator e(base + ".d", dir_ec), e_end; !dir_ec && e != e_end;
         e.increment(dir_ec)) {
      const std::string tag = base.substr(base.rfind('/') + 1 + std::strlen(kPrefix));
      RecoverBuild(root, tag, e->path().filename().string(), e->path().string());
      ++recovered;
    }
    fs::remove_all(base + ".d", dir_ec);
    ::unlink(it->path().c_str());  // while still held: no other recoverer is inside
    ::close(fd);
  }
  return recovered;
}

int WorkspaceLedger::RecoverDeadDefaultRoots() {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = tmp && *tmp ? tmp : "/tmp";
  int recovered = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (name.rfind("tether-worker-", 0) != 0 || !it->is_directory(type_ec) ||
        it->is_symlink(type_ec))
      continue;
    int ledgers = 0;
    recovered += RecoverDead(it->path().string(), &ledgers);
    // Only a root that held a dead worker's ledger (rmdir: if now empty); a
    // fresh root of a worker that is starting has no ledger yet.
    if (ledgers > 0) ::rmdir(it->path().c_str());
  }
  return recovered;
}

}  // namespace tether::worker::cmd
