// SPDX-License-Identifier: Apache-2.0
// Errors are values: a failing call records its message for the calling thread and returns the
// Status. Nothing here prints or exits.
#pragma once

#include <sstream>
#include <string>
#include <utility>

#include "xpose/xpose.hpp"

namespace xpose::detail {

// Records `message` as this thread's last error and returns `status`. Exported, although
// internal, for xpose::dist: its errors must land where last_error_message() reads them.
XPOSE_API Status fail(Status status, const std::string& message);
// Clears this thread's last error (called at the start of every successful public call).
XPOSE_API void clear_error();

// Builds a message from pieces: fail(Status::invalid_argument, message("ld_in (", ld, ") ..."))
template <typename... Parts>
std::string message(Parts&&... parts) {
  std::ostringstream out;
  (out << ... << std::forward<Parts>(parts));
  return out.str();
}

}  // namespace xpose::detail
