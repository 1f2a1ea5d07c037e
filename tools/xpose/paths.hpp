// SPDX-License-Identifier: Apache-2.0
// Finding the files the CLI ships with (suites, the plot script) from wherever it runs: a build
// tree inside the checkout (build/tools/xpose/xpose), an install (bin/xpose next to
// share/xpose/), or, last, the source directory recorded at build time.
#pragma once

#include <string>

namespace xpose::cli {

// The suite at `name_or_path`: an existing file as given, else a suite name ("seeds",
// "shapes2d.txt") looked up in bench/suites/. "" when there is none.
std::string find_suite(const std::string& name_or_path);
// find_suite for --suite: false with one line that says why there is no suite to read (no such
// file or suite name, a folder, not readable).
bool locate_suite(const std::string& name_or_path, std::string* path, std::string* error);

// tools/plot_bench.py (or share/xpose/plot_bench.py); "" when it cannot be found.
std::string find_plot_script();

bool is_regular_file(const std::string& path);

}  // namespace xpose::cli
