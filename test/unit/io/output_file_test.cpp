// CheckOutputFile says whether a file can be written before any work is done,
// and creates, truncates and leaves nothing.
#include "tether/io/output_file.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tether::io {
namespace {

namespace fs = std::filesystem;

class CheckOutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "tether-out-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  // The names in the test's directory, sorted.
  std::string Listing() const {
    std::string names;
    std::vector<std::string> all;
    for (const auto& e : fs::directory_iterator(dir_)) all.push_back(e.path().filename());
    std::sort(all.begin(), all.end());
    for (const auto& n : all) names += n + " ";
    return names;
  }
  fs::path dir_;
};

TEST_F(CheckOutputFileTest, NewFileInAWritableDirectoryIsFineAndNotCreated) {
  EXPECT_EQ(CheckOutputFile(Path("r.txt")), std::nullopt);
  EXPECT_EQ(Listing(), "");  // neither the file nor the probe
}

TEST_F(CheckOutputFileTest, ExistingFileIsNotTruncated) {
  std::ofstream(Path("r.txt")) << "keep";
  EXPECT_EQ(CheckOutputFile(Path("r.txt")), std::nullopt);
  std::ifstream in(Path("r.txt"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "keep");
}

TEST_F(CheckOutputFileTest, MissingDirectoryIsNamedWithTheReason) {
  std::optional<OutputError> err = CheckOutputFile(Path("nodir/r.txt"));
  ASSERT_TRUE(err);
  EXPECT_EQ(err->kind, OutputError::Kind::kCannotCreate);
  EXPECT_EQ(err->message, "cannot create it in " + Path("nodir") + ": No such file or directory");
  EXPECT_EQ(err->ToString(), Path("nodir/r.txt") + ": error: " + err->message);
  EXPECT_EQ(Listing(), "");
}

TEST_F(CheckOutputFileTest, ADirectoryIsRefused) {
  fs::create_directory(Path("d"));
  std::optional<OutputError> err = CheckOutputFile(Path("d"));
  ASSERT_TRUE(err);
  EXPECT_EQ(err->kind, OutputError::Kind::kDirectory);
  EXPECT_EQ(err->message, "is a directory");
}

TEST_F(CheckOutputFileTest, AFileWhereTheDirectoryShouldBe) {
  std::ofstream(Path("f")) << "";
  std::optional<OutputError> err = CheckOutputFile(Path("f/r.txt"));
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "cannot create it in " + Path("f") + ": Not a directory");
}

TEST_F(CheckOutputFileTest, AFifoIsFineUnlessRegularFilesOnly) {
  ASSERT_EQ(mkfifo(Path("p").c_str(), 0600), 0);
  EXPECT_EQ(CheckOutputFile(Path("p")), std::nullopt);  // not opened: no reader, no block
  std::optional<OutputError> err = CheckOutputFile(Path("p"), {.regular_only = true});
  ASSERT_TRUE(err);
  EXPECT_EQ(err->kind, OutputError::Kind::kNotRegular);
  EXPECT_EQ(err->message, "is a FIFO (named pipe), not a regular file");
  EXPECT_EQ(CheckOutputFile("/dev/null"), std::nullopt);
}

TEST_F(CheckOutputFileTest, ADirectoryThatTakesNoNewFileEvenForRoot) {
  // access(2) says yes to root on /proc; creating a file there fails.
  std::optional<OutputError> err = CheckOutputFile("/proc/tether-r.txt");
  ASSERT_TRUE(err);
  EXPECT_EQ(err->kind, OutputError::Kind::kCannotCreate);
  EXPECT_EQ(err->message.rfind("cannot create it in /proc: ", 0), 0u) << err->message;
}

TEST_F(CheckOutputFileTest, ABareNameIsInTheCurrentDirectory) {
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  EXPECT_EQ(CheckOutputFile("r.txt"), std::nullopt);
  fs::current_path(cwd);
  EXPECT_EQ(Listing(), "");
}

}  // namespace
}  // namespace tether::io
