// Callees for context-not-forwarded.cpp, in their own translation unit: the
// transitive form needs facts from every TU before it can decide.
#include <tether/context.hpp>

void Use(const tether::Context& ctx);

void Upload() { Use(tether::Background()); }  // takes no context, creates a root
void Finish() { Upload(); }                   // reaches one (depth 2)
void Level3() { Finish(); }                   // depth 3
void Level4() { Level3(); }                   // depth 4: beyond the default cap

void Deliberate() {
  // tether:detached(the final status must be recorded even after the timeout)
  Use(tether::Background());
}
void Pure() {}

// Holds its context in a member and makes a root anyway: it answers for
// that root itself (tether-detached-context); its callers are not wrong.
class Uploader {
 public:
  void Flush();
  tether::Context Session();

 private:
  tether::Context ctx_;
};
void Uploader::Flush() { Use(tether::Background()); }
// A factory that takes no context: what it returns is a root.
tether::Context NewBuildContext() { return tether::WithoutCancel(tether::Background()); }
// A factory that is given a context: its callers' roots are their own.
tether::Context WithBuildId(const tether::Context& parent, int id);
// Gives a root to a factory.
void Reset(int id) { Use(WithBuildId(tether::TODO(), id)); }
// A getter that returns the member context creates nothing.
tether::Context Uploader::Session() { return ctx_; }
void UsesFactory() { Use(NewBuildContext()); }

// A class template's member, defined and instantiated (twice) here only: the
// caller in the other TU names an instantiation; the facts are the template's.
template <class Runtime>
class Executor {
 public:
  void Cancel();
};
template <class Runtime>
void Executor<Runtime>::Cancel() { Use(tether::Background()); }
template class Executor<int>;
template class Executor<long>;

// Two roots: both are to be fixed, both are shown (Vela's exec: Pop, the build
// root). Named to sort after Upload in graph.cpp's function list.
void UploadTwice() {
  Use(tether::Background());
  Use(tether::TODO());
}
