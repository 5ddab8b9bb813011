// The reader's fast path for spawn/start/end lines (lib/trace/src/fast_record.cpp)
// against the JSON parser it stands in for: the same Trace from every trace
// file under test/ and from trace-probe, and the same Trace or the same error
// for writer lines bent every way the fast path must refuse (whitespace,
// escapes, UTF-8, floats, big and negative numbers, nulls, duplicate and
// missing keys).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tether/trace/model.hpp"
#include "trace_files.hpp"
#include "trace_reader.hpp"

namespace tether::trace {
namespace {

using testing::TempFile;

std::string Dump(const Trace& t) {
  std::ostringstream out;
  out << t.version << " " << t.program << " " << t.pid << " " << t.start_ns << " "
      << t.end_ns.value_or(-1) << " " << t.truncated << " " << t.tasks.size() << "\n";
  for (const auto& [id, k] : t.tasks) {
    out << id << " " << k.id << " " << k.ctx << " " << k.group << " " << k.scope << " "
        << k.detached_from << " [" << k.name << "] " << k.site.file << ":" << k.site.line << " "
        << k.site.function << " " << k.spawn_ns << " " << k.start_ns.value_or(-1) << " "
        << k.end_ns.value_or(-1) << " " << k.result << " " << k.thread << " " << k.parent_task
        << "\n";
  }
  return out.str();
}

// Loads path with and without the fast path; both must agree.
void ExpectSameLoad(const std::string& path) {
  Trace fast, parsed;
  detail::SetFastPathForTesting(true);
  Error fast_err = LoadTrace(path, &fast);
  detail::SetFastPathForTesting(false);
  Error parsed_err = LoadTrace(path, &parsed);
  detail::SetFastPathForTesting(true);
  EXPECT_EQ(fast_err.ToString(), parsed_err.ToString()) << path;
  EXPECT_EQ(Dump(fast), Dump(parsed)) << path;
}

TEST(FastRecord, SameTraceAsTheParserOnEveryTraceFile) {
  std::size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(TEST_SOURCE_DIR)) {
    const std::string p = e.path().string();
    if (e.is_regular_file() && p.size() > 6 && p.compare(p.size() - 6, 6, ".jsonl") == 0) {
      ExpectSameLoad(p);
      ++files;
    }
  }
  for (const char* mode : {"nested", "names", "stress 2000 4"}) {
    TempFile f("probe.jsonl");
    std::string cmd = "TETHER_TRACE='" + f.path() + "' " + TRACE_PROBE + " " + mode + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << mode;
    ExpectSameLoad(f.path());
    ++files;
  }
  EXPECT_GE(files, 10u);
}

TEST(FastRecord, SameTraceOrErrorAsTheParserOnBentLines) {
  const std::string spawn =
      R"({"ev":"spawn","task":5,"ctx":3,"group":4,"scope":2,"detached_from":0,"parent":0,"name":"n","file":"a.cpp","line":7,"func":"f","t":1200})";
  const std::vector<std::string> bent = {
      spawn,
      R"({"ev":"spawn", "task":5,"ctx":3,"group":4,"scope":2,"detached_from":0,"name":"n","file":"a.cpp","line":7,"t":1200})",
      R"({"ev":"spawn","task":5,"ctx":3,"group":4,"scope":2,"detached_from":0,"name":"n\"q","file":"a.cpp","line":7,"func":"f","t":1200})",
      "{\"ev\":\"spawn\",\"task\":5,\"ctx\":3,\"group\":4,\"scope\":2,\"detached_from\":0,\"name\":\"\xc3\xa9\",\"file\":\"a.cpp\",\"line\":7,\"func\":\"f\",\"t\":1200}",
      "{\"ev\":\"spawn\",\"task\":5,\"ctx\":3,\"group\":4,\"scope\":2,\"detached_from\":0,\"name\":\"\xff\",\"file\":\"a.cpp\",\"line\":7,\"func\":\"f\",\"t\":1200}",
      R"({"ev":"spawn","task":5,"ctx":3,"group":4,"scope":2,"detached_from":0,"name":null,"file":"a.cpp","line":7,"func":null,"t":1200})",
      R"({"ev":"spawn","task":5,"ctx":3,"group":4,"scope":2,"detached_from":0,"name":7,"file":"a.cpp","line":7,"t":1200})",
      R"({"ev":"spawn","task":5,"ctx":3,"group":4,"scope":2,"detached_from":0,"parent":null,"file":"a.cpp","line":7,"t":1200})",
      R"({"ev":"spawn","task":5,"ctx":-3,"group":4,"scope":2,"detached_from":0,"file":"a.cpp","line":7,"t":1200})",
      R"({"ev":"spawn","task":5,"ctx":-0,"group":4,"scope":2,"detached_from":0,"file":"a.cpp","line":-7,"t":-1200})",
      R"({"ev":"spawn","task":5,"ctx":3,"group":4,"scope":2,"detached_from":0,"file":"a.cpp","line":7.0,"t":1200})",
      R"({"ev":"spawn","task":5,"ctx":3,"group":4,"scope":2,"detached_from":0,"file":"a.cpp","line":7,"t":1e3})",
      R"({"ev":"spawn","task":99999999999999999999,"ctx":3,"group":4,"scope":2,"detached_from":0,"file":"a.cpp","line":7,"t":1200})",
      R"({"ev":"spawn","task":18446744073709551615,"ctx":3,"group":4,"scope":2,"detached_from":0,"file":"a.cpp","line":7,"t":1200})",
      R"({"ev":"spawn","task":5,"ctx":03,"group":4,"scope":2,"detached_from":0,"file":"a.cpp","line":7,"t":1200})",
      R"({"ev":"spawn","task":5,"ctx":3,"group":4,"scope":2,"detached_from":0,"file":"a.cpp","line":7,"t":1200,"t":1300})",
      R"({"ev":"spawn","task":5,"ctx":3,"group":4,"scope":2,"file":"a.cpp","line":7,"t":1200})",
      R"({"ev":"spawn","task":5,"ctx":3,"group":4,"scope":2,"detached_from":0,"line":7,"t":1200})",
      R"({"ev":"start","task":5,"tid":9,"t":1300})",
      R"({"ev":"start","task":5,"t":1300})",
      R"({"ev":"start","task":5,"tid":"9","t":1300})",
      R"({"ev":"start","task":5,"tid":9,"t":1300,"extra":[1,2]})",
      R"({"ev":"start","task":5,"tid":9,"t":1300,"extra":"x"})",
      R"({"ev":"end","task":5,"result":"ok","t":1400})",
      R"({"ev":"end","task":5,"result":"ok","t":1400} )",
      R"({"ev":"end","task":5,"result":"ok","t":1400}x)",
      R"({"ev":"end","task":5,"result":null,"t":1400})",
      R"({"ev":"end","task":5,"t":1400})",
      R"({"ev":"end","task":5,"result":"ok"})",
      R"({"ev":"end","task":true,"result":"ok","t":1400})",
      R"({"ev":"end","task":5,"result":"ok","t":1400)",
      R"({"ev":"ended","task":5,"result":"ok","t":1400})",
  };
  for (const std::string& line : bent) {
    TempFile f("bent.jsonl");
    f.Write(testing::Lines({testing::Header(), line, R"({"ev":"exit","status":0,"t":9000})"}));
    SCOPED_TRACE(line);
    ExpectSameLoad(f.path());
  }
}

}  // namespace
}  // namespace tether::trace
