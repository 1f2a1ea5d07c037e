// SPDX-License-Identifier: Apache-2.0
#include "core/error.hpp"

namespace xpose {
namespace {
thread_local std::string t_last_error;
}

namespace detail {
Status fail(Status status, const std::string& message) {
  t_last_error = message;
  return status;
}
void clear_error() { t_last_error.clear(); }
}  // namespace detail

const char* last_error_message() { return t_last_error.c_str(); }

const char* to_string(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::invalid_argument: return "invalid_argument";
    case Status::unsupported: return "unsupported";
    case Status::out_of_memory: return "out_of_memory";
    case Status::device_error: return "device_error";
    case Status::internal_error: return "internal_error";
  }
  return "unknown status";
}

}  // namespace xpose
