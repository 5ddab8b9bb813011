// Crash recovery of build workspaces on one machine. Each worker process
// (run or serve) owns what it creates under its workspace root through a
// ledger:
//
//   ROOT/.tether-owner-<tag>.lock    flock(LOCK_EX) held for the life of the worker
//   ROOT/.tether-owner-<tag>.d/<id>  one entry per running build: written before
//                                    its workspace ROOT/<id>-<tag>-XXXXXX is created,
//                                    removed after DestroyBuild removed it
//
// A worker that dies (SIGKILL) releases its lock. The next worker on that
// machine with the same workspace root (or, with the default root, any
// default root in $TMPDIR) takes the lock, removes the workspaces of the
// entries, writes build.json (status error, reason "worker died") for each
// build of a `run` that has none, and removes the ledger.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "tether/error.hpp"

namespace tether::worker::cmd {

class WorkspaceLedger {
 public:
  // Creates this worker's ledger in root (the lock is held when the file
  // appears under its final name). record_on_crash: `run`, whose builds are
  // recorded as "worker died" if it is killed (a queue reruns its builds).
  static Error Open(const std::string& root, bool record_on_crash,
                    std::unique_ptr<WorkspaceLedger>* out);
  // Recovers the ledgers of dead workers in root. Returns how many builds;
  // *ledgers (if given) counts the dead workers' ledgers.
  static int RecoverDead(const std::string& root, int* ledgers = nullptr);
  // The same for every default workspace root ($TMPDIR/tether-worker-*),
  // removing each that is left empty.
  static int RecoverDeadDefaultRoots();

  ~WorkspaceLedger();  // a clean exit: the ledger goes (its entries are ended)
  WorkspaceLedger(const WorkspaceLedger&) = delete;
  WorkspaceLedger& operator=(const WorkspaceLedger&) = delete;

  // Before build `id`'s workspace is created / after it was removed.
  Error Begin(const std::string& id, const std::string& pipeline_file,
              const std::string& result_dir);
  void End(const std::string& id);
  // This worker's tag: its builds' workspaces are ROOT/<id>-<tag>-XXXXXX
  // (ProcessRuntime::Options::workspace_owner), which is how recovery tells
  // them from another worker's workspace of the same build id.
  std::string tag() const;

 private:
  WorkspaceLedger(std::string root, std::string base, int fd, bool record)
      : root_(std::move(root)), base_(std::move(base)), lock_fd_(fd), record_on_crash_(record) {}
  const std::string root_;
  const std::string base_;  // ROOT/.tether-owner-<tag>
  const int lock_fd_;
  const bool record_on_crash_;
  std::mutex mu_;  // entries are files; the mutex only orders Begin/End of one id
};

}  // namespace tether::worker::cmd
