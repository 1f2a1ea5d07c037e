// SPDX-License-Identifier: Apache-2.0
// --plot: draws a bench JSON file with tools/plot_bench.py (Python and matplotlib).
#pragma once

#include <string>

namespace xpose::cli {

// An interpreter that can import matplotlib: $XPOSE_PYTHON when it is set (and then only it),
// else python3 on the PATH or /usr/bin/python3. False with the reason when there is none or the
// script is missing.
bool find_plot_tools(std::string* python, std::string* script, std::string* error);

// Runs `python script json_path -o png_path`; false with one line on failure (the script's last
// line on stderr, not its traceback).
bool draw_plot(const std::string& python, const std::string& script, const std::string& json_path,
               const std::string& png_path, std::string* error);

}  // namespace xpose::cli
