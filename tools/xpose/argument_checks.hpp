// SPDX-License-Identifier: Apache-2.0
// Checks of the typed arguments that CLI11 does not make: no option takes an empty value, a comma
// list has no empty item, and an unsigned integer has no sign (CLI11 wraps "-1" around to
// 2^64 - 1). Each failure is one line that names the option and the value.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace xpose::cli {

struct BenchArguments;  // bench_command.hpp

// Refuses an option of `command` given an empty (or blank) value, then splits the comma lists
// (--rows, --cols, --dtype, --kernels, --class) into their items, refusing an empty item
// ("64,,128"). Those options must not set a CLI11 delimiter, which drops empty items.
bool check_bench_arguments(const CLI::App& command, BenchArguments* arguments, std::string* error);

// Splits the values of a comma-list option into their items, trimmed; false for an empty item.
bool split_list(const std::string& option, std::vector<std::string>* values, std::string* error);

// A decimal integer from 0 to 2^64 - 1, no sign (--seed).
CLI::Validator unsigned_64_bit_integer();

}  // namespace xpose::cli
