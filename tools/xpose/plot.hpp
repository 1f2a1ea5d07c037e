// --plot: draws a bench JSON file with tools/plot_bench.py (Python and matplotlib).
#pragma once

#include <string>

namespace xpose::cli {

// The first interpreter that can import matplotlib: $XPOSE_PYTHON, python3 on the PATH,
// /usr/bin/python3. False with the reason when there is none or the script is missing.
bool find_plot_tools(std::string* python, std::string* script, std::string* error);

// Runs `python script json_path -o png_path`; false with the reason on failure.
bool draw_plot(const std::string& python, const std::string& script, const std::string& json_path,
               const std::string& png_path, std::string* error);

}  // namespace xpose::cli
