// SPDX-License-Identifier: Apache-2.0
#include "argument_checks.hpp"

#include <cstdint>
#include <limits>

#include "bench_command.hpp"

namespace xpose::cli {
namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

}  // namespace

bool split_list(const std::string& option, std::vector<std::string>* values, std::string* error) {
  std::vector<std::string> items;
  for (const std::string& value : *values) {
    size_t start = 0;
    for (int item_number = 1;; ++item_number) {
      const size_t comma = value.find(',', start);
      const std::string item = trimmed(value.substr(start, comma == std::string::npos ? comma : comma - start));
      if (item.empty()) {
        *error = option + ": '" + value + "' has an empty item (item " + std::to_string(item_number) + ")";
        return false;
      }
      items.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  *values = std::move(items);
  return true;
}

bool check_bench_arguments(const CLI::App& command, BenchArguments* arguments, std::string* error) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_type_size_max() == 0 || option->count() == 0) continue;  // flags, absent options
    for (const std::string& value : option->results()) {
      if (trimmed(value).empty()) {
        *error = option->get_name() + ": the value is empty" +
                 (value.empty() ? std::string() : " ('" + value + "')");
        return false;
      }
    }
  }
  return split_list("--rows", &arguments->rows, error) && split_list("--cols", &arguments->cols, error) &&
         split_list("--dtype", &arguments->dtypes, error) && split_list("--kernels", &arguments->kernels, error) &&
         split_list("--class", &arguments->classes, error);
}

CLI::Validator unsigned_64_bit_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
        bool ok = !text.empty() && text.size() <= 20;
        uint64_t value = 0;
        for (char c : text) {
          if (!ok) break;
          const auto digit = static_cast<uint64_t>(c - '0');
          ok = c >= '0' && c <= '9' && value <= (kMax - digit) / 10;
          value = value * 10 + digit;
        }
        return ok ? std::string() : "'" + text + "' is not an integer from 0 to " + std::to_string(kMax);
      },
      "N>=0");
}

}  // namespace xpose::cli
