// AtomicFile and WriteFileAtomically put a file in place whole or not at all
// and leave no temporary behind; temporary files and directories are unique
// and removed by their owner.
#include "tether/io/write_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tether/io/hash.hpp"
#include "tether/io/read_file.hpp"

namespace tether::io {
namespace {

namespace fs = std::filesystem;

class WriteFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    std::optional<std::string> dir = MakeTempDirectory(TempDirectory(), "tether-write-test-", &error);
    ASSERT_TRUE(dir) << error;
    dir_ = *dir;
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::vector<std::string> Listing() const {
    std::vector<std::string> all;
    for (const auto& e : fs::directory_iterator(dir_)) all.push_back(e.path().filename());
    std::sort(all.begin(), all.end());
    return all;
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  static unsigned Mode(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }
  std::string dir_;
};

TEST_F(WriteFileTest, WritesANewFileWithTheUmasksMode) {
  ASSERT_FALSE(WriteFileAtomically(Path("out.json"), "{}\n"));
  EXPECT_EQ(Read(Path("out.json")), "{}\n");
  EXPECT_EQ(Listing(), std::vector<std::string>{"out.json"});
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(Mode(Path("out.json")), 0666u & ~mask);
}

TEST_F(WriteFileTest, ReplacesAnExistingFileAndKeepsItsMode) {
  ASSERT_FALSE(WriteFileAtomically(Path("run.sh"), "old"));
  ASSERT_EQ(::chmod(Path("run.sh").c_str(), 0751), 0);
  ASSERT_FALSE(WriteFileAtomically(Path("run.sh"), "new text"));
  EXPECT_EQ(Read(Path("run.sh")), "new text");
  EXPECT_EQ(Mode(Path("run.sh")), 0751u);
  EXPECT_EQ(Listing(), std::vector<std::string>{"run.sh"});
}

TEST_F(WriteFileTest, AFileNotCommittedIsNeitherWrittenNorLeftBehind) {
  ASSERT_FALSE(WriteFileAtomically(Path("report.html"), "old"));
  {
    AtomicFile file;
    ASSERT_FALSE(AtomicFile::Create(Path("report.html"), &file));
    EXPECT_EQ(file.temp_path().rfind(Path("report.html.tmp."), 0), 0u) << file.temp_path();
    ASSERT_FALSE(file.Write("half of a new"));
    EXPECT_EQ(Listing().size(), 2u);
  }  // destroyed without Commit: a failed report
  EXPECT_EQ(Read(Path("report.html")), "old");
  EXPECT_EQ(Listing(), std::vector<std::string>{"report.html"});
}

TEST_F(WriteFileTest, WithoutReplaceTheFirstFileWins) {
  AtomicWriteOptions first_wins;
  first_wins.replace = false;
  first_wins.sync = true;
  ASSERT_FALSE(WriteFileAtomically(Path("done.json"), "first", first_wins));
  std::optional<WriteError> second = WriteFileAtomically(Path("done.json"), "second", first_wins);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->errnum, EEXIST);
  EXPECT_EQ(second->ToString(), Path("done.json") + ": error: File exists");
  EXPECT_EQ(Read(Path("done.json")), "first");
  EXPECT_EQ(Listing(), std::vector<std::string>{"done.json"});
}

TEST_F(WriteFileTest, TheTemporaryCanLiveInAnotherDirectory) {
  ASSERT_EQ(::mkdir(Path("tmp").c_str(), 0755), 0);
  AtomicWriteOptions options;
  options.temp_dir = Path("tmp");
  AtomicFile file;
  ASSERT_FALSE(AtomicFile::Create(Path("job"), &file, options));
  EXPECT_EQ(file.temp_path().rfind(Path("tmp/job.tmp."), 0), 0u) << file.temp_path();
  ASSERT_FALSE(file.Write("spec"));
  ASSERT_FALSE(file.Commit());
  EXPECT_EQ(Read(Path("job")), "spec");
  EXPECT_TRUE(fs::is_empty(Path("tmp")));
}

TEST_F(WriteFileTest, ErrorsNameTheFileAndTheReason) {
  std::optional<WriteError> e = WriteFileAtomically(Path("no/such/dir/out"), "x");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->file, Path("no/such/dir/out"));
  EXPECT_EQ(e->message,
            "cannot create a temporary file in " + Path("no/such/dir") + ": No such file or directory");
  ASSERT_EQ(::mkdir(Path("sub").c_str(), 0755), 0);
  e = WriteFileAtomically(Path("sub"), "x");  // a directory is not replaced by a file
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message, "cannot replace it: Is a directory");
  EXPECT_EQ(Listing(), std::vector<std::string>{"sub"});
  if (::geteuid() != 0) {  // root writes anywhere
    ASSERT_EQ(::chmod(dir_.c_str(), 0555), 0);
    e = WriteFileAtomically(Path("out"), "x");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->errnum, EACCES);
  }
}

TEST_F(WriteFileTest, ALinkStaysALinkAndADeviceIsWrittenInPlace) {
  ASSERT_FALSE(WriteFileAtomically(Path("real.cpp"), "old"));
  ASSERT_EQ(::symlink("real.cpp", Path("link.cpp").c_str()), 0);
  ASSERT_FALSE(WriteFileAtomically(Path("link.cpp"), "fixed"));
  EXPECT_TRUE(fs::is_symlink(Path("link.cpp")));
  EXPECT_EQ(Read(Path("real.cpp")), "fixed");
  EXPECT_EQ(Listing(), (std::vector<std::string>{"link.cpp", "real.cpp"}));
  // /dev/null is neither replaced nor truncated: it stays the device.
  ASSERT_FALSE(WriteFileAtomically("/dev/null", "report"));
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  ASSERT_EQ(::mkfifo(Path("pipe").c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = Read(Path("pipe")); });
  ASSERT_FALSE(WriteFileAtomically(Path("pipe"), "through a pipe"));
  reader.join();
  EXPECT_EQ(got, "through a pipe");
  EXPECT_EQ(Listing(), (std::vector<std::string>{"link.cpp", "pipe", "real.cpp"}));
}

TEST_F(WriteFileTest, TemporaryFilesAndDirectoriesAreUniqueAndRemovedByTheirOwner) {
  std::set<std::string> names;
  std::string error;
  for (int i = 0; i < 50; ++i) {
    std::optional<std::string> f = MakeTempFile(dir_, "trace-", ".jsonl", &error);
    ASSERT_TRUE(f) << error;
    EXPECT_EQ(f->substr(f->size() - 6), ".jsonl");
    EXPECT_EQ(Mode(*f), 0600u);
    names.insert(*f);
  }
  EXPECT_EQ(names.size(), 50u);
  std::optional<std::string> d = MakeTempDirectory(dir_, "work-", &error);
  ASSERT_TRUE(d) << error;
  EXPECT_EQ(Mode(*d), 0700u);
  {
    RemovedAtExit owner(*d);
    ASSERT_FALSE(WriteFileAtomically(*d + "/inside", "x"));
  }
  EXPECT_FALSE(fs::exists(*d));
  RemovedAtExit kept(*names.begin());
  EXPECT_EQ(kept.Release(), *names.begin());
  EXPECT_TRUE(fs::exists(*names.begin()));
  EXPECT_FALSE(MakeTempFile(Path("missing"), "x-", "", &error));
  EXPECT_EQ(error, "cannot create a temporary file in " + Path("missing") +
                       ": No such file or directory");
}

TEST(HashTest, Fnv1a64KeepsTheValuesStoredBaselinesHold) {
  // Computed apart from this code (Python, FNV-1a with hash.hpp's basis): a
  // change here would make every stored "tether/v1" fingerprint stale.
  EXPECT_EQ(Fnv1a64(""), 0x14650fb0739d0383ull);
  EXPECT_EQ(Fnv1a64("a"), 0x44bd8ad473cd9906ull);
  EXPECT_EQ(Fnv1a64("foobar"), 0x88fad7c0a8ff07f2ull);
}

TEST(PositionTest, LineColumnAt) {
  EXPECT_EQ(LineColumnAt("ab\ncd", 0), "1:1");
  EXPECT_EQ(LineColumnAt("ab\ncd", 4), "2:2");
  EXPECT_EQ(LineColumnAt("ab\ncd", 99), "2:3");
}

}  // namespace
}  // namespace tether::io
