// SPDX-License-Identifier: Apache-2.0
// The per-tile work of the packed permute kernel (PackedParams in cuda/permute_params.hpp), one
// function per phase between barriers:
//   load:  the tile's input runs from global memory into shared memory, run j at byte j * pitch,
//          in words of up to 16 bytes (fewer where the runs or the pointer are not aligned);
//   store: the tile's output runs, each thread one word (4 bytes of 1- or 2-byte elements, else
//          one element) gathered from shared memory: the digits of the word's first element
//          along the run's axes, then an odometer over them.
// Plain C++ with host-device functions, like cuda/permute_tile.hpp: the CPU tests run every thread
// of each phase in turn on host memory.
#pragma once

#include <cstdint>
#include <cstring>

#include "cuda/permute_params.hpp"
#include "cuda/permute_tile.hpp"

namespace xpose::cuda {

template <int Size>
struct PackedAgent {
  using Element = typename Unit<Size>::type;
  static constexpr int kSharedUnit = Size < 4 ? 4 : Size;  // the pitch is a multiple of this

  const PackedParams& p;
  int thread, threads;
  uint8_t* box;  // kPackedSharedBytes, 16-byte aligned

  // A word read from global memory (aligned to `Word`) and written to shared memory (aligned to
  // the smaller of Word and kSharedUnit).
  template <int Word>
  XPOSE_HOST_DEVICE static typename Unit<Word>::type read_word(const uint8_t* from) {
    typename Unit<Word>::type value;
#if defined(__CUDA_ARCH__)
    value = *reinterpret_cast<const typename Unit<Word>::type*>(from);
#else
    std::memcpy(&value, from, Word);
#endif
    return value;
  }
  template <int Word>
  XPOSE_HOST_DEVICE static void write_word(const typename Unit<Word>::type& value, uint8_t* to) {
#if defined(__CUDA_ARCH__)
    constexpr int kPiece = Word < kSharedUnit ? Word : kSharedUnit;
    using P = typename Unit<kPiece>::type;
    XPOSE_UNROLL
    for (int i = 0; i < Word / kPiece; ++i) reinterpret_cast<P*>(to)[i] = reinterpret_cast<const P*>(&value)[i];
#else
    std::memcpy(to, &value, Word);
#endif
  }

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

  // Consecutive threads take consecutive words of the tile's runs. One load at a time per thread:
  // issuing four before their stores was 10-20% slower (more registers, fewer blocks per SM); the
  // kernel is bound by its index arithmetic, not by memory latency.
  template <int Word>
  XPOSE_HOST_DEVICE void load_words(const PackedTile& t, const uint8_t* in) const {
    const TileDivisor& words_per_run = p.in_words_per_run[log2_word(Word)];
    const int items = p.in_runs * words_per_run.divisor();
    const int run_bytes = t.in_run_elements * Size;
    for (int item = thread; item < items; item += threads) {
      int run = 0;
      const int byte = words_per_run.divide_remainder(item, &run) * Word;
      if (byte >= run_bytes) continue;
      int64_t source = t.in_base;
      int unused = 0;  // the run's place in shared memory is run * pitch
      if (!run_start(p.in_outer, p.in_outer_axes, run, t, &source, &unused)) continue;
      const uint8_t* from = in + source * Size + byte;
      uint8_t* to = box + run * p.pitch + byte;
      if (byte + Word <= run_bytes) {
        write_word<Word>(read_word<Word>(from), to);
      } else {  // a run's last partial word (edge tiles, odd runs): element by element
        for (int b = 0; b < run_bytes - byte; b += Size)
          *reinterpret_cast<Element*>(to + b) = *reinterpret_cast<const Element*>(from + b);
      }
    }
  }

  // `word`: bytes per global load, a power of two from Size to p.in_word (the launch lowers it
  // for an input pointer not aligned to p.in_word).
  XPOSE_HOST_DEVICE void load(const PackedTile& t, const uint8_t* in, int word) const {
    if constexpr (Size < 16) {
      if (word == 16) return load_words<16>(t, in);
    }
    if constexpr (Size < 8) {
      if (word == 8) return load_words<8>(t, in);
    }
    if constexpr (Size < 4) {
      if (word == 4) return load_words<4>(t, in);
    }
    if constexpr (Size < 2) {
      if (word == 2) return load_words<2>(t, in);
    }
    load_words<Size>(t, in);
  }

  template <int PerWord>
  XPOSE_HOST_DEVICE void store_words(const PackedTile& t, uint8_t* out) const {
    using W = typename Unit<Size * PerWord>::type;
    const TileDivisor& words_per_run = p.out_words_per_run[log2_word(Size * PerWord)];
    const int items = p.out_runs * words_per_run.divisor();
    const int run_elements = t.out_run_elements;
    for (int item = thread; item < items; item += threads) {
      int run = 0;
      const int first = words_per_run.divide_remainder(item, &run) * PerWord;
      if (first >= run_elements) continue;
      int64_t target = t.out_base;
      int offset = 0;
      if (!run_start(p.out_outer, p.out_outer_axes, run, t, &target, &offset)) continue;
      int digits[kMaxBoxAxes] = {};
      int rest = first;
      XPOSE_UNROLL
      for (int k = 0; k < kMaxBoxAxes; ++k) {
        if (k >= p.out_run_axes) break;
        int next = 0;
        digits[k] = p.out_run[k].extent.divide_remainder(rest, &next);
        rest = next;
        offset += digits[k] * p.out_run[k].smem;
      }
      Element values[PerWord];
      XPOSE_UNROLL
      for (int e = 0; e < PerWord; ++e) {
        values[e] = *reinterpret_cast<const Element*>(box + offset);
        if (e + 1 == PerWord) break;
        XPOSE_UNROLL
        for (int k = 0; k < kMaxBoxAxes; ++k) {  // the next element of the run
          if (k >= p.out_run_axes) break;
          offset += p.out_run[k].smem;
          if (++digits[k] < p.out_run[k].extent.divisor()) break;
          offset -= p.out_run[k].extent.divisor() * p.out_run[k].smem;
          digits[k] = 0;
        }
      }
      uint8_t* to = out + (target + first) * Size;
      if (first + PerWord <= run_elements) {
        if constexpr (PerWord == 1) {
          *reinterpret_cast<Element*>(to) = values[0];
        } else {
          W word = 0;
          XPOSE_UNROLL
          for (int e = 0; e < PerWord; ++e) word |= static_cast<W>(static_cast<W>(values[e]) << (8 * Size * e));
          *reinterpret_cast<W*>(to) = word;
        }
      } else {
        for (int e = 0; e < run_elements - first; ++e) reinterpret_cast<Element*>(to)[e] = values[e];
      }
    }
  }

  // `word`: bytes per global store (p.out_word, or less for an output pointer not aligned to it).
  XPOSE_HOST_DEVICE void store(const PackedTile& t, uint8_t* out, int word) const {
    if constexpr (Size == 1) {
      if (word == 4) return store_words<4>(t, out);
      if (word == 2) return store_words<2>(t, out);
    }
    if constexpr (Size == 2) {
      if (word == 4) return store_words<2>(t, out);
    }
    store_words<1>(t, out);
  }
};

}  // namespace xpose::cuda
