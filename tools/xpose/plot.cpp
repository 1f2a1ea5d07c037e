// SPDX-License-Identifier: Apache-2.0
#include "plot.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "paths.hpp"

namespace xpose::cli {
namespace {

// Quotes one shell word: 'it'\''s'.
std::string shell_quoted(const std::string& word) {
  std::string text = "'";
  for (char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

int run_quietly(const std::string& command) {
  const int status = std::system((command + " >/dev/null 2>&1").c_str());
  return status == -1 ? -1 : WEXITSTATUS(status);
}

}  // namespace

bool find_plot_tools(std::string* python, std::string* script, std::string* error) {
  *script = find_plot_script();
  if (script->empty()) {
    *error = "--plot: tools/plot_bench.py was not found next to this executable or in the source tree";
    return false;
  }
  // An interpreter named by the user is the only one tried: falling back to another would hide
  // that the chosen one lacks matplotlib.
  if (const char* chosen = std::getenv("XPOSE_PYTHON"); chosen != nullptr && *chosen != '\0') {
    if (run_quietly(shell_quoted(chosen) + " -c 'import matplotlib'") == 0) {
      *python = chosen;
      return true;
    }
    *error = std::string("--plot: XPOSE_PYTHON='") + chosen + "' cannot import matplotlib (install it there, "
             "or unset XPOSE_PYTHON to use python3)";
    return false;
  }
  for (const std::string interpreter : {"python3", "/usr/bin/python3"}) {
    if (run_quietly(shell_quoted(interpreter) + " -c 'import matplotlib'") == 0) {
      *python = interpreter;
      return true;
    }
  }
  *error = "--plot needs Python 3 with matplotlib, and neither python3 nor /usr/bin/python3 can import it; "
           "install it (apt-get install python3-matplotlib) or set XPOSE_PYTHON to an interpreter that has it";
  return false;
}

bool draw_plot(const std::string& python, const std::string& script, const std::string& json_path,
               const std::string& png_path, std::string* error) {
  // The script's stderr (a Python traceback) is kept aside; its last line says what went wrong.
  char messages[] = "/tmp/xpose-plot-XXXXXX";
  const int fd = mkstemp(messages);
  if (fd >= 0) close(fd);
  const std::string command = shell_quoted(python) + " " + shell_quoted(script) + " " +
                              shell_quoted(json_path) + " -o " + shell_quoted(png_path);
  const int status = std::system((command + (fd >= 0 ? " 2>" + shell_quoted(messages) : "")).c_str());
  std::string last_line;
  if (fd >= 0) {
    std::ifstream text(messages);
    for (std::string line; std::getline(text, line);)
      if (!line.empty()) last_line = line;
    std::remove(messages);
  }
  if (status == 0) return true;
  *error = "--plot: drawing '" + png_path + "' failed (" + script + " exited with status " +
           std::to_string(status == -1 ? -1 : WEXITSTATUS(status)) + ")" +
           (last_line.empty() ? "" : ": " + last_line);
  return false;
}

}  // namespace xpose::cli
