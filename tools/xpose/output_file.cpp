// SPDX-License-Identifier: Apache-2.0
#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace xpose::cli {
namespace {

// Files to remove when a signal ends the process. A handler may only use async-signal-safe
// calls, so the paths live in fixed buffers, each published by its in-use flag after it is
// written.
constexpr int kRemovalSlots = 8;
char g_removal_paths[kRemovalSlots][PATH_MAX];
volatile std::sig_atomic_t g_removal_in_use[kRemovalSlots];

extern "C" void remove_files_and_reraise(int signal_number) {
  for (int i = 0; i < kRemovalSlots; ++i)
    if (g_removal_in_use[i]) unlink(g_removal_paths[i]);
  // The default action then ends the process as the signal would have (status 128 + signal).
  std::signal(signal_number, SIG_DFL);
  raise(signal_number);
}

// Takes over the signals that would end the process by default; one that is ignored (a shell
// starts a background job with SIGINT ignored) or handled by someone else is left alone.
void install_signal_handlers() {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = remove_files_and_reraise;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    sigaddset(&action.sa_mask, SIGHUP);
    sigaction(signal_number, &action, nullptr);
  }
}

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The file a path names, through symbolic links; the path itself when it does not exist yet.
std::string resolved(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

}  // namespace

bool check_output_path(const std::string& path, const std::string& option, std::string* error) {
  const auto fail = [&](const std::string& what) {
    *error = option + ": " + what;
    return false;
  };
  if (path.empty()) return fail("the file name is empty");
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return fail(quoted(path) + " is a folder, not a file");
    if (access(path.c_str(), W_OK) != 0)
      return fail(quoted(path) + " is not writable (" + std::strerror(errno) + ")");
    if (!S_ISREG(info.st_mode)) return true;  // a device or a pipe, written directly
  } else if (errno != ENOENT && errno != ENOTDIR) {
    return fail("cannot use " + quoted(path) + " (" + std::strerror(errno) + ")");
  }
  const std::string folder = folder_of(resolved(path));
  if (stat(folder.c_str(), &info) != 0) {
    if (errno == ENOENT) return fail("the folder " + quoted(folder) + " does not exist");
    if (errno == ENOTDIR) return fail(quoted(folder) + " is not a folder");
    return fail("cannot use the folder " + quoted(folder) + " (" + std::strerror(errno) + ")");
  }
  if (!S_ISDIR(info.st_mode)) return fail(quoted(folder) + " is not a folder");
  if (access(folder.c_str(), W_OK | X_OK) != 0)
    return fail("the folder " + quoted(folder) + " is not writable (" + std::strerror(errno) + ")");
  return true;
}

RemovalGuard::~RemovalGuard() {
  if (path_.empty()) return;
  if (slot_ >= 0) g_removal_in_use[slot_] = 0;
  unlink(path_.c_str());
}

void RemovalGuard::watch(const std::string& path) {
  release();
  install_signal_handlers();
  path_ = path;
  if (path.size() >= PATH_MAX) return;  // still removed by the destructor, not on a signal
  for (int i = 0; i < kRemovalSlots; ++i) {
    if (g_removal_in_use[i]) continue;
    std::memcpy(g_removal_paths[i], path.c_str(), path.size() + 1);
    g_removal_in_use[i] = 1;
    slot_ = i;
    return;
  }
}

void RemovalGuard::release() {
  if (slot_ >= 0) g_removal_in_use[slot_] = 0;
  slot_ = -1;
  path_.clear();
}

OutputFile::~OutputFile() {
  // Closed before removal_ deletes an uncommitted temporary file.
  if (stream_.is_open()) stream_.close();
}

bool OutputFile::open(const std::string& path, std::string* error) {
  path_ = path;
  target_ = resolved(path);
  struct stat info {};
  const bool exists = stat(target_.c_str(), &info) == 0;
  if (exists && !S_ISREG(info.st_mode)) {
    stream_.open(target_);
    if (!stream_) {
      *error = "--output: cannot write " + quoted(path) + " (" + std::strerror(errno) + ")";
      return false;
    }
    return true;
  }
  std::string pattern = folder_of(target_) + "/." + name_of(target_) + ".xpose-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0) {
    *error = "--output: cannot create a file in the folder " + quoted(folder_of(target_)) + " (" +
             std::strerror(errno) + ")";
    return false;
  }
  temporary_ = pattern;
  removal_.watch(temporary_);
  // mkstemp creates the file for its owner only; the report gets the mode a new file would get
  // (or the mode of the file it replaces).
  mode_t mode = 0;
  if (exists) {
    mode = info.st_mode & 07777;
  } else {
    const mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  fchmod(fd, mode);
  close(fd);
  stream_.open(temporary_, std::ios::out | std::ios::trunc);
  if (!stream_) {
    *error = "--output: cannot write " + quoted(temporary_) + " (" + std::strerror(errno) + ")";
    return false;
  }
  return true;
}

bool OutputFile::commit(std::string* error) {
  stream_.flush();
  const bool written = static_cast<bool>(stream_);
  stream_.close();
  if (!written || stream_.fail()) {
    *error = "--output: writing " + quoted(path_) + " failed";
    return false;
  }
  if (temporary_.empty()) return true;
  if (std::rename(temporary_.c_str(), target_.c_str()) != 0) {
    *error = "--output: cannot replace " + quoted(path_) + " (" + std::strerror(errno) + ")";
    return false;
  }
  removal_.release();
  return true;
}

}  // namespace xpose::cli
