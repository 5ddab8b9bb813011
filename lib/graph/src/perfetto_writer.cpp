// Chrome trace-event JSON for Perfetto (ui.perfetto.dev, chrome://tracing):
// one track (tid) per task, scope and group, a "program" track for spawns no
// task, group or scope encloses, and one v1 flow per task (ph s -> t -> f) drawn
// spawn -> task -> join. Task slices that outlived their scope are named
// "ZOMBIE <name>" (and "LEAKED <name>" when they outlived the program).
// Events are streamed one per line; no DOM of the whole trace is built.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "tether/graph/writers.hpp"
#include "tether/trace/saturate.hpp"

namespace tether::graph {
namespace {

using ordered_json = nlohmann::ordered_json;

// A slice on one track, in µs relative to the trace start.
struct Span {
  std::uint64_t tid = 0;
  double begin = 0;
  double end = 0;
  bool Encloses(double t) const { return begin <= t && t <= end; }
  // A time strictly inside the span near t, so flow binding never falls on an edge.
  double Inside(double t) const {
    double eps = std::min(0.5, (end - begin) / 4);
    return std::clamp(t, begin + eps, end - eps);
  }
};

class EventStream {
 public:
  EventStream(std::ostream& out, std::int64_t pid) : out_(out), pid_(pid) {}

  void Emit(ordered_json ev) {
    ev["pid"] = pid_;
    out_ << (first_ ? "\n" : ",\n")
         << ev.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    first_ = false;
  }
  void Meta(std::uint64_t tid, const char* what, ordered_json args) {
    ordered_json ev;
    ev["ph"] = "M";
    ev["name"] = what;
    ev["tid"] = tid;
    ev["args"] = std::move(args);
    Emit(std::move(ev));
  }
  void Track(std::uint64_t tid, const std::string& name, int sort_index) {
    Meta(tid, "thread_name", {{"name", name}});
    Meta(tid, "thread_sort_index", {{"sort_index", sort_index}});
  }
  void Slice(const Span& span, const std::string& name, const char* cat, ordered_json args) {
    ordered_json ev;
    ev["ph"] = "X";
    ev["name"] = name;
    ev["cat"] = cat;
    ev["tid"] = span.tid;
    ev["ts"] = span.begin;
    ev["dur"] = std::max(span.end - span.begin, 0.001);
    ev["args"] = std::move(args);
    Emit(std::move(ev));
  }
  // One step of the flow of a task: ph s (spawn), t (task), f (join).
  void Flow(const char* ph, std::uint64_t id, std::uint64_t tid, double ts) {
    ordered_json ev;
    ev["ph"] = ph;
    ev["id"] = id;
    ev["cat"] = "task";
    ev["name"] = "spawn-task-join";
    ev["tid"] = tid;
    ev["ts"] = ts;
    if (ph[0] == 'f') ev["bp"] = "e";  // bind to the enclosing slice, not the next one
    Emit(std::move(ev));
  }

 private:
  std::ostream& out_;
  std::int64_t pid_;
  bool first_ = true;
};

std::string SiteText(const SourceSite& s) {
  return s.file.empty() ? "" : s.file + ":" + std::to_string(s.line);
}

// The graph's vertices as Perfetto tracks, slices and flows.
class PerfettoWriter {
 public:
  PerfettoWriter(const ScopeGraph& sg, EventStream& events)
      : sg_(sg), g_(sg.graph), events_(events), trace_end_(Us(sg.time_end_ns)) {}

  void Write() {
    std::uint64_t max_id = 0;
    for (auto v : boost::make_iterator_range(boost::vertices(g_)))
      max_id = std::max(max_id, g_[v].input_id);
    program_ = Span{max_id + 1, 0, trace_end_};
    events_.Meta(0, "process_name", {{"name", "tether: " + sg_.program}});
    events_.Track(program_.tid, "program", 0);
    events_.Slice(program_, "program " + sg_.program, "program", ordered_json::object());
    // Scopes and groups first: their spans are where spawns and joins bind.
    for (auto v : boost::make_iterator_range(boost::vertices(g_))) ScopeOrGroup(v);
    for (auto v : boost::make_iterator_range(boost::vertices(g_))) TaskSpan(v);
    for (auto v : boost::make_iterator_range(boost::vertices(g_)))
      if (task_span_.count(v)) Task(v);
  }

 private:
  double Us(std::int64_t ns) const {
    return static_cast<double>(trace::SaturatingSub(ns, sg_.time_origin_ns)) / 1000.0;
  }

  void ScopeOrGroup(Vertex v) {
    const Node& n = g_[v];
    if (!n.recorded || !n.begin_ns) return;
    if (n.kind == NodeKind::kScope) {
      Span s{n.input_id, Us(*n.begin_ns), n.end_ns ? Us(*n.end_ns) : trace_end_};
      scope_span_[v] = s;
      events_.Track(s.tid, "scope " + n.name, 1);
      events_.Slice(s, "scope " + n.name + (n.end_ns ? "" : " (never ended)"), "scope",
                    {{"scope", n.key}, {"site", SiteText(n.site)}});
    } else if (n.kind == NodeKind::kGroup) {
      double end = n.end_ns ? Us(*n.end_ns) : trace_end_;
      Span s{n.input_id, Us(*n.begin_ns), std::max(end, Us(*n.begin_ns))};
      group_span_[v] = s;
      events_.Track(s.tid, n.name + " " + SiteText(n.site), 2);
      events_.Slice(s, n.name, "group",
                    {{"group", n.key}, {"site", SiteText(n.site)}, {"state", n.detail}});
      if (n.start_ns) {
        // Clamped into the group's slice: the wait and the group's end are
        // stamped by different threads, and a slice must nest in its track.
        Span w{s.tid, std::clamp(Us(*n.start_ns), s.begin, s.end), s.end};
        wait_span_[v] = w;
        events_.Slice(w, "Wait", "group", {{"group", n.key}});
      }
    }
  }

  void TaskSpan(Vertex v) {
    const Node& n = g_[v];
    if (n.kind != NodeKind::kTask || !n.recorded || !n.begin_ns) return;
    double spawn = Us(*n.begin_ns);
    Span task{n.input_id, n.start_ns ? Us(*n.start_ns) : spawn,
              n.end_ns ? Us(*n.end_ns) : trace_end_};
    task.end = std::max(task.end, task.begin + 0.001);
    task_span_[v] = task;
  }

  void Task(Vertex v) {
    const Node& n = g_[v];
    double spawn = Us(*n.begin_ns);
    const Span task = task_span_[v];
    std::string prefix = n.status == Status::kZombie   ? "ZOMBIE "
                         : n.status == Status::kLeaked ? "LEAKED "
                                                       : "";
    events_.Track(task.tid, "task " + n.name + " #" + std::to_string(n.input_id), 3);
    ordered_json args = {{"task", n.key},
                         {"site", SiteText(n.site)},
                         {"status", StatusName(n.status)},
                         {"result", n.detail}};

    // Who spawned it: the task that did, else its group, else its scope,
    // else the program.
    std::optional<Span> source;
    std::optional<Span> spawner;
    std::optional<Span> join;
    for (auto e : boost::make_iterator_range(boost::out_edges(v, g_))) {
      Vertex to = boost::target(e, g_);
      if (g_[e].kind == EdgeKind::kSpawnedBy) {
        if (auto it = task_span_.find(to); it != task_span_.end() && it->second.Encloses(spawn))
          spawner = it->second;
      }
      if (g_[e].kind == EdgeKind::kBelongsTo) {
        if (auto it = group_span_.find(to); it != group_span_.end() && it->second.Encloses(spawn))
          source = it->second;
        if (auto it = scope_span_.find(to); it != scope_span_.end() && it->second.Encloses(spawn))
          source = it->second;
        if (auto it = scope_span_.find(to); it != scope_span_.end()) args["scope"] = g_[to].key;
      }
      if (g_[e].kind == EdgeKind::kWaitedBy) {
        if (auto it = wait_span_.find(to); it != wait_span_.end()) join = it->second;
      }
    }
    if (spawner) source = spawner;
    if (!source) source = program_;
    events_.Slice(task, prefix + n.name, "task", std::move(args));
    events_.Flow("s", n.input_id, source->tid, source->Inside(spawn));
    if (join) {
      events_.Flow("t", n.input_id, task.tid, task.Inside((task.begin + task.end) / 2));
      events_.Flow("f", n.input_id, join->tid, join->Inside(task.end));
    } else {
      events_.Flow("f", n.input_id, task.tid, task.Inside((task.begin + task.end) / 2));
    }
  }

  const ScopeGraph& sg_;
  const Graph& g_;
  EventStream& events_;
  const double trace_end_;
  Span program_;
  std::unordered_map<Vertex, Span> scope_span_, group_span_, wait_span_, task_span_;
};

}  // namespace

Error WritePerfetto(const ScopeGraph& sg, std::ostream& out) {
  if (sg.source != SourceKind::kTrace) {
    return Error(ErrorCode::kInvalidArgument,
                 "--format perfetto needs a trace: a static graph has no times (use json, dot, svg "
                 "or html)");
  }
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":"
      << ordered_json(
             {{"tether", "scope graph"}, {"program", sg.program}, {"input", sg.input_path}})
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
      << ",\"traceEvents\":[";
  EventStream events(out, sg.pid ? sg.pid : 1);
  PerfettoWriter(sg, events).Write();
  out << "\n]}\n";
  return {};
}

}  // namespace tether::graph
