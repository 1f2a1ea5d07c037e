// SPDX-License-Identifier: Apache-2.0
// The per-tile work of the packed permute kernel (PackedParams in cuda/permute_params.hpp), one
// function per phase between barriers:
//   fill_gather_table: once per block, the shared-memory offset of each position of an output run
//          (its digits along the run's axes times their steps), so that the stores find an element
//          with one table read instead of divisions;
//   fill_run_tables: once per block where PackedParams::run_tables, where each input and output
//          run starts relative to its tile, so that whole tiles walk their chunks without divisions
//          (edge tiles find each run from its digits, run_start);
//   load:  the tile's input runs from global memory into shared memory, run j at byte j * pitch,
//          in 16-byte chunks: plain vectors where every run starts on 16 bytes, else the two aligned
//          vectors around each chunk shifted in registers;
//   store: the tile's output runs, each thread one aligned 16-byte chunk of a run, its elements
//          gathered from shared memory through the table; the chunks at a run's ends, which the run
//          covers only in part, element by element.
// Plain C++ with host-device functions, like cuda/permute_tile.hpp: the CPU tests run every thread
// of each phase in turn on host memory.
#pragma once

#include <cstdint>

#include "cuda/permute_params.hpp"
#include "cuda/permute_tile.hpp"

namespace xpose::cuda {

template <int Size>
struct PackedAgent {
  using Element = typename Unit<Size>::type;

  const PackedParams& p;
  int thread, threads;
  uint8_t* box;            // kPackedSharedBytes, 16-byte aligned
  uint16_t* gather_table;  // kPackedTableEntries
  PackedRunTables* runs;   // used where p.run_tables

  // Where run `run` of a walk starts: its digits along the walk's other box axes (`steps`)
  // times their global and shared-memory steps, added to `global` and `smem`; false when it lies
  // outside this (edge) tile.
  XPOSE_HOST_DEVICE static bool run_start(const PackedStep (&steps)[kMaxBoxAxes], int count, int run,
                                          const PackedTile& t, int64_t* global, int* smem) {
    bool inside = true;
    XPOSE_UNROLL
    for (int a = 0; a < kMaxBoxAxes; ++a) {
      if (a >= count) break;
      int next = 0;
      const int digit = steps[a].extent.divide_remainder(run, &next);
      run = next;
      inside = inside && digit < t.extent[steps[a].box];
      *global += digit * steps[a].global;
      *smem += digit * steps[a].smem;
    }
    return inside;
  }

  // The table is the same for every tile: a run's axes are whole but its last, and an edge tile's
  // shorter last axis only ends the run sooner.
  XPOSE_HOST_DEVICE void fill_gather_table() const {
    for (int e = thread; e < p.out_run_elements; e += threads) {
      int rest = e, offset = 0;
      for (int k = 0; k < p.out_run_axes; ++k) {
        int next = 0;
        offset += p.out_run[k].extent.divide_remainder(rest, &next) * p.out_run[k].smem;
        rest = next;
      }
      gather_table[e] = static_cast<uint16_t>(offset);
    }
  }

  // Where each run of a whole tile starts, relative to the tile: the input runs' global offsets
  // and the output runs' global and shared-memory offsets.
  XPOSE_HOST_DEVICE void fill_run_tables() const {
    PackedTile whole;
    for (int b = 0; b < p.box_axes; ++b) whole.extent[b] = static_cast<int>(p.extent[p.box_axis[b]]);
    for (int run = thread; run < p.in_runs; run += threads) {
      int64_t global = 0;
      int unused = 0;
      run_start(p.in_outer, p.in_outer_axes, run, whole, &global, &unused);
      runs->in_global[run] = global;
    }
    for (int run = thread; run < p.out_runs; run += threads) {
      int64_t global = 0;
      int smem = 0;
      run_start(p.out_outer, p.out_outer_axes, run, whole, &global, &smem);
      runs->out_global[run] = global;
      runs->out_smem[run] = static_cast<uint16_t>(smem);
    }
  }

  // Calls chunk(run, chunk) for this thread's chunks of `run_count` runs of `chunks_per_run`
  // chunks: consecutive threads take consecutive chunks, the thread's next is `threads` later,
  // found by adding instead of dividing.
  template <typename Chunk>
  XPOSE_HOST_DEVICE void walk_runs(int run_count, const TileDivisor& chunks_per_run, Chunk&& chunk) const {
    int run = 0, step_runs = 0;
    int c = chunks_per_run.divide_remainder(thread, &run);
    const int step_chunks = chunks_per_run.divide_remainder(threads, &step_runs);
    while (run < run_count) {
      chunk(run, c);
      c += step_chunks;
      run += step_runs;
      if (c >= chunks_per_run.divisor()) {
        c -= chunks_per_run.divisor();
        ++run;
      }
    }
  }

  // Consecutive threads take consecutive 16-byte chunks of the tile's input runs. `Aligned`: every
  // run starts on 16 bytes (PackedParams::in_runs_aligned and an aligned pointer).
  template <bool Aligned>
  XPOSE_HOST_DEVICE void load(const PackedTile& t, const uint8_t* __restrict__ in) const {
    const int run_bytes = t.in_run_span * Size;
    if (t.whole && p.run_tables) {
      walk_runs(p.in_runs, p.in_chunks_per_run, [&](int run, int chunk) {
        load_chunk<Aligned>(in, t.in_base + runs->in_global[run], run, chunk * 16, run_bytes);
      });
      return;
    }
    const int items = p.in_runs * p.in_chunks_per_run.divisor();
    for (int item = thread; item < items; item += threads) {
      int run = 0;
      const int begin = p.in_chunks_per_run.divide_remainder(item, &run) * 16;
      if (begin >= run_bytes) continue;
      int64_t source = t.in_base;
      int unused = 0;  // the run's place in shared memory is run * pitch
      if (!run_start(p.in_outer, p.in_outer_axes, run, t, &source, &unused)) continue;
      load_chunk<Aligned>(in, source, run, begin, run_bytes);
    }
  }

  // Bytes begin .. begin + 15 (fewer at the run's end) of input run `run`, which starts at element
  // `source`, into shared memory.
  template <bool Aligned>
  XPOSE_HOST_DEVICE void load_chunk(const uint8_t* __restrict__ in, int64_t source, int run, int begin,
                                    int run_bytes) const {
    const uintptr_t span_begin = reinterpret_cast<uintptr_t>(in), span_end = span_begin + p.in_span_bytes;
    const uint8_t* from = in + source * Size + begin;
    uint8_t* to = box + run * p.pitch + begin;
    const int bytes = run_bytes - begin < 16 ? run_bytes - begin : 16;
    const uintptr_t address = reinterpret_cast<uintptr_t>(from);
    const int shift = Aligned ? 0 : static_cast<int>(address & 15);
    const uintptr_t aligned = address - static_cast<uintptr_t>(shift);
    const bool two = shift + bytes > 16;
    // A vector is read whole only inside the view's span: a run's partial last chunk goes
    // element by element only at the span's end.
    const bool whole = Aligned ? bytes == 16 || address + 16 <= span_end
                               : aligned >= span_begin && aligned + (two ? 32 : 16) <= span_end;
    if (whole) {
      Vector16 v = *reinterpret_cast<const Vector16*>(aligned);
      if (!Aligned && shift != 0) {
        Vector16 hi = {};
        if (two) hi = *reinterpret_cast<const Vector16*>(aligned + 16);
        v = shift_pair(v, hi, shift);
      }
      // Rows are 4-byte aligned; the last word of a run may carry bytes past its end into the
      // row's padding (the pitch covers the run rounded up to 4 bytes). Lanes 16 bytes apart
      // would meet in the same bank four at a time: for 1- and 2-byte elements each group of 8
      // lanes starts at another word (for larger ones the selects cost more than the conflicts).
      auto* words = reinterpret_cast<uint32_t*>(to);
      const int rotation = Size <= 2 ? (thread >> 3) & 3 : 0, count = (bytes + 3) / 4;
      if (count == 4) {  // all but a run's last chunk: no per-word tests
        XPOSE_UNROLL
        for (int k = 0; k < 4; ++k) words[(k + rotation) & 3] = word_of(v, (k + rotation) & 3);
      } else {
        XPOSE_UNROLL
        for (int k = 0; k < 4; ++k) {
          const int w = (k + rotation) & 3;
          if (w < count) words[w] = word_of(v, w);
        }
      }
    } else {
      for (int b = 0; b < bytes; b += Size)
        *reinterpret_cast<Element*>(to + b) = *reinterpret_cast<const Element*>(from + b);
    }
  }

  XPOSE_HOST_DEVICE static uint32_t word_of(const Vector16& v, int w) {
    return w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;
  }

  // Element `e` of the output run whose first element is at `run_smem` in shared memory.
  XPOSE_HOST_DEVICE Element gathered(int run_smem, int e) const {
    return *reinterpret_cast<const Element*>(box + run_smem + gather_table[e]);
  }

  // The 16 bytes of elements first .. first + 16 / Size - 1 of a run. 1- and 2-byte elements:
  // where a run is contiguous in shared memory, lanes 16 bytes apart would read the same bank four
  // at a time, so each group of 8 lanes starts at another word of its chunk (for 4- and 8-byte
  // elements the selects cost more than the conflicts, H100).
  XPOSE_HOST_DEVICE Vector16 gather_chunk(int run_smem, int first) const {
    if constexpr (Size == 16) {
      return gathered(run_smem, first);
    } else if constexpr (Size == 8) {
      const uint64_t lo = gathered(run_smem, first), hi = gathered(run_smem, first + 1);
      return {static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32), static_cast<uint32_t>(hi),
              static_cast<uint32_t>(hi >> 32)};
    } else if constexpr (Size == 4) {
      return {gathered(run_smem, first), gathered(run_smem, first + 1), gathered(run_smem, first + 2),
              gathered(run_smem, first + 3)};
    } else {
      constexpr int kPerWord = 4 / Size;
      const int rotation = (thread >> 3) & 3;
      Vector16 rotated;  // word k holds word (k + rotation) & 3 of the chunk
      uint32_t* slots[4] = {&rotated.x, &rotated.y, &rotated.z, &rotated.w};
      XPOSE_UNROLL
      for (int k = 0; k < 4; ++k) {
        const int w = (k + rotation) & 3;
        uint32_t word = 0;
        XPOSE_UNROLL
        for (int i = 0; i < kPerWord; ++i)
          word |= static_cast<uint32_t>(gathered(run_smem, first + w * kPerWord + i)) << (8 * Size * i);
        *slots[k] = word;
      }
      return {word_of(rotated, (0 - rotation) & 3), word_of(rotated, (1 - rotation) & 3),
              word_of(rotated, (2 - rotation) & 3), word_of(rotated, (3 - rotation) & 3)};
    }
  }

  // Consecutive threads take consecutive aligned 16-byte chunks of the tile's output runs.
  // `Aligned`: every run starts on 16 bytes (PackedParams::out_runs_aligned and an aligned pointer).
  template <bool Aligned>
  XPOSE_HOST_DEVICE void store(const PackedTile& t, uint8_t* __restrict__ out) const {
    const TileDivisor& chunks_per_run = Aligned ? p.out_chunks_aligned : p.out_chunks_shifted;
    const int run_bytes = t.out_run_elements * Size;
    if (t.whole && p.run_tables) {
      walk_runs(p.out_runs, chunks_per_run, [&](int run, int chunk) {
        store_chunk<Aligned>(out, t.out_base + runs->out_global[run], runs->out_smem[run], chunk, run_bytes);
      });
      return;
    }
    const int items = p.out_runs * chunks_per_run.divisor();
    for (int item = thread; item < items; item += threads) {
      int run = 0;
      const int chunk = chunks_per_run.divide_remainder(item, &run);
      int64_t target = t.out_base;
      int run_smem = 0;
      if (!run_start(p.out_outer, p.out_outer_axes, run, t, &target, &run_smem)) continue;
      store_chunk<Aligned>(out, target, run_smem, chunk, run_bytes);
    }
  }

  // Aligned 16-byte chunk `chunk` of the output run that starts at element `target` and at
  // `run_smem` in shared memory.
  template <bool Aligned>
  XPOSE_HOST_DEVICE void store_chunk(uint8_t* __restrict__ out, int64_t target, int run_smem, int chunk,
                                     int run_bytes) const {
    uint8_t* first = out + target * Size;
    const int lead = Aligned ? 0 : static_cast<int>(reinterpret_cast<uintptr_t>(first) & 15);
    const int begin = chunk * 16 - lead;  // the chunk's first byte, from the run's start
    if (begin >= run_bytes) return;
    if (begin >= 0 && begin + 16 <= run_bytes) {
      *reinterpret_cast<Vector16*>(first + begin) = gather_chunk(run_smem, begin / Size);
    } else {
      // Element by element: aligned pieces of 8, 4, 2 and 1 bytes (fewer stores) ran u8 and
      // f16 cases 1-10 points slower on an H100, the lanes' piece sequences diverging.
      const int end = begin + 16 < run_bytes ? begin + 16 : run_bytes;
      for (int b = begin < 0 ? 0 : begin; b < end; b += Size)
        *reinterpret_cast<Element*>(first + b) = gathered(run_smem, b / Size);
    }
  }
};

}  // namespace xpose::cuda
