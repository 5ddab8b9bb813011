// The trace file's text records (record_format.hpp).
#include "tether/trace_writer/record_format.hpp"

#include <charconv>
#include <cstring>

#include "tether/error.hpp"
#include "tether/hooks.hpp"
#include "tether/trace_writer/json_text.hpp"

namespace tether::trace::detail {

void BeginRecord(std::string& out, std::string_view ev) {
  char buf[40] = "{\"ev\":\"";
  if (ev.size() > sizeof buf - 8) {
    out.append(buf).append(ev) += '"';
    return;
  }
  std::memcpy(buf + 7, ev.data(), ev.size());
  buf[7 + ev.size()] = '"';
  out.append(buf, 8 + ev.size());
}

void EndRecord(std::string& out, std::int64_t t) {
  char buf[32] = ",\"t\":";
  auto [end, ec] = std::to_chars(buf + 5, buf + sizeof buf - 2, t);
  *end++ = '}';
  *end++ = '\n';
  out.append(buf, static_cast<std::size_t>(end - buf));
}

namespace {

const char* KindName(std::uint32_t kind) {
  switch (static_cast<hooks::ContextKind>(kind)) {
    case hooks::ContextKind::kBackground:
      return "background";
    case hooks::ContextKind::kTODO:
      return "todo";
    case hooks::ContextKind::kCancel:
      return "cancel";
    case hooks::ContextKind::kDeadline:
      return "deadline";
    case hooks::ContextKind::kValue:
      return "value";
    case hooks::ContextKind::kWithoutCancel:
      return "without_cancel";
    case hooks::ContextKind::kGroup:
      return "group";
    case hooks::ContextKind::kScope:
      return "scope";
  }
  return "unknown";
}

const char* ResultName(std::uint32_t code) {
  switch (static_cast<ErrorCode>(code)) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kCanceled:
      return "canceled";
    case ErrorCode::kDeadlineExceeded:
      return "deadline_exceeded";
    case ErrorCode::kClosed:
      return "closed";
    case ErrorCode::kFailed:
      return "failed";
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kIo:
      return "io";
  }
  return "unknown";
}

// Up to the parent; the name and site follow.
void FormatSpawnIds(std::string& out, const Slot& s, std::uint64_t parent) {
  BeginRecord(out, "spawn");
  AppendField(out, "task", s.a);
  AppendField(out, "ctx", s.b);
  AppendField(out, "group", s.c);
  AppendField(out, "scope", s.d);
  AppendField(out, "detached_from", s.e);
  AppendField(out, "parent", parent);
}

// A task's record (spawn, start, end, join, detach); false for another type.
bool FormatTaskRecord(std::string& out, const Slot& s, std::string_view name,
                      const SpawnSites::Site* site) {
  switch (s.type) {
    case EventType::kSpawn: {
      std::uint64_t parent = 0;
      if (name.size() >= sizeof(parent)) {
        std::memcpy(&parent, name.data(), sizeof(parent));
        name.remove_prefix(sizeof(parent));
      }
      FormatSpawnIds(out, s, parent);
      AppendSpawnTail(out, name, s.loc);
      if (s.aux == kSpawnKindThread) AppendField(out, "kind", std::string_view("thread"));
      if (s.aux == kSpawnKindProcess) AppendField(out, "kind", std::string_view("process"));
      return true;
    }
    case EventType::kSpawnSite: {
      std::uint64_t parent = 0;
      std::memcpy(&parent, static_cast<const void*>(&s.loc), sizeof(parent));
      FormatSpawnIds(out, s, parent);
      out += site->json_tail;  // formatted once, when the pair was interned
      return true;
    }
    case EventType::kStart:
      BeginRecord(out, "start");
      AppendField(out, "task", s.a);
      AppendField(out, "tid", s.b);
      return true;
    case EventType::kEnd:
      BeginRecord(out, "end");
      AppendField(out, "task", s.a);
      AppendPlainField(out, "result", ResultName(s.aux));
      return true;
    case EventType::kThreadJoin:
    case EventType::kThreadDetach:
      BeginRecord(out, s.type == EventType::kThreadJoin ? "join" : "detach");
      AppendField(out, "task", s.a);
      return true;
    case EventType::kThreadJoinBegin:
      BeginRecord(out, "join_begin");
      AppendField(out, "task", s.a);
      return true;
    default:
      return false;
  }
}

// A group's record; false for another type.
bool FormatGroupRecord(std::string& out, const Slot& s) {
  switch (s.type) {
    case EventType::kGroup:
      BeginRecord(out, "group");
      AppendField(out, "id", s.a);
      AppendField(out, "ctx", s.b);
      AppendSite(out, s.loc);
      return true;
    case EventType::kWaitBegin:
      BeginRecord(out, "wait_begin");
      AppendField(out, "group", s.a);
      AppendSite(out, s.loc);
      return true;
    case EventType::kWaitEnd:
      BeginRecord(out, "wait_end");
      AppendField(out, "group", s.a);
      AppendPlainField(out, "result", ResultName(s.aux));
      return true;
    case EventType::kGroupUnwaited:
      BeginRecord(out, "group_unwaited");
      AppendField(out, "group", s.a);
      AppendField(out, "running", s.b);
      return true;
    default:
      return false;
  }
}

}  // namespace

void FormatRecord(std::string& out, const Slot& s, std::string_view name,
                  const TickConversion& conv, const SpawnSites::Site* site) {
  switch (s.type) {
    case EventType::kCtx:
      BeginRecord(out, "ctx");
      AppendField(out, "id", s.a);
      AppendField(out, "parent", s.b);
      AppendPlainField(out, "kind", KindName(s.aux));
      AppendField(out, "scope", s.c);
      AppendSite(out, s.loc);
      break;
    case EventType::kCtxDone:
      BeginRecord(out, "ctx_done");
      AppendField(out, "id", s.a);
      AppendPlainField(out, "err", ResultName(s.aux));
      break;
    case EventType::kScopeBegin:
      BeginRecord(out, "scope_begin");
      AppendField(out, "id", s.a);
      AppendField(out, "ctx", s.b);
      AppendField(out, "name", name);
      AppendSite(out, s.loc);
      break;
    case EventType::kScopeEnd:
      BeginRecord(out, "scope_end");
      AppendField(out, "id", s.a);
      if (s.b != 0) AppendField(out, "tid", s.b);
      break;
    case EventType::kChanClose:
      BeginRecord(out, "chan_close");
      AppendField(out, "id", s.a);
      AppendSite(out, s.loc);
      break;
    case EventType::kStack:
      BeginRecord(out, "stack");
      AppendField(out, "id", s.a);
      if (s.aux == kStackOfDetach) AppendPlainField(out, "of", "detach");
      if (s.aux == kStackOfRunning) AppendPlainField(out, "of", "running");
      out += ",\"pcs\":[";
      for (std::uint64_t pc : {s.b, s.c, s.d, s.e}) {
        if (pc == 0) break;
        if (out.back() != '[') out += ',';
        out += std::to_string(pc);
      }
      out += ']';
      break;
    case EventType::kModule:
      BeginRecord(out, "module");
      AppendField(out, "path", name);
      AppendField(out, "bias", s.a);
      AppendField(out, "lo", s.b);
      AppendField(out, "hi", s.c);
      break;
    case EventType::kTerminate:
      BeginRecord(out, "terminate");
      break;
    case EventType::kThreadName:
      BeginRecord(out, "thread_name");
      AppendField(out, "task", s.a);
      AppendField(out, "name", name);
      break;
    case EventType::kScopeSite:
      BeginRecord(out, "scope_site");
      AppendField(out, "id", s.a);
      AppendField(out, "file", name);
      AppendField(out, "line", s.b);
      break;
    default:
      if (FormatTaskRecord(out, s, name, site) || FormatGroupRecord(out, s)) break;
      return;  // cannot happen: only Put writes slots
  }
  EndRecord(out, conv.ToNs(s.ticks));
}

}  // namespace tether::trace::detail
