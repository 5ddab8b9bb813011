// LoadAndAnalyze: the zombie/leak analysis in one pass over the trace file.
//
// Records are applied to the Trace as LoadTrace applies them (trace_reader.hpp),
// but a task leaves the Trace as soon as the file has told everything that
// decides it is no finding: its spawn, start and end, and (when it belongs to
// a scope) the scope's end, at or after which it ended within the grace. A task
// whose scope has not ended yet in the file waits in a compact form on that
// scope's list, and is decided when the scope's end arrives. What stays at the
// end of the file (running tasks, zombies, tasks whose scope never ended,
// tasks another task's analysis walks through) is analysed by Analyze itself,
// with the trace's end taken over every record read, so the findings are
// Analyze's on the whole trace (test/unit/trace/stream_analyze_test.cpp
// compares both on every trace fixture).
//
// Why dropping is safe: a task's records come from the thread that ran it, in
// order (one ring per thread, drained in order), so nothing about a task
// follows its end record except its spawn, which the spawner's thread wrote,
// and a thread's join or detach (DropPhantom); a task is only dropped once
// its spawn and end are read. A task with neither scope nor
// detached_from is charged through its parent: it and its parent are kept.
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tether/trace/model.hpp"
#include "tether/trace/saturate.hpp"
#include "trace_reader.hpp"

namespace tether::trace {
namespace {

// A task ended in a scope that has not ended yet (in file order): what
// TaskRecord holds, with its site and result interned.
// 80 bytes: a trace whose scopes last all its run keeps every task here.
struct WaitingTask {
  std::uint64_t id, ctx, group, thread;
  std::int64_t spawn_ns, start_ns, end_ns;
  std::uint32_t site, result, name;
  bool detached;  // charged through detached_from (the scope it waits on), not scope
  // TaskRecord::kind (a libtether task, a thread, a child process) and a
  // thread's joined / detached (a thread waits here only once it has one).
  std::uint8_t kind;
  bool joined, detached_thread;
};
static_assert(sizeof(WaitingTask) <= 80);

class StreamAnalysis : public detail::RecordHook {
 public:
  StreamAnalysis(Trace* trace, const AnalysisOptions& options)
      : trace_(*trace), options_(options) {}

  void AfterRecord(const detail::RecordSeen& record) override {
    if (TimesTheEnd(record.ev)) {
      if (!any_time_ || record.t > last_ns_) last_ns_ = record.t;
      any_time_ = true;
    }
    if (record.ev == "spawn") {
      const std::uint64_t id = record.id;
      spawned_.insert(id);
      ++spawns_;
      TaskRecord& task = trace_.tasks.at(id);
      if (task.kind == "thread") ++trace_.thread_count;
      // A child process: its own part comes later in the file (its threads
      // name it as their parent, and it ends twice: its exit, its reap), so
      // it is never dropped; a program starts few.
      if (task.kind == "process") {
        ++trace_.process_count;
        keep_.insert(id);
      }
      if (auto early = read_early_.find(id); early != read_early_.end()) {
        AddThreadFacts(early->second, &task);
        read_early_.erase(early);
      }
      if (task.scope == 0 && task.detached_from == 0 && task.parent_task != 0) {
        // Charged through its parent: Analyze walks the chain, so both stay
        // (the parent, when it is charged through its own parent, marks that
        // one from its own spawn record).
        keep_.insert(id);
        keep_.insert(task.parent_task);
      }
      // A thread names the libtether task that created it (the report's
      // "created by task"), so that task stays. `tether trace` writes the
      // threads' records first, so the task's own records come after this.
      if (task.kind == "thread" && task.parent_task != 0) keep_.insert(task.parent_task);
      Consider(id);
    } else if (record.ev == "start" || record.ev == "end") {
      Consider(record.id);
    } else if (record.ev == "scope_end") {
      ScopeEnded(record.id);
    } else if (record.ev == "join" || record.ev == "detach" || record.ev == "join_begin" ||
               record.ev == "thread_name") {
      if (spawned_.count(record.id) == 0) {
        // Written by another thread (the joiner, the namer) and read before
        // the thread's spawn (that thread's ring drained first): kept aside
        // until the spawn, so the thread is not taken for one that was never
        // joined.
        if (auto t = trace_.tasks.find(record.id); t != trace_.tasks.end())
          AddThreadFacts(t->second, &read_early_[record.id]);
        DropPhantom(record.id);
      } else if (record.ev == "join" || record.ev == "detach") {
        Consider(record.id);  // the reader set its flag: it may be dropped now
      }
    }
  }

  // The analysis of what is left, with the trace's end over every record.
  std::vector<Finding> Finish() {
    std::size_t unspawned = 0;  // a start or end whose spawn was lost
    for (const auto& [id, task] : trace_.tasks) {
      if (spawned_.count(id) == 0) ++unspawned;
    }
    trace_.task_count = spawns_ + unspawned;
    for (auto& [scope, waiting] : waiting_) {
      for (WaitingTask& w : waiting) Restore(w, scope);
    }
    waiting_.clear();
    std::int64_t end = trace_.start_ns;
    if (trace_.end_ns) {
      end = *trace_.end_ns;
    } else if (options_.program_end_ns) {
      end = *options_.program_end_ns;  // killed: to when its parent saw it end
    } else if (any_time_ && last_ns_ > end) {
      end = last_ns_;
    }
    return detail::AnalyzeUntil(trace_, options_, end);
  }

 private:
  // The records whose time Analyze's TraceEnd takes the latest of.
  static bool TimesTheEnd(std::string_view ev) {
    return ev == "header" || ev == "ctx" || ev == "ctx_done" || ev == "spawn" || ev == "start" ||
           ev == "end" || ev == "group" || ev == "wait_begin" || ev == "wait_end" ||
           ev == "scope_begin" || ev == "scope_end";
  }

  // Drops the task if the file has decided it is no finding, or moves it to
  // its scope's waiting list when only the scope's end is missing.
  void Consider(std::uint64_t id) {
    if (keep_.count(id) != 0 || spawned_.count(id) == 0) return;
    auto it = trace_.tasks.find(id);
    const TaskRecord& t = it->second;
    if (!t.start_ns || !t.end_ns) return;
    // A thread that ended is decided only by its join or detach: until one
    // is read it may be a finished thread never joined (Analyze decides).
    if (t.kind == "thread" && !t.joined && !t.detached_thread) return;
    if (t.scope == 0 && t.detached_from == 0) {
      if (t.parent_task == 0) Drop(it);  // ended, and no scope to outlive
      return;
    }
    const std::uint64_t scope = t.scope != 0 ? t.scope : t.detached_from;
    auto s = trace_.scopes.find(scope);
    if (s != trace_.scopes.end() && s->second.end_ns) {
      if (*t.end_ns <= SaturatingAdd(*s->second.end_ns, options_.grace_ns))
        Drop(it);
      else
        keep_.insert(id);  // a zombie
      return;
    }
    if (t.scope != 0 && t.detached_from != 0) {  // never written so; WaitingTask holds one
      keep_.insert(id);
      return;
    }
    waiting_[scope].push_back(WaitingTask{t.id, t.ctx, t.group, t.thread, t.spawn_ns, *t.start_ns,
                                          *t.end_ns, Intern(t.site), Intern(t.result, &results_),
                                          Intern(t.name, &names_), t.scope == 0, KindCode(t.kind),
                                          t.joined, t.detached_thread});
    Drop(it);
  }

  void ScopeEnded(std::uint64_t scope) {
    auto w = waiting_.find(scope);
    if (w == waiting_.end()) return;
    std::deque<WaitingTask> waiting = std::move(w->second);
    waiting_.erase(w);
    for (const WaitingTask& task : waiting) {
      const std::uint64_t id = task.id;
      Restore(task, scope);
      spawned_.insert(id);
      Consider(id);
    }
  }

  // A thread's join or detach is written by another thread (the joiner), so
  // it can follow the thread's end in the file, after the thread was dropped:
  // applying it then made a record holding nothing but that flag, which
  // Analyze took for a task that never ended (a leak). Such a record is no
  // task. (A join or detach read before anything else of its thread, when the
  // joiner's records were written first, loses its flag this way too; only
  // the words of a leak's report use it.)
  // What another thread recorded of a pthread (join, detach, join_begin, its
  // name), from one record of it onto another.
  static void AddThreadFacts(const TaskRecord& from, TaskRecord* to) {
    to->joined |= from.joined;
    to->detached_thread |= from.detached_thread;
    to->join_waiting |= from.join_waiting;
    if (!from.thread_name.empty()) to->thread_name = from.thread_name;
  }

  void DropPhantom(std::uint64_t id) {
    if (spawned_.count(id) != 0) return;
    auto it = trace_.tasks.find(id);
    if (it != trace_.tasks.end() && !it->second.start_ns && !it->second.end_ns) {
      trace_.tasks.erase(it);
    }
  }

  void Drop(std::map<std::uint64_t, TaskRecord>::iterator it) {
    spawned_.erase(it->first);
    trace_.tasks.erase(it);
  }

  void Restore(const WaitingTask& w, std::uint64_t scope) {
    TaskRecord& t = trace_.tasks[w.id];
    t.id = w.id;
    t.ctx = w.ctx;
    t.group = w.group;
    t.scope = w.detached ? 0 : scope;
    t.detached_from = w.detached ? scope : 0;
    t.thread = w.thread;
    t.spawn_ns = w.spawn_ns;
    t.start_ns = w.start_ns;
    t.end_ns = w.end_ns;
    t.site = sites_[w.site];
    t.result = results_.text[w.result];
    t.name = names_.text[w.name];
    t.kind = w.kind == 1 ? "thread" : w.kind == 2 ? "process" : "";
    t.joined = w.joined;
    t.detached_thread = w.detached_thread;
  }

  static std::uint8_t KindCode(const std::string& kind) {
    return kind == "thread" ? 1 : kind == "process" ? 2 : 0;
  }

  std::uint32_t Intern(const Site& site) {
    std::string key = site.file + '\n' + std::to_string(site.line) + '\n' + site.function;
    auto [it, inserted] =
        site_ids_.emplace(std::move(key), static_cast<std::uint32_t>(sites_.size()));
    if (inserted) sites_.push_back(site);
    return it->second;
  }
  // Strings a trace repeats (results, names; sites above), each kept once.
  struct StringTable {
    std::vector<std::string> text;
    std::unordered_map<std::string, std::uint32_t> ids;
  };
  static std::uint32_t Intern(const std::string& s, StringTable* table) {
    auto [it, inserted] = table->ids.emplace(s, static_cast<std::uint32_t>(table->text.size()));
    if (inserted) table->text.push_back(s);
    return it->second;
  }

  Trace& trace_;
  const AnalysisOptions options_;
  std::unordered_set<std::uint64_t> spawned_;  // tasks in trace_.tasks whose spawn was read
  std::unordered_set<std::uint64_t> keep_;     // never dropped: left to Analyze
  // Threads whose join (true) or detach (false) was read before their spawn.
  // Thread facts read before the thread's spawn (AfterRecord), by its id.
  std::unordered_map<std::uint64_t, TaskRecord> read_early_;
  std::unordered_map<std::uint64_t, std::deque<WaitingTask>> waiting_;  // by scope
  std::size_t spawns_ = 0;
  bool any_time_ = false;
  std::int64_t last_ns_ = 0;
  std::vector<Site> sites_;
  std::unordered_map<std::string, std::uint32_t> site_ids_;
  StringTable results_;
  StringTable names_;
};

}  // namespace

Error LoadAndAnalyze(const std::string& path, const AnalysisOptions& options, Trace* out,
                     std::vector<Finding>* findings) {
  findings->clear();
  StreamAnalysis analysis(out, options);
  if (Error err = detail::ReadTrace(path, out, &analysis); !err.ok()) return err;
  *findings = analysis.Finish();
  return Error();
}

}  // namespace tether::trace
