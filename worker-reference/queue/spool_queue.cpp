#include "queue/spool_queue.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

#include "runtime/wake_fd.hpp"
#include "tether/io/write_file.hpp"

namespace tether::worker::queue {

namespace fs = std::filesystem;

namespace {

Error Sys(const std::string& what) {
  return Error(ErrorCode::kIo, what + ": " + std::strerror(errno));
}

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

Error ReadFile(const std::string& path, std::string* out, bool* missing) {
  if (missing) *missing = false;
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (f.fd < 0) {
    if (errno == ENOENT && missing) {
      *missing = true;
      return Error();
    }
    return Sys("cannot read " + path);
  }
  out->clear();
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Sys("cannot read " + path);
    if (n == 0) break;
    out->append(buf, static_cast<std::size_t>(n));
  }
  return Error();
}

// Writes a spool record whole or not at all and synced (a crash of the
// machine keeps the old record or the new one), through a temporary in the
// spool's tmp/ (which no reader lists). With replace=false an existing
// record wins and the write fails with EEXIST.
Error WriteRecord(const std::string& root, const std::string& path, const std::string& text,
                  bool replace, bool* exists = nullptr) {
  io::AtomicWriteOptions options;
  options.sync = true;
  options.replace = replace;
  options.temp_dir = root + "/tmp";
  std::optional<io::WriteError> e = io::WriteFileAtomically(path, text, options);
  if (exists) *exists = e && e->errnum == EEXIST;
  if (!e) return Error();
  return Error(ErrorCode::kIo, "cannot write " + path + ": " + e->message);
}

// "<ms>-<id>.job" -> "<id>"
std::string IdOfJobFile(const std::string& name) {
  std::string base = name.size() > 4 ? name.substr(0, name.size() - 4) : name;
  std::size_t dash = base.find('-');
  return dash == std::string::npos ? base : base.substr(dash + 1);
}

std::vector<std::string> ListDir(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string n = it->path().filename().string();
    if (n.empty() || n[0] == '.') continue;
    if (!suffix.empty() &&
        (n.size() <= suffix.size() || n.compare(n.size() - suffix.size(), suffix.size(), suffix)))
      continue;
    names.push_back(std::move(n));
  }
  return names;
}

}  // namespace

SpoolQueue::SpoolQueue(std::string root, QueueOptions options)
    : root_(std::move(root)), options_(std::move(options)) {
  name_ = options_.worker_name.empty() ? DefaultWorkerName() : options_.worker_name;
}

SpoolQueue::~SpoolQueue() {
  if (lock_fd_ < 0) return;
  // A clean exit with nothing claimed removes this worker's folder (the lock
  // last, while still held); otherwise the next worker's recovery does.
  const std::string dir = root_ + "/workers/" + name_;
  if (::rmdir(claimed_dir_.c_str()) == 0) {
    ::unlink((dir + "/lock").c_str());
    ::rmdir(dir.c_str());
  }
  ::close(lock_fd_);
}

Error SpoolQueue::Open() {
  // A command that only reads the queue (status) must not make one out of a
  // typo: a missing spool is an error, and nothing is created.
  if (!options_.create && !fs::is_directory(root_ + "/pending")) {
    return Error(ErrorCode::kInvalidArgument,
                 "no spool queue at " + root_ + " (" + root_ + "/pending is not a directory)");
  }
  for (const char* sub : {"", "/tmp", "/pending", "/done", "/workers", "/cancel"}) {
    std::error_code ec;
    fs::create_directories(root_ + sub, ec);
    if (ec)
      return Error(ErrorCode::kIo,
                   "cannot create spool directory " + root_ + sub + ": " + ec.message());
  }
  if (::access((root_ + "/pending").c_str(), R_OK | W_OK | X_OK) != 0) {
    return Sys("spool " + root_ + "/pending is not usable");
  }
  return Error();
}

Error SpoolQueue::Submit(const JobSpec& spec, std::string* id) {
  JobRecord job;
  job.id = NewJobId(spec.pipeline_file);
  job.spec = spec;
  job.submitted = WallClock::now();
  long long ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(job.submitted.time_since_epoch())
          .count();
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%015lld", ms);
  std::string dest = root_ + "/pending/" + stamp + "-" + job.id + ".job";
  if (Error err = WriteRecord(root_, dest, EncodeJob(job), /*replace=*/true); !err.ok()) return err;
  *id = job.id;
  return Error();
}

Error SpoolQueue::Status(const std::string& id, JobStatus* out, bool* found) {
  *found = false;
  if (id.empty() || id.find('/') != std::string::npos || id[0] == '.') return Error();
  const std::string done = root_ + "/done/" + id + ".json";
  auto read_done = [&]() -> Error {
    std::string text;
    bool missing = false;
    if (Error err = ReadFile(done, &text, &missing); !err.ok() || missing) return err;
    *found = true;
    return DecodeResult(text, done, out);
  };
  if (Error err = read_done(); !err.ok() || *found) return err;
  auto from_job = [&](const std::string& path, const std::string& state,
                      const std::string& worker) -> Error {
    std::string text;
    bool missing = false;
    if (Error err = ReadFile(path, &text, &missing); !err.ok() || missing) return err;
    JobRecord job;
    if (Error err = DecodeJob(text, path, &job); !err.ok()) return err;
    *found = true;
    out->id = job.id;
    out->state = state;
    out->pipeline_file = job.spec.pipeline_file;
    out->attempts = job.attempts + (state == "running" ? 1 : 0);  // the file counts earlier claims
    out->worker = worker;
    return Error();
  };
  const std::string suffix = "-" + id + ".job";
  for (const std::string& n : ListDir(root_ + "/pending", suffix)) {
    if (Error err = from_job(root_ + "/pending/" + n, "queued", ""); !err.ok() || *found)
      return err;
  }
  for (const std::string& w : ListDir(root_ + "/workers", "")) {
    const std::string dir = root_ + "/workers/" + w + "/claimed";
    for (const std::string& n : ListDir(dir, suffix)) {
      if (Error err = from_job(dir + "/" + n, "running", w); !err.ok() || *found) return err;
    }
  }
  return read_done();  // it may have finished while we looked
}

Error SpoolQueue::Cancel(const std::string& id, CancelOutcome* out) {
  *out = CancelOutcome::kNoSuchJob;
  if (id.empty() || id.find('/') != std::string::npos || id[0] == '.') return Error();
  const std::string done = root_ + "/done/" + id + ".json";
  if (::access(done.c_str(), F_OK) == 0) {
    *out = CancelOutcome::kDone;
    return Error();
  }
  const std::string suffix = "-" + id + ".job";
  // Queued: taken out of pending/ by a rename, as a claim is, so exactly one
  // of a worker's claim and this cancel gets it.
  for (const std::string& n : ListDir(root_ + "/pending", suffix)) {
    const std::string taken = root_ + "/tmp/canceled-" + n;
    if (::rename((root_ + "/pending/" + n).c_str(), taken.c_str()) != 0) {
      if (errno == ENOENT) continue;  // a worker claimed it first: running
      return Sys("cannot cancel " + root_ + "/pending/" + n);
    }
    std::string text;
    JobRecord job;
    if (!ReadFile(taken, &text, nullptr).ok() || !DecodeJob(text, taken, &job).ok()) {
      job.id = id;
      job.spec.pipeline_file = "?";
    }
    JobResult result;
    result.status = BuildStatus::kCanceled;
    result.reason = "canceled before it started";
    result.finished = WallClock::now();
    if (Error err = WriteResult(job, result); !err.ok()) return err;
    ::unlink(taken.c_str());
    *out = CancelOutcome::kQueued;
    return Error();
  }
  // Running: a marker that the worker running it polls for.
  for (const std::string& w : ListDir(root_ + "/workers", "")) {
    if (ListDir(root_ + "/workers/" + w + "/claimed", suffix).empty()) continue;
    const std::string marker = root_ + "/cancel/" + id;
    int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return Sys("cannot write " + marker);
    ::close(fd);
    *out = CancelOutcome::kRunning;
    return Error();
  }
  if (::access(done.c_str(), F_OK) == 0) *out = CancelOutcome::kDone;  // it ended meanwhile
  return Error();
}

bool SpoolQueue::CancelRequested(const std::string& id) {
  return ::access((root_ + "/cancel/" + id).c_str(), F_OK) == 0;
}

Error SpoolQueue::Register() {
  if (Error err = Open(); !err.ok()) return err;
  const std::string dir = root_ + "/workers/" + name_;
  // A few rounds: a folder of this name may be removed (by a recovery) or
  // created (by a worker of the same name) while we look.
  for (int round = 0; round < 20; ++round) {
    int fd = ::open((dir + "/lock").c_str(), O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
      // The folder exists: its worker is alive (it holds the lock) or dead.
      if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int saved = errno;
        ::close(fd);
        if (saved != EWOULDBLOCK) return Sys("cannot lock " + dir + "/lock");
        return Error(ErrorCode::kIo, "worker name " + name_ + " is in use: a live worker holds " +
                                         dir + "/lock; give each worker its own --worker-name");
      }
      // Still the lock of that folder, not one a recovery just unlinked?
      struct stat held {
      }, now{};
      if (::fstat(fd, &held) != 0 || ::stat((dir + "/lock").c_str(), &now) != 0 ||
          held.st_ino != now.st_ino || held.st_dev != now.st_dev) {
        ::close(fd);
        continue;
      }
      // Our own dead predecessor: take its folder over, its claims first.
      lock_fd_ = fd;
      claimed_dir_ = dir + "/claimed";
      std::error_code ec;
      fs::create_directories(claimed_dir_, ec);
      if (ec) return Error(ErrorCode::kIo, "cannot create " + claimed_dir_ + ": " + ec.message());
      RequeueClaims(dir, name_ + " (this worker's name, before a restart)");
      RecoverDead();
      return Error();
    }
    if (errno != ENOENT) return Sys("cannot open " + dir + "/lock");
    // Built under a dot name (which recovery skips) and renamed into place
    // once its lock is held, so no one ever sees an unlocked live worker.
    const std::string temp = root_ + "/workers/." + name_ + "." + RandomTag() + ".new";
    std::error_code ec;
    fs::create_directories(temp + "/claimed", ec);
    if (ec) return Error(ErrorCode::kIo, "cannot create " + temp + ": " + ec.message());
    fd = ::open((temp + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      Error err = Sys("cannot lock " + temp + "/lock");
      if (fd >= 0) ::close(fd);
      fs::remove_all(temp, ec);
      return err;
    }
    if (::rename(temp.c_str(), dir.c_str()) != 0) {
      const int saved = errno;
      ::close(fd);
      fs::remove_all(temp, ec);
      if (saved == ENOTEMPTY || saved == EEXIST)
        continue;  // a same-name worker was first: look again
      errno = saved;
      return Sys("cannot register worker " + dir);
    }
    lock_fd_ = fd;
    claimed_dir_ = dir + "/claimed";
    RecoverDead();
    return Error();
  }
  return Error(ErrorCode::kIo, "cannot register worker " + dir +
                                   ": it keeps changing (another worker of that name?)");
}

int SpoolQueue::RequeueClaims(const std::string& dir, const std::string& worker) {
  int recovered = 0;
  for (const std::string& n : ListDir(dir + "/claimed", ".job")) {
    const std::string from = dir + "/claimed/" + n;
    if (::access((root_ + "/done/" + IdOfJobFile(n) + ".json").c_str(), F_OK) == 0) {
      ::unlink(from.c_str());  // it finished; only the ack was lost
      continue;
    }
    // Back to pending/ with one more claim counted: written anew (temp
    // file, then rename over the claim), then moved.
    std::string text;
    JobRecord job;
    if (ReadFile(from, &text, nullptr).ok() && DecodeJob(text, from, &job).ok()) {
      ++job.attempts;
      WriteRecord(root_, from, EncodeJob(job), /*replace=*/true);  // else requeued as it was
    }
    if (::rename(from.c_str(), (root_ + "/pending/" + n).c_str()) == 0) {
      ++recovered;
      std::cerr << "tether-worker: recovered job " << IdOfJobFile(n) << " of dead worker " << worker
                << "\n";
    }
  }
  return recovered;
}

int SpoolQueue::RecoverDead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    last_recovery_ = std::chrono::steady_clock::now();
  }
  int recovered = 0;
  for (const std::string& w : ListDir(root_ + "/workers", "")) {
    if (w == name_) continue;
    const std::string dir = root_ + "/workers/" + w;
    Fd lock(::open((dir + "/lock").c_str(), O_RDWR | O_CLOEXEC));
    if (lock.fd < 0) continue;  // being removed by another worker's recovery
    if (::flock(lock.fd, LOCK_EX | LOCK_NB) != 0) continue;  // alive
    recovered += RequeueClaims(dir, w);
    std::error_code ec;
    fs::remove_all(dir, ec);  // still holding its lock: no other recoverer is inside
  }
  return recovered;
}

Error SpoolQueue::TryClaim(std::optional<BuildItem>* out, bool* claimed) {
  *claimed = false;
  std::vector<std::string> names = ListDir(root_ + "/pending", ".job");
  std::sort(names.begin(), names.end());  // oldest first: the names start with the submit time
  for (const std::string& n : names) {
    const std::string mine = claimed_dir_ + "/" + n;
    if (::rename((root_ + "/pending/" + n).c_str(), mine.c_str()) != 0) {
      if (errno == ENOENT) continue;  // another worker was first
      return Sys("cannot claim " + root_ + "/pending/" + n);
    }
    std::string text;
    if (Error err = ReadFile(mine, &text, nullptr); !err.ok()) return err;
    JobRecord job;
    Error bad = DecodeJob(text, mine, &job);
    if (bad.ok()) {
      // The file counts the claims before this one (recovery adds one when
      // it requeues a dead worker's claim), so claiming writes nothing.
      ++job.attempts;
      BuildItem item;
      bad = MakeItem(job.id, job.spec, &item);
      if (bad.ok()) {
        item.submitted = job.submitted;
        item.attempt = job.attempts;
        std::lock_guard<std::mutex> lock(mu_);
        running_[job.id] = job;
        *out = std::move(item);
        *claimed = true;
        return Error();
      }
    } else {
      job.id = IdOfJobFile(n);
      job.spec.pipeline_file = "?";
      job.attempts = 1;
    }
    // A job that cannot run gets its terminal result at once.
    std::cerr << "tether-worker: job " << job.id << ": " << bad.message() << "\n";
    JobResult result;
    result.status = BuildStatus::kError;
    result.reason = bad.message();
    result.worker = name_;
    result.finished = WallClock::now();
    if (Error err = WriteResult(job, result); !err.ok()) return err;
    ::unlink(mine.c_str());
  }
  return Error();
}

Error SpoolQueue::Pop(const Context& ctx, std::optional<BuildItem>* out) {
  out->reset();
  if (claimed_dir_.empty()) return Error(ErrorCode::kInvalidArgument, "spool: Pop before Register");
  // Watch before looking, so a job queued in between still wakes us.
  Fd watch(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (watch.fd < 0) return Sys("inotify_init1");
  if (::inotify_add_watch(watch.fd, (root_ + "/pending").c_str(), IN_MOVED_TO | IN_CREATE) < 0) {
    return Sys("inotify_add_watch " + root_ + "/pending");
  }
  while (ctx.Err().ok()) {
    // Every second, busy or not: a dead worker's claims go back to pending/
    // (at the head of the line: their names hold their submit time).
    bool recover_now;
    {
      std::lock_guard<std::mutex> lock(mu_);
      recover_now = std::chrono::steady_clock::now() - last_recovery_ > std::chrono::seconds(1);
    }
    if (recover_now) RecoverDead();
    bool claimed = false;
    if (Error err = TryClaim(out, &claimed); !err.ok() || claimed) return err;
    // Nothing queued: sleep until something is, or 1 s passed (recovery).
    runtime::PollResult r = runtime::PollWithContext(ctx, &watch.fd, 1, 1000);
    if (r.ready[0]) {
      char buf[4096];
      while (::read(watch.fd, buf, sizeof buf) > 0) {
      }
    }
  }
  return Error();
}

Error SpoolQueue::WriteResult(const JobRecord& job, const JobResult& result) {
  const std::string done = root_ + "/done/" + job.id + ".json";
  // Not replaced when done/ already has a result: the first result wins.
  bool exists = false;
  Error err = WriteRecord(root_, done, EncodeResult(job, result), /*replace=*/false, &exists);
  return exists ? Error() : err;
}

Error SpoolQueue::Finish(const Context&, const BuildItem& item, const JobResult& result) {
  JobRecord job;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = running_.find(item.id);
    if (it == running_.end())
      return Error(ErrorCode::kInvalidArgument, "spool: finish of unclaimed job " + item.id);
    job = it->second;
    running_.erase(it);
  }
  if (Error err = WriteResult(job, result); !err.ok()) return err;
  for (const std::string& n : ListDir(claimed_dir_, "-" + item.id + ".job")) {
    ::unlink((claimed_dir_ + "/" + n).c_str());
  }
  ::unlink((root_ + "/cancel/" + item.id).c_str());  // a cancel asked for it is answered
  return Error();
}

}  // namespace tether::worker::queue
