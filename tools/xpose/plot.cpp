#include "plot.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <vector>

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
  std::vector<std::string> interpreters;
  if (const char* chosen = std::getenv("XPOSE_PYTHON"); chosen != nullptr && *chosen != '\0')
    interpreters.emplace_back(chosen);
  interpreters.emplace_back("python3");
  interpreters.emplace_back("/usr/bin/python3");
  for (const std::string& interpreter : interpreters) {
    if (run_quietly(shell_quoted(interpreter) + " -c 'import matplotlib'") == 0) {
      *python = interpreter;
      return true;
    }
  }
  *error = "--plot needs Python 3 with matplotlib (tried $XPOSE_PYTHON, python3, /usr/bin/python3); "
           "install it (apt-get install python3-matplotlib) or set XPOSE_PYTHON";
  return false;
}

bool draw_plot(const std::string& python, const std::string& script, const std::string& json_path,
               const std::string& png_path, std::string* error) {
  const std::string command = shell_quoted(python) + " " + shell_quoted(script) + " " +
                              shell_quoted(json_path) + " -o " + shell_quoted(png_path);
  const int status = std::system(command.c_str());
  if (status == 0) return true;
  *error = "plotting failed (" + command + " exited with status " +
           std::to_string(status == -1 ? -1 : WEXITSTATUS(status)) + ")";
  return false;
}

}  // namespace xpose::cli
