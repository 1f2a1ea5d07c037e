// SPDX-License-Identifier: Apache-2.0
#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace xpose::cli {
namespace {

constexpr double kQuietSeconds = 3.0;  // a log gets progress lines only after this long

}  // namespace

Progress::Progress(int total_steps, bool enabled)
    : total_(total_steps),
      enabled_(enabled),
      terminal_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { clear(); }

void Progress::step(const std::string& what) {
  ++done_;
  if (!enabled_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (terminal_) {
    std::fprintf(stderr, "\r\033[K[%d/%d] %s", done_, total_, what.c_str());
    line_shown_ = true;
  } else if (elapsed > kQuietSeconds) {
    std::fprintf(stderr, "[%d/%d] %s\n", done_, total_, what.c_str());
  }
  std::fflush(stderr);
}

void Progress::clear() {
  if (!line_shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  line_shown_ = false;
}

}  // namespace xpose::cli
