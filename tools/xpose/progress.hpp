// SPDX-License-Identifier: Apache-2.0
// The progress line on stderr ("[3/8] 8192x8192 f64 tiled_padded"). On a terminal it is one line
// rewritten in place, from the start; elsewhere (a log) plain lines, once the run has lasted a
// few seconds, so short runs stay silent. stdout is never touched.
#pragma once

#include <chrono>
#include <string>

namespace xpose::cli {

class Progress {
 public:
  Progress(int total_steps, bool enabled);
  ~Progress();

  // Starts step number (previous + 1) of the total.
  void step(const std::string& what);
  // Erases the line on a terminal, before something else is printed there.
  void clear();

 private:
  int total_ = 0;
  int done_ = 0;
  bool enabled_ = false;
  bool terminal_ = false;
  bool line_shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace xpose::cli
