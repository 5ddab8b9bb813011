// LoadTrace: every record kind, out-of-order lines, truncation, and errors
// that name path:line:col.
#include <gtest/gtest.h>

#include "tether/trace/model.hpp"
#include "trace_files.hpp"

namespace tether::trace {
namespace {

using testing::Header;
using testing::Lines;
using testing::TempFile;

TEST(LoadTrace, ReadsEveryRecordKind) {
  TempFile f("t.jsonl");
  f.Write(Lines({
      Header(),
      R"({"ev":"scope_begin","id":1,"ctx":2,"name":"build 1","file":"a.cpp","line":10,"func":"Exec","t":1100})",
      R"({"ev":"ctx","id":2,"parent":0,"kind":"scope","scope":1,"file":"a.cpp","line":10,"func":"Exec","t":1100})",
      R"({"ev":"group","id":4,"ctx":5,"file":"a.cpp","line":20,"func":"Step","t":1150})",
      // The end arrives before the spawn: lines are not in time order.
      R"({"ev":"end","task":3,"result":"canceled","t":1500})",
      R"({"ev":"spawn","task":3,"ctx":5,"group":4,"scope":1,"detached_from":0,"parent":9,"name":"stream","file":"a.cpp","line":21,"func":"Step","t":1200})",
      R"({"ev":"start","task":3,"tid":77,"t":1210})",
      R"({"ev":"wait_begin","group":4,"file":"a.cpp","line":30,"func":"Step","t":1300})",
      R"({"ev":"wait_end","group":4,"result":"ok","t":1400})",
      R"({"ev":"ctx_done","id":2,"err":"canceled","t":1450})",
      R"({"ev":"chan_close","id":99,"file":"a.cpp","line":40,"func":"Step","t":1460})",
      R"({"ev":"lost","count":5,"t":1470})",
      R"({"ev":"scope_end","id":1,"t":1600})",
      R"({"ev":"exit","status":0,"t":2000})",
  }));
  Trace t;
  ASSERT_TRUE(LoadTrace(f.path(), &t).ok());
  EXPECT_EQ(t.version, 1);
  EXPECT_EQ(t.pid, 42);
  EXPECT_EQ(t.program, "demo");
  EXPECT_FALSE(t.truncated);
  EXPECT_EQ(t.exit_status, 0);
  EXPECT_EQ(t.end_ns, 2000);
  EXPECT_EQ(t.lost_events, 5u);
  ASSERT_EQ(t.tasks.count(3), 1u);
  const TaskRecord& task = t.tasks.at(3);
  EXPECT_EQ(task.name, "stream");
  EXPECT_EQ(task.site.file, "a.cpp");
  EXPECT_EQ(task.site.line, 21);
  EXPECT_EQ(task.spawn_ns, 1200);
  EXPECT_EQ(task.start_ns, 1210);
  EXPECT_EQ(task.end_ns, 1500);
  EXPECT_EQ(task.result, "canceled");
  EXPECT_EQ(task.thread, 77u);
  EXPECT_EQ(task.parent_task, 9u);
  EXPECT_EQ(t.groups.at(4).wait_site.line, 30);
  EXPECT_EQ(t.groups.at(4).wait_end_ns, 1400);
  EXPECT_EQ(t.contexts.at(2).done_err, "canceled");
  EXPECT_EQ(t.scopes.at(1).name, "build 1");
  EXPECT_EQ(t.scopes.at(1).end_ns, 1600);
  EXPECT_EQ(t.closed_channels, std::vector<std::uint64_t>{99});
}

TEST(LoadTrace, FileCutMidLineLoadsAsTruncated) {
  TempFile f("t.jsonl");
  f.Write(Lines({Header(),
                 R"({"ev":"spawn","task":3,"ctx":0,"group":0,"scope":0,"detached_from":0,"name":"x","file":"a.cpp","line":1,"func":"f","t":1200})"}) +
          R"({"ev":"end","task":3,"res)");
  Trace t;
  ASSERT_TRUE(LoadTrace(f.path(), &t).ok());
  EXPECT_TRUE(t.truncated);
  EXPECT_EQ(t.tasks.count(3), 1u);
  EXPECT_FALSE(t.tasks.at(3).end_ns.has_value());
}

TEST(LoadTrace, NoExitRecordIsTruncated) {
  TempFile f("t.jsonl");
  f.Write(Lines({Header()}));
  Trace t;
  ASSERT_TRUE(LoadTrace(f.path(), &t).ok());
  EXPECT_TRUE(t.truncated);
}

TEST(LoadTrace, MalformedLineNamesPathLineAndColumn) {
  TempFile f("t.jsonl");
  f.Write(Lines({Header(), R"({"ev":"scope_end","id":1 "t":5})", R"({"ev":"exit","status":0,"t":9})"}));
  Trace t;
  Error err = LoadTrace(f.path(), &t);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(err.message().rfind(f.path() + ":2:28: error: malformed record", 0), 0u) << err.message();
}

TEST(LoadTrace, MissingOrMistypedFieldIsAnError) {
  TempFile f("t.jsonl");
  f.Write(Lines({Header(), R"({"ev":"end","task":3,"t":5})"}));
  Trace t;
  Error err = LoadTrace(f.path(), &t);
  EXPECT_EQ(err.message(), f.path() + ":2:1: error: missing field 'result'");
  f.Write(Lines({Header(), R"({"ev":"end","task":"three","result":"ok","t":5})"}));
  err = LoadTrace(f.path(), &t);
  EXPECT_EQ(err.message(), f.path() + ":2:1: error: field 'task' must be an unsigned integer");
  f.Write(Lines({Header(), R"([1,2,3])"}));
  err = LoadTrace(f.path(), &t);
  EXPECT_EQ(err.message(), f.path() + ":2:1: error: record is not a JSON object");
}

TEST(LoadTrace, UnknownEventsAndFieldsAreIgnored) {
  TempFile f("t.jsonl");
  f.Write(Lines({Header(), R"({"ev":"gc_pause","ms":3,"t":5})",
                 R"({"ev":"scope_end","id":1,"t":6,"extra":[1,2]})", R"({"ev":"exit","status":0,"t":9})"}));
  Trace t;
  ASSERT_TRUE(LoadTrace(f.path(), &t).ok());
  EXPECT_EQ(t.scopes.at(1).end_ns, 6);
}

// `tether trace` writes the threads' records, then the program's, into one
// file: two parts of one process, each with its header and exit record.
TEST(LoadTrace, TwoPartsOfOneProcessAreOneTrace) {
  TempFile f("t.jsonl");
  f.Write(Lines({R"({"ev":"header","version":1,"pid":42,"program":"threads","t":1200})",
                 R"({"ev":"spawn","task":281474976710656,"ctx":0,"group":0,"scope":0,"detached_from":0,"name":"","file":"","line":0,"func":"","kind":"thread","t":1300})",
                 R"({"ev":"exit","status":0,"t":5100})", Header(),
                 R"({"ev":"scope_end","id":1,"tid":42,"t":2000})",
                 R"({"ev":"exit","status":3,"t":5000})"}));
  Trace t;
  Error err = LoadTrace(f.path(), &t);
  ASSERT_TRUE(err.ok()) << err.ToString();
  EXPECT_EQ(t.program, "threads");
  EXPECT_EQ(t.start_ns, 1000);
  EXPECT_EQ(t.end_ns, 5100);
  EXPECT_EQ(t.exit_status, 0);
  EXPECT_EQ(t.tasks.size(), 1u);
  EXPECT_EQ(t.scopes.at(1).ended_on_thread, 42u);
  f.Write(Lines({Header(), R"({"ev":"header","version":1,"pid":43,"program":"x","t":1})"}));
  EXPECT_EQ(LoadTrace(f.path(), &t).message(),
            f.path() + ":2:1: error: a second trace header, of another process (pid 43, the "
                       "first was 42)");
}

TEST(LoadTrace, RejectsMisplacedChildParts) {
  TempFile f("t.jsonl");
  Trace t;
  const std::string child = R"({"ev":"header","version":1,"pid":7,"ppid":42,"program":"c","t":2})";
  f.Write(Lines({Header(), child, child}));
  EXPECT_EQ(LoadTrace(f.path(), &t).message(),
            f.path() + ":3:1: error: a second trace header of process 7");
  f.Write(Lines({Header(), R"({"ev":"header","version":1,"pid":0,"ppid":42,"t":2})"}));
  EXPECT_EQ(LoadTrace(f.path(), &t).message(),
            f.path() + ":2:1: error: a child process's header with pid 0 (a pid is from 1 to 2^22)");
  f.Write(Lines({Header(), child, Header()}));
  EXPECT_EQ(LoadTrace(f.path(), &t).message(),
            f.path() + ":3:1: error: a part of the program after a child process's part (the "
                       "program's parts come first)");
}

TEST(LoadTrace, RejectsFilesThatAreNotTraces) {
  TempFile f("t.jsonl");
  Trace t;
  EXPECT_EQ(LoadTrace(f.path(), &t).code(), ErrorCode::kIo);  // does not exist
  f.Write("");
  EXPECT_EQ(LoadTrace(f.path(), &t).message(),
            f.path() + ":1:1: error: empty trace file (the program wrote no trace header)");
  f.Write(Lines({R"({"ev":"exit","status":0,"t":9})"}));
  EXPECT_EQ(LoadTrace(f.path(), &t).message(),
            f.path() + ":1:1: error: first record is not a trace header (not a tether trace?)");
  f.Write(Lines({R"({"ev":"header","version":2,"pid":1,"program":"x","t":1})"}));
  EXPECT_EQ(LoadTrace(f.path(), &t).message(),
            f.path() + ":1:1: error: unsupported trace version 2 (this tether reads version 1)");
}

}  // namespace
}  // namespace tether::trace
