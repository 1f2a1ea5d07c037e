// SPDX-License-Identifier: Apache-2.0
// xpose: the command-line tool. `xpose bench` times and verifies every transpose variant
// (docs/cli.md); `xpose kernels` lists them. Exit status: 0 ok, 1 failed, 2 bad usage.
#include <string>

#include <CLI/CLI.hpp>

#include "argument_checks.hpp"
#include "bench_command.hpp"
#include "baselines/baselines.hpp"
#include "build_info.hpp"
#include "diagnostics.hpp"
#include "dist_bench.hpp"
#include "inplace_bench.hpp"
#include "kernels_command.hpp"

int main(int argc, char** argv) {
  xpose::baselines::register_kernels();  // the bench's baselines become kernels by name
  using namespace xpose::cli;
  CLI::App app{"xpose: matrix transposes on NVIDIA GPUs and CPUs at the speed of memory"};
  app.set_version_flag("--version", std::string("xpose ") + xpose_version() + " (commit " + git_commit() + ")");
  app.require_subcommand(1);
  BenchArguments bench_arguments;
  CLI::App* bench = add_bench_command(app, &bench_arguments);
  CLI::App* kernels = add_kernels_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help
    // CLI11 reports an unknown command only as "A subcommand is required": name it.
    if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-') {
      print_error(std::string("unknown command '") + argv[1] + "' (expected bench or kernels; see xpose --help)");
      return kExitUsage;
    }
    print_error(std::string(e.what()) + " (see xpose --help)");
    return kExitUsage;
  }

  if (*kernels) return run_kernels_command();
  std::string error;
  if (!check_bench_arguments(*bench, &bench_arguments, &error)) {
    print_error(error);
    return kExitUsage;
  }
  if (bench->count("--gpus") > 0) return run_dist_bench_command(bench_arguments, *bench);
  if (bench_arguments.inplace) return run_inplace_bench_command(bench_arguments, *bench);
  BenchOptions options;
  if (!resolve_bench_options(bench_arguments, *bench, &options, &error)) {
    print_error(error);
    return kExitUsage;
  }
  // Said once, on stderr: a run the user did not place on the CPU reports CPU figures.
  if (bench_arguments.device.empty() && options.device == xpose::Device::cpu)
    print_note(std::string("running on the CPU: ") +
               (xpose::cuda_compiled() ? "no CUDA device is visible" : "this xpose build has no CUDA backend") +
               " (--device cpu chooses the CPU explicitly)");
  return run_bench_command(options);
}
