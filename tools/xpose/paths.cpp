// SPDX-License-Identifier: Apache-2.0
#include "paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "build_info.hpp"

namespace xpose::cli {
namespace {

std::string executable_dir() {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return ".";
  const std::string executable(path, static_cast<size_t>(length));
  const auto slash = executable.rfind('/');
  return slash == std::string::npos ? "." : executable.substr(0, slash);
}

// Where a file at `in_checkout` (relative to a source tree) or `in_install` (relative to
// share/xpose) may be, most specific first: the checkout around a build directory
// (<checkout>/<build>/tools/xpose/xpose), an install prefix, the source tree of this build.
std::vector<std::string> candidates(const std::string& in_checkout, const std::string& in_install) {
  const std::string here = executable_dir();
  return {here + "/../../../" + in_checkout, here + "/../share/xpose/" + in_install,
          std::string(source_dir()) + "/" + in_checkout};
}

// "/a/b/../c" -> "/a/c" for messages and reports; the path itself when it cannot be resolved.
std::string canonical(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : path;
}

}  // namespace

bool is_regular_file(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string find_suite(const std::string& name_or_path) {
  if (is_regular_file(name_or_path)) return name_or_path;
  if (name_or_path.find('/') != std::string::npos) return "";
  for (const std::string& name : {name_or_path, name_or_path + ".txt"})
    for (const std::string& path : candidates("bench/suites/" + name, "suites/" + name))
      if (is_regular_file(path)) return canonical(path);
  return "";
}

bool locate_suite(const std::string& name_or_path, std::string* path, std::string* error) {
  const std::string quoted = "'" + name_or_path + "'";
  struct stat info {};
  if (stat(name_or_path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      *error = "--suite: " + quoted + " is a folder, not a suite file";
      return false;
    }
    if (access(name_or_path.c_str(), R_OK) != 0) {
      *error = "--suite: cannot read " + quoted + " (" + std::strerror(errno) + ")";
      return false;
    }
    *path = name_or_path;  // a regular file, or a device or pipe (<(...)) read as one
    return true;
  }
  if (errno != ENOENT) {
    *error = "--suite: cannot use " + quoted + " (" + std::strerror(errno) + ")";
    return false;
  }
  *path = find_suite(name_or_path);
  if (!path->empty()) return true;
  *error = name_or_path.find('/') != std::string::npos
               ? "--suite: no such file: " + quoted
               : "--suite: no such file or suite: " + quoted + " (suites are the files of bench/suites/)";
  return false;
}

std::string find_plot_script() {
  for (const std::string& path : candidates("tools/plot_bench.py", "plot_bench.py"))
    if (is_regular_file(path)) return canonical(path);
  return "";
}

}  // namespace xpose::cli
