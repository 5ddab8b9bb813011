// ReadInputFile refuses what is not a regular file without blocking, caps the
// size, and names the file in every error.
#include "tether/io/read_file.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace tether::io {
namespace {

namespace fs = std::filesystem;

class ReadInputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "tether-io-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    unsetenv(kMaxInputBytesEnv);
  }
  void TearDown() override {
    unsetenv(kMaxInputBytesEnv);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  fs::path dir_;
};

TEST_F(ReadInputFileTest, ReadsARegularFileWhole) {
  std::string text(200 * 1024, 'x');
  text += std::string("\0end", 4);
  std::string path = Write("big", text);
  std::string got = "stale";
  EXPECT_EQ(ReadInputFile(path, &got), std::nullopt);
  EXPECT_EQ(got, text);
}

TEST_F(ReadInputFileTest, ReadsAnEmptyFile) {
  std::string got = "stale";
  EXPECT_EQ(ReadInputFile(Write("empty", ""), &got), std::nullopt);
  EXPECT_EQ(got, "");
}

TEST_F(ReadInputFileTest, MissingFileIsNamed) {
  std::string path = (dir_ / "absent.json").string();
  std::string got;
  std::optional<ReadError> err = ReadInputFile(path, &got);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->file, path);
  EXPECT_EQ(err->message, "no such file");
  EXPECT_EQ(err->ToString(), path + ": error: no such file");
}

TEST_F(ReadInputFileTest, DirectoryIsRefused) {
  std::string got;
  std::optional<ReadError> err = ReadInputFile(dir_.string(), &got);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "is a directory, not a regular file");
}

// Would block forever in open() or read() if the FIFO were opened blocking:
// no one ever writes to it.
TEST_F(ReadInputFileTest, FifoIsRefusedWithoutBlocking) {
  std::string path = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  std::string got;
  std::optional<ReadError> err = ReadInputFile(path, &got);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "is a FIFO (named pipe), not a regular file");
}

TEST_F(ReadInputFileTest, DevicesAreRefused) {
  std::string got;
  std::optional<ReadError> zero = ReadInputFile("/dev/zero", &got);
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->message, "is a character device, not a regular file");
  EXPECT_TRUE(ReadInputFile("/dev/null", &got));
}

TEST_F(ReadInputFileTest, SocketIsRefused) {
  std::string path = (dir_ / "sock").string();
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  std::string got;
  std::optional<ReadError> err = ReadInputFile(path, &got);
  close(fd);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "is a socket, not a regular file");
}

TEST_F(ReadInputFileTest, UnreadableFileSaysWhy) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads everything";
  std::string path = Write("secret", "x");
  chmod(path.c_str(), 0);
  std::string got;
  std::optional<ReadError> err = ReadInputFile(path, &got);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "cannot open: Permission denied");
}

TEST_F(ReadInputFileTest, CapFromOptions) {
  std::string path = Write("ten", "0123456789");
  std::string got;
  EXPECT_EQ(ReadInputFile(path, &got, ReadOptions{10}), std::nullopt);
  EXPECT_EQ(got, "0123456789");
  std::optional<ReadError> err = ReadInputFile(path, &got, ReadOptions{9});
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message,
            "is larger than the input limit of 9 bytes (set TETHER_MAX_INPUT_BYTES to raise it)");
  EXPECT_EQ(got, "");
}

TEST_F(ReadInputFileTest, CapFromEnvironment) {
  EXPECT_EQ(MaxInputBytes(), kDefaultMaxInputBytes);
  std::string path = Write("2k", std::string(2048, 'y'));
  std::string got;
  setenv(kMaxInputBytesEnv, "2047", 1);
  EXPECT_EQ(MaxInputBytes(), 2047u);
  EXPECT_TRUE(ReadInputFile(path, &got));
  setenv(kMaxInputBytesEnv, "2KiB", 1);
  EXPECT_EQ(MaxInputBytes(), 2048u);
  EXPECT_EQ(ReadInputFile(path, &got), std::nullopt);
  setenv(kMaxInputBytesEnv, "1MiB", 1);
  EXPECT_EQ(MaxInputBytes(), std::uint64_t{1} << 20);
  setenv(kMaxInputBytesEnv, "4GiB", 1);
  EXPECT_EQ(MaxInputBytes(), std::uint64_t{4} << 30);
}

// A typo in the override is an error, never "no limit" or the default.
TEST_F(ReadInputFileTest, InvalidEnvironmentCapIsAnError) {
  std::string path = Write("f", "x");
  std::string got;
  for (const char* bad : {"lots", "1.5MiB", "-1", "0", "12MB", "99999999999999999999",
                          "18014398509481984GiB"}) {
    setenv(kMaxInputBytesEnv, bad, 1);
    std::optional<ReadError> err = ReadInputFile(path, &got);
    ASSERT_TRUE(err) << bad;
    EXPECT_NE(err->message.find("is not a size in bytes"), std::string::npos) << err->message;
    EXPECT_EQ(MaxInputBytes(), kDefaultMaxInputBytes) << bad;
  }
}

TEST(PositionAtTest, CountsLinesAndColumns) {
  std::string_view text = "ab\ncd\n\nx";
  EXPECT_EQ(PositionAt(text, 0).line, 1u);
  EXPECT_EQ(PositionAt(text, 0).column, 1u);
  EXPECT_EQ(PositionAt(text, 2).column, 3u);  // the '\n' itself
  EXPECT_EQ(PositionAt(text, 3).line, 2u);
  EXPECT_EQ(PositionAt(text, 4).column, 2u);
  EXPECT_EQ(PositionAt(text, 7).line, 4u);
  EXPECT_EQ(PositionAt(text, 7).column, 1u);
  EXPECT_EQ(PositionAt(text, 100).line, 4u);  // clamped to the end
  EXPECT_EQ(PositionAt(text, 100).column, 2u);
}

TEST(FindJsonTooDeepTest, FindsTheFirstLevelTooDeep) {
  EXPECT_EQ(FindJsonTooDeep(R"({"a": [1, {"b": []}]})", 4), std::nullopt);
  EXPECT_EQ(FindJsonTooDeep(R"({"a": [1, {"b": [[]]}]})", 4), std::optional<std::size_t>(17));
  // Brackets inside strings, escaped quotes included, do not count.
  EXPECT_EQ(FindJsonTooDeep(R"(["[[[[\"[[[", "\\"])", 1), std::nullopt);
  // JSON Lines: each line closes what it opens.
  EXPECT_EQ(FindJsonTooDeep("[[1]]\n[[2]]\n", 2), std::nullopt);
  std::string deep(100000, '[');
  EXPECT_EQ(FindJsonTooDeep(deep), std::optional<std::size_t>(kMaxJsonDepth));
}

}  // namespace
}  // namespace tether::io
