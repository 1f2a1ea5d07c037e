// SPDX-License-Identifier: Apache-2.0
// `xpose kernels`: the kernels each device offers in this build, with what they do.
#pragma once

#include <CLI/CLI.hpp>

namespace xpose::cli {

CLI::App* add_kernels_command(CLI::App& app);
int run_kernels_command();

}  // namespace xpose::cli
