// SPDX-License-Identifier: Apache-2.0
// The files the bench writes (--output, --plot, the plot's JSON): checked before anything runs,
// and written whole or not at all.
#pragma once

#include <fstream>
#include <ostream>
#include <string>

namespace xpose::cli {

// Whether `path` can be created or replaced: its folder exists and is writable, and the path is
// not a folder. False with one line that names `option` and what is wrong.
bool check_output_path(const std::string& path, const std::string& option, std::string* error);

// Removes the file it watches when destroyed, or when the process gets SIGINT, SIGTERM or
// SIGHUP first (a signal whose disposition was "ignore" stays ignored), unless release()d.
// Keeps an interrupted run from leaving partial or temporary files behind.
class RemovalGuard {
 public:
  RemovalGuard() = default;
  RemovalGuard(const RemovalGuard&) = delete;
  RemovalGuard& operator=(const RemovalGuard&) = delete;
  ~RemovalGuard();

  // Guards `path` (and no longer the one guarded before, which is kept).
  void watch(const std::string& path);
  // Keeps the file.
  void release();

 private:
  std::string path_;
  int slot_ = -1;  // in the signal handler's table; -1 when it is full
};

// A report file that appears whole or not at all. The report is written to a temporary file in
// the destination's folder (so that the rename stays on one file system) and renamed over the
// destination by commit(); an OutputFile destroyed without commit (a failed run) or a process
// interrupted by a signal removes the temporary file and leaves an earlier file of that name as
// it was. A destination that exists and is not a regular file (/dev/stdout, a pipe) is written
// directly.
class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // False with one line naming `path` when the temporary file cannot be created.
  bool open(const std::string& path, std::string* error);
  std::ostream& stream() { return stream_; }
  // Flushes, closes and renames; false with the reason on failure (the temporary file is then
  // removed).
  bool commit(std::string* error);

 private:
  std::string path_;       // as given, for messages
  std::string target_;     // the destination, symbolic links resolved
  std::string temporary_;  // "" when writing directly
  std::ofstream stream_;
  RemovalGuard removal_;
};

}  // namespace xpose::cli
