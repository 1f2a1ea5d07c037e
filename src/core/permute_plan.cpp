// SPDX-License-Identifier: Apache-2.0
#include "core/permute_plan.hpp"

#include <cstdint>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/kernel_registry.hpp"

namespace xpose::detail {
namespace {

// GPU: packed (a box whose input and output runs are both long, at the price of a table read per
// element) replaces
//   tiled, for 4- and 8-byte elements when tiled's shorter run is under 24 elements and packed's
//   is at least twice as long; for others when tiled's is under one 32-byte sector and packed's
//   longer; and whenever tiled's tiles hold under 2 KiB (axes too short to fill them) and
//   packed's at least twice that;
//   gather, when its runs are under one sector and packed's are longer, or when it copies in
//   chunks of 4 bytes or less (runs of an odd number of elements of up to 4 bytes, under 256
//   bytes: longer ones it copies as shifted 16-byte vectors, GatherParams::shifted).
// Permutes of short axes on an H100 (docs/permute.md): tiled with f32 / f64 runs of 5-23 elements
// ran at 43-71% of memcpy where packed with runs 2-14 times longer ran at 67-89%; tiled with 30
// f64 and 53-64 f32 stayed ahead of packed runs no more than twice as long; 1- and 2-byte elements
// and 16-byte ones run faster through tiled whenever its runs are a sector or more (u8 and f16
// 39-68% against packed's 20-39% on 96- to 136-byte runs; c128 89-94% against 65-86%); tiled with
// 48 bytes per tile (a 6 x 2 view of f32) ran at 1%. Gather reads whole sectors once its runs are
// 32 bytes (u8 and f16 runs of 32-48 bytes in TTC 28, 30, 43-45: gather 87-94%, packed 53-73%);
// copying 2 or 4 bytes at a time it ran at 17-39% (runs of 76 bytes to 1.8 MB), and packed at
// 28-50% on such runs of 782 bytes to 38 KB, where shifted vectors run at 53-82% (H200).
constexpr int64_t kTiledShortRunElements = 24;
constexpr int64_t kTiledShortRunBytes = 32;
constexpr int64_t kTiledSmallTileBytes = 2048;
constexpr int64_t kGatherShortRunBytes = 32;
constexpr int kGatherNarrowAccessBytes = 4;

// Whether packed (shorter run `packed_run`, `packed_tile` bytes per tile) replaces the chosen
// kernel `chosen` (tiled or gather).
bool packed_is_better(const PreparedPermute& chosen, bool tiled, int elem_size, int64_t packed_run,
                      int64_t packed_tile) {
  const int64_t run = chosen.shorter_run_bytes;
  if (tiled && chosen.bytes_per_tile < kTiledSmallTileBytes && packed_tile >= 2 * chosen.bytes_per_tile) return true;
  if (tiled && (elem_size == 4 || elem_size == 8))
    return run < kTiledShortRunElements * elem_size && packed_run >= 2 * run;
  if (tiled) return run < kTiledShortRunBytes && packed_run > run;
  return (run < kGatherShortRunBytes && packed_run > run) || chosen.access_bytes <= kGatherNarrowAccessBytes;
}

bool try_kernel(Device device, const char* name, const PermuteProblem& problem,
                const PermuteLayout& layout, PreparedPermute* prepared) {
  const PermuteKernel* kernel = find_permute_kernel(device, name);
  return kernel != nullptr && prepare_permute(*kernel, problem, layout, prepared, nullptr);
}

bool misaligned(const void* pointer, int alignment) {
  return reinterpret_cast<std::uintptr_t>(pointer) % static_cast<std::uintptr_t>(alignment) != 0;
}

}  // namespace

// The rule (docs/permute.md has the reasoning and the numbers):
//   1. a layout that moves nothing and is contiguous: a copy (memcpy, cudaMemcpy2DAsync);
//   2. a short innermost run that stays innermost is widened into one element (2 to 16 bytes);
//   3. a (batched) 2D transpose: the production 2D kernel;
//   4. otherwise CPU: the blocked N-D kernel, threaded above 1 MiB; GPU: the tiled kernel when
//      the contiguous dim moves, the gather copy when it stays, the packed kernel instead of
//      either where their runs are short (short axes) and for what is left (innermost runs with
//      non-unit strides), and the naive kernel if packed cannot run it.
void choose_permute_kernel(Device device, const PermuteProblem& problem, const PermuteLayout& layout,
                           PreparedPermute* primary, PreparedPermute* fallback) {
  *fallback = PreparedPermute{};
  if (try_kernel(device, "copy", problem, layout, primary)) return;
  PermuteLayout widened;
  const bool is_widened = widen_elements(layout, &widened);
  const PermuteLayout& work = is_widened ? widened : layout;
  if (device == Device::cpu) {
    if (try_kernel(device, "transpose2d", problem, work, primary)) return;
    const char* name = problem.bytes() >= kCpuThreadedFromBytes ? "threaded" : "blocked";
    try_kernel(device, name, problem, work, primary);
    return;
  }
  bool chosen = try_kernel(device, "transpose2d", problem, work, primary);
  if (!chosen) {
    const bool tiled = try_kernel(device, "tiled", problem, work, primary);
    chosen = tiled || try_kernel(device, "gather", problem, work, primary);
    PreparedPermute packed;
    const int64_t longest_run = INT64_MAX;  // whether packed could replace it, before preparing it
    if ((!chosen || packed_is_better(*primary, tiled, work.elem_size, longest_run, longest_run)) &&
        try_kernel(device, "packed", problem, work, &packed) &&
        (!chosen ||
         packed_is_better(*primary, tiled, work.elem_size, packed.shorter_run_bytes, packed.bytes_per_tile))) {
      *primary = std::move(packed);
      chosen = true;
    }
  }
  chosen = chosen || try_kernel(device, "naive", problem, work, primary);
  if (chosen && primary->alignment > problem.elem_size) {
    if (!try_kernel(device, "gather", problem, layout, fallback)) try_kernel(device, "naive", problem, layout, fallback);
  }
}

Status make_permute_plan(PermuteProblem problem, Device device, const PlanOptions& options,
                         PermutePlan* plan) {
  PermutePlan p;
  p.problem = std::move(problem);
  p.device = device;
  p.threads = options.threads;
  const PermuteLayout layout = normalise(p.problem);

  if (options.kernel == "auto") {
    choose_permute_kernel(device, p.problem, layout, &p.primary, &p.fallback);
    if (p.primary.kernel == nullptr)
      return fail(Status::internal_error, message("no permute kernel chosen for ", layout.describe()));
  } else {
    const PermuteKernel* kernel = find_permute_kernel(device, options.kernel);
    if (kernel == nullptr) {
      std::string known;
      for (const auto& name : permute_kernel_names(device)) known += " " + name;
      return fail(Status::invalid_argument, message("unknown permute kernel '", options.kernel, "' for ",
                                                    to_string(device), " (known:", known, ")"));
    }
    // A named kernel runs the layout as normalised, or widened when only that form suits it.
    std::string why, why_widened;
    PermuteLayout widened;
    if (!prepare_permute(*kernel, p.problem, layout, &p.primary, &why) &&
        !(widen_elements(layout, &widened) &&
          prepare_permute(*kernel, p.problem, widened, &p.primary, &why_widened)))
      return fail(Status::unsupported, message("permute kernel '", options.kernel, "' cannot run ",
                                               layout.describe(), ": ", why));
  }
  *plan = std::move(p);
  return Status::ok;
}

Status execute_permute_plan(const PermutePlan& plan, const void* in, void* out, void* stream) {
  const PermuteProblem& p = plan.problem;
  if (p.empty()) return Status::ok;
  if (Status s = check_permute_pointers(in, out, p); s != Status::ok) return s;
  LaunchContext context;
  context.threads = plan.threads;
  if (plan.device == Device::cuda) {
    if (Status s = cuda_check_pointers(in, out, stream); s != Status::ok) return s;
    // GPU kernels access whole elements; a misaligned element would fault.
    if (misaligned(in, p.elem_size) || misaligned(out, p.elem_size))
      return fail(Status::invalid_argument,
                  message(misaligned(in, p.elem_size) ? "in (" : "out (",
                          misaligned(in, p.elem_size) ? in : out, ") is not aligned to the element size (",
                          p.elem_size, " bytes), which the GPU kernels require"));
    context.stream = stream;
  }
  const PreparedPermute* chosen = &plan.primary;
  if (misaligned(in, chosen->alignment) || misaligned(out, chosen->alignment)) {
    if (plan.fallback.kernel == nullptr)
      return fail(Status::invalid_argument,
                  message("kernel '", chosen->name, "' runs this shape as ", chosen->alignment,
                          "-byte elements: in (", in, ") and out (", out, ") must be aligned to ",
                          chosen->alignment, " bytes (\"auto\" falls back to another kernel)"));
    chosen = &plan.fallback;
  }
  return chosen->kernel->run(in, out, *chosen, context);
}

}  // namespace xpose::detail
