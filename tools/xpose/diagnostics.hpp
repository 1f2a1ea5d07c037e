// SPDX-License-Identifier: Apache-2.0
// The CLI's messages on stderr. Every one starts with the same prefix ("xpose: error: ",
// "xpose: warning: ", "xpose: note: "), whichever command or layer prints it, so that scripts and
// people can find them with one pattern. Each message is one line.
#pragma once

#include <cstdio>
#include <string>

namespace xpose::cli {

inline void print_error(const std::string& message) {
  std::fprintf(stderr, "xpose: error: %s\n", message.c_str());
}

inline void print_warning(const std::string& message) {
  std::fprintf(stderr, "xpose: warning: %s\n", message.c_str());
}

inline void print_note(const std::string& message) {
  std::fprintf(stderr, "xpose: note: %s\n", message.c_str());
}

}  // namespace xpose::cli
