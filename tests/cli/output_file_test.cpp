// SPDX-License-Identifier: Apache-2.0
// The bench's report files (tools/xpose/output_file.cpp): checked before a run, written whole or
// not at all, and removed when the run fails or is interrupted. Runs in a scratch folder; needs
// no GPU.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "output_file.hpp"

namespace xpose::cli {
namespace {

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/xpose-output-file-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    folder_ = pattern;
  }
  void TearDown() override { std::system(("rm -rf '" + folder_ + "'").c_str()); }

  std::string path(const std::string& name) const { return folder_ + "/" + name; }
  // The folder's entries, sorted, hidden ones included.
  std::string entries() const {
    const std::string list = path(".list");
    std::system(("ls -A '" + folder_ + "' | grep -v '^.list$' > '" + list + "'").c_str());
    std::ifstream text(list);
    std::ostringstream all;
    all << text.rdbuf();
    unlink(list.c_str());
    return all.str();
  }
  static std::string contents(const std::string& file) {
    std::ifstream text(file);
    std::ostringstream all;
    all << text.rdbuf();
    return all.str();
  }
  static void write(const std::string& file, const std::string& text) { std::ofstream(file) << text; }

  std::string folder_;
};

TEST_F(OutputFileTest, CheckAcceptsANewFileInAWritableFolder) {
  std::string error;
  EXPECT_TRUE(check_output_path(path("new.json"), "--output", &error)) << error;
  EXPECT_EQ(entries(), "") << "checking must not create the file";
}

TEST_F(OutputFileTest, CheckNamesAMissingFolder) {
  std::string error;
  EXPECT_FALSE(check_output_path(path("missing/out.png"), "--plot", &error));
  EXPECT_EQ(error, "--plot: the folder '" + path("missing") + "' does not exist");
}

TEST_F(OutputFileTest, CheckRefusesAFolder) {
  std::string error;
  EXPECT_FALSE(check_output_path(folder_, "--output", &error));
  EXPECT_EQ(error, "--output: '" + folder_ + "' is a folder, not a file");
}

TEST_F(OutputFileTest, CheckRefusesAFileOnTheWay) {
  write(path("plain"), "x");
  std::string error;
  EXPECT_FALSE(check_output_path(path("plain/out.json"), "--output", &error));
  EXPECT_EQ(error, "--output: '" + path("plain") + "' is not a folder");
}

TEST_F(OutputFileTest, CheckRefusesAnEmptyName) {
  std::string error;
  EXPECT_FALSE(check_output_path("", "--output", &error));
  EXPECT_EQ(error, "--output: the file name is empty");
}

TEST_F(OutputFileTest, CheckAcceptsADevice) {
  std::string error;
  EXPECT_TRUE(check_output_path("/dev/null", "--output", &error)) << error;
}

TEST_F(OutputFileTest, CommitReplacesTheFileWhole) {
  write(path("out.json"), "old");
  {
    OutputFile file;
    std::string error;
    ASSERT_TRUE(file.open(path("out.json"), &error)) << error;
    file.stream() << "new";
    EXPECT_EQ(contents(path("out.json")), "old") << "the file changes only at commit";
    ASSERT_TRUE(file.commit(&error)) << error;
  }
  EXPECT_EQ(contents(path("out.json")), "new");
  EXPECT_EQ(entries(), "out.json\n") << "no temporary file is left";
}

TEST_F(OutputFileTest, ANewFileGetsTheUsualMode) {
  const mode_t mask = umask(022);
  {
    OutputFile file;
    std::string error;
    ASSERT_TRUE(file.open(path("out.csv"), &error)) << error;
    file.stream() << "a,b\n";
    ASSERT_TRUE(file.commit(&error)) << error;
  }
  umask(mask);
  struct stat info {};
  ASSERT_EQ(stat(path("out.csv").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
}

TEST_F(OutputFileTest, WithoutCommitNothingIsLeftAndTheOldFileStays) {
  write(path("kept.json"), "old");
  {
    OutputFile file;
    std::string error;
    ASSERT_TRUE(file.open(path("kept.json"), &error)) << error;
    file.stream() << "partial";
  }
  EXPECT_EQ(contents(path("kept.json")), "old");
  EXPECT_EQ(entries(), "kept.json\n");
  {
    OutputFile file;
    std::string error;
    ASSERT_TRUE(file.open(path("fresh.json"), &error)) << error;
  }
  EXPECT_EQ(entries(), "kept.json\n") << "a failed run leaves no empty file";
}

TEST_F(OutputFileTest, ASymbolicLinkKeepsPointingAtTheReplacedFile) {
  write(path("target.json"), "old");
  ASSERT_EQ(symlink(path("target.json").c_str(), path("link.json").c_str()), 0);
  {
    OutputFile file;
    std::string error;
    ASSERT_TRUE(file.open(path("link.json"), &error)) << error;
    file.stream() << "new";
    ASSERT_TRUE(file.commit(&error)) << error;
  }
  struct stat info {};
  ASSERT_EQ(lstat(path("link.json").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  EXPECT_EQ(contents(path("target.json")), "new");
}

// A child process opens a report, writes part of it and is then ended by the signal: neither the
// report nor its temporary file may be left, and the earlier report stays. The folder is listed
// by entries(), inside the test's own folder: ctest runs the two signal tests at once, and a list
// file beside the folders was shared by both (one test removed it before the other read it).
class OutputFileSignalTest : public OutputFileTest {
 protected:
  void expect_signal_leaves_nothing(int signal_number) {
    const std::string target = path("report.json");
    std::ofstream(target) << "earlier";
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // As in a foreground run: a background job may inherit the signal ignored.
      struct sigaction current {};
      sigaction(signal_number, nullptr, &current);
      if (current.sa_handler == SIG_IGN) std::signal(signal_number, SIG_DFL);
      OutputFile file;
      std::string error;
      if (!file.open(target, &error)) _exit(3);
      file.stream() << "partial" << std::flush;
      raise(signal_number);
      _exit(4);  // not reached: the signal ends the process
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), signal_number);
    std::ifstream text(target);
    std::string line;
    std::getline(text, line);
    EXPECT_EQ(line, "earlier");
    EXPECT_EQ(entries(), "report.json\n") << "a temporary file was left behind";
  }
};

TEST_F(OutputFileSignalTest, SigintRemovesTheTemporaryFile) { expect_signal_leaves_nothing(SIGINT); }
TEST_F(OutputFileSignalTest, SigtermRemovesTheTemporaryFile) { expect_signal_leaves_nothing(SIGTERM); }

TEST_F(OutputFileTest, RemovalGuardRemovesUnlessReleased) {
  write(path("a"), "x");
  write(path("b"), "x");
  {
    RemovalGuard a, b;
    a.watch(path("a"));
    b.watch(path("b"));
    b.release();
  }
  EXPECT_EQ(entries(), "b\n");
}

}  // namespace
}  // namespace xpose::cli
