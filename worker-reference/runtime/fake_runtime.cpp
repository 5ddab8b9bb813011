#include "runtime/fake_runtime.hpp"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <functional>
#include <optional>
#include <utility>

#include "tether/select.hpp"

namespace tether::worker::runtime {

struct FakeRuntime::Container {
  Container(FakeScript s, ProcessSpec p)
      : script(std::move(s)),
        spec(std::move(p)),
        output(script.output.size() + script.output_on_stop.size() + 1) {}
  const FakeScript script;
  const ProcessSpec spec;
  Channel<std::string> output;  // room for every line: a send never waits
  Signal ended = Signal::Make();
  std::chrono::steady_clock::time_point term_sent_at;  // guarded by mu_
  bool term_sent = false, tailed = false;              // guarded by mu_
  ExitStatus status;                                   // guarded by mu_
};

namespace {

// Reads a fake container's output channel as a pipe would be read.
class FakeTail final : public LogTail {
 public:
  FakeTail(Channel<std::string> output, std::function<void()> on_eof)
      : output_(std::move(output)), on_eof_(std::move(on_eof)) {}
  using LogTail::Read;
  Error Read(const Context& ctx, char* buf, std::size_t cap, std::size_t* n) override {
    *n = 0;
    if (pending_.empty()) {
      Error err;
      std::optional<std::string> chunk = output_.Recv(ctx, &err);
      if (!chunk) {
        if (err.Is(ErrorCode::kClosed) && on_eof_) std::exchange(on_eof_, nullptr)();
        return err;
      }
      pending_ = std::move(*chunk);
    }
    *n = std::min(cap, pending_.size());
    std::memcpy(buf, pending_.data(), *n);
    pending_.erase(0, *n);
    return Error();
  }

 private:
  Channel<std::string> output_;
  std::function<void()> on_eof_;
  std::string pending_;  // read from the channel, not yet returned
};

}  // namespace

FakeRuntime::FakeRuntime(RuntimeOptions options)
    : options_(std::move(options)),
      sends_(Background()),
      timers_(TaskGroup::WithContext(Background()).group) {}

FakeRuntime::~FakeRuntime() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [name, c] : started_) End(*c, 128 + SIGKILL, SIGKILL);
  }
  timers_.Wait();
}

void FakeRuntime::Script(const std::string& name, FakeScript script) {
  std::lock_guard<std::mutex> lock(mu_);
  scripts_[name] = std::move(script);
}

std::vector<std::string> FakeRuntime::Events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

FakeRuntime::Container* FakeRuntime::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = started_.find(name);
  return it == started_.end() ? nullptr : it->second.get();
}

void FakeRuntime::Record(std::string event) {
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back(std::move(event));
}

Error FakeRuntime::SetupBuild(const Context& ctx, const std::string& build_id) {
  if (Error err = ctx.Err(); !err.ok()) return err;
  workspace_ = options_.workspace_root + "/" + build_id + "-fake";  // never created
  Record("setup " + build_id);
  return Error();
}

Error FakeRuntime::RunContainer(const Context& ctx, const ProcessSpec& spec) {
  if (Error err = ctx.Err(); !err.ok()) return err;
  if (workspace_.empty()) return Error(ErrorCode::kFailed, "RunContainer before SetupBuild");
  std::lock_guard<std::mutex> lock(mu_);
  FakeScript script = scripts_.count(spec.name) ? scripts_[spec.name] : FakeScript();
  if (script.fails_to_start) {
    events_.push_back("spawn-error " + spec.name);
    return Error(ErrorCode::kIo, "spawn " + spec.argv.at(0) + ": No such file or directory");
  }
  if (started_.count(spec.name)) return Error(ErrorCode::kFailed, "container exists: " + spec.name);
  auto owned = std::make_unique<Container>(std::move(script), spec);
  Container& c = *owned;
  started_[spec.name] = std::move(owned);
  events_.push_back("run " + spec.name);
  for (const std::string& line : c.script.output) (void)c.output.Send(sends_, line + "\n");
  if (c.script.runs_until_stopped) return Error();
  if (c.script.runs_for <= Duration::zero()) {
    End(c, c.script.exit_code, 0);
    return Error();
  }
  timers_.Go("fake container " + spec.name, [this, &c] {
    Select()
        .OnTimer(c.script.runs_for,
                 [&] {
                   std::lock_guard<std::mutex> lock(mu_);
                   End(c, c.script.exit_code, 0);
                 })
        .OnSignal(c.ended, [] {})
        .Wait();
  });
  return Error();
}

// Called with mu_ held.
void FakeRuntime::End(Container& c, int code, int signal) {
  if (c.ended.Fired()) return;
  c.status.exited = true;
  c.status.code = code;
  c.status.signal = signal;
  c.status.stopped_by_worker = signal != 0;
  if (signal == SIGTERM) {
    for (const std::string& line : c.script.output_on_stop)
      (void)c.output.Send(sends_, line + "\n");
  }
  events_.push_back("exit " + c.spec.name + " " + std::to_string(code));
  if (!c.script.output_outlives_it) c.output.Close();
  c.ended.Fire();
}

void FakeRuntime::Terminate(Container& c) {
  std::lock_guard<std::mutex> lock(mu_);
  if (c.ended.Fired() || c.term_sent) return;
  c.term_sent = true;
  c.term_sent_at = std::chrono::steady_clock::now();
  events_.push_back("stop " + c.spec.name);
  if (!c.script.ignores_sigterm) End(c, 128 + SIGTERM, SIGTERM);
}

void FakeRuntime::AwaitEndOrKill(const Context& ctx, Container& c) {
  std::chrono::steady_clock::time_point kill_at;
  {
    std::lock_guard<std::mutex> lock(mu_);
    kill_at = c.term_sent_at + options_.kill_grace;
  }
  Select()
      .OnSignal(c.ended, [] {})
      .OnSignal(kill_now_, [] {})
      .OnDone(ctx, [] {})
      .OnDeadline(kill_at, [] {})
      .Wait();
  std::lock_guard<std::mutex> lock(mu_);
  if (c.ended.Fired()) return;
  events_.push_back("kill " + c.spec.name);
  End(c, 128 + SIGKILL, SIGKILL);
}

Error FakeRuntime::TailContainer(const Context& ctx, const std::string& name,
                                 std::unique_ptr<LogTail>* out) {
  Container* c = Find(name);
  if (c == nullptr) return Error(ErrorCode::kFailed, "no container " + name);
  std::lock_guard<std::mutex> lock(mu_);
  if (c->tailed) return Error(ErrorCode::kFailed, "the output of " + name + " is already tailed");
  c->tailed = true;
  events_.push_back("tail " + name);
  *out = std::make_unique<FakeTail>(c->output, [this, name] { Record("eof " + name); });
  return Error();
}

Error FakeRuntime::WaitContainer(const Context& ctx, const std::string& name, ExitStatus* status) {
  Container* c = Find(name);
  if (c == nullptr) return Error(ErrorCode::kFailed, "no container " + name);
  Select().OnSignal(c->ended, [] {}).OnDone(ctx, [] {}).Wait();
  Error err;
  if (!c->ended.Fired()) {
    err = ctx.Err();
    Terminate(*c);
    // tether:detached(ctx is already done; the container still gets its kill grace)
    AwaitEndOrKill(WithoutCancel(ctx), *c);
  }
  std::lock_guard<std::mutex> lock(mu_);
  *status = c->status;
  return err;
}

void FakeRuntime::StopContainer(const std::string& name) {
  if (Container* c = Find(name)) Terminate(*c);
}

Error FakeRuntime::RemoveContainer(const Context& ctx, const std::string& name,
                                   ExitStatus* status) {
  Container* c = Find(name);
  if (c == nullptr) return Error();
  Record("remove " + name);
  if (!c->ended.Fired()) {
    Terminate(*c);
    AwaitEndOrKill(ctx, *c);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (status != nullptr) *status = c->status;
  return Error();
}

void FakeRuntime::KillNow() {
  Record("kill-now");
  kill_now_.Fire();
}

Error FakeRuntime::RemoveBuild(const Context& ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [name, c] : started_) {
    End(*c, 128 + SIGKILL, SIGKILL);
    if (!c->output.Closed()) c->output.Close();  // what held the output dies with the build
  }
  events_.push_back("remove-build");
  return Error();
}

}  // namespace tether::worker::runtime
