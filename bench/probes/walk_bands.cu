// SPDX-License-Identifier: Apache-2.0
// Does the shape of the region of tiles in flight decide a square transpose's speed? The tile
// kernels walk tiles rows-first (the in-flight tiles cover all row tiles of one or two column
// tiles: the writes run along whole output rows, the reads take 512 bytes of thousands of input
// rows) or columns-first (the seeds: the other way round); both sit near 97.8% of memcpy on an H100
// at 8192^2 f64 while a copy kernel runs at 100.4%. Here one simple kernel walks the tiles in
// bands of `band` row tiles (column tiles of one band in turn, the band's row tiles fastest), so
// that the tiles in flight cover about band x (resident / band) tiles: reads of resident / band
// tiles' width per input row, writes of band tiles' width per output row. The same walk with a
// copy of each tile (no transpose) gives the pattern's ceiling. Every kernel's output is checked.
// `auto`, `memcpy` and the seed `tiled_padded_rows` come from the library, timed alongside
// (alternating rounds, medians of event times). Run by bench/probes/run_walk_bands.sh.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "baselines/baselines.hpp"
#include "probe_timing.hpp"
#include "xpose/xpose.hpp"

namespace {

// Tile (tile_row, tile_col) of block `bid` in a walk of bands of `band` row tiles.
__device__ __forceinline__ void band_tile(int bid, int tiles_r, int tiles_c, int band, int& tr, int& tc) {
  const int per_band = band * tiles_c;
  const int b = bid / per_band, within = bid % per_band;
  const int rows_in_band = min(band, tiles_r - b * band);
  tr = b * band + within % rows_in_band;
  tc = within / rows_in_band;
}

// One Tile x Tile tile moved by Threads threads through `tile`; Transpose false copies it in place.
template <typename T, int Tile, int Threads, bool Transpose>
__device__ __forceinline__ void move_tile(const T* __restrict__ in, T* __restrict__ out, int n, int tr, int tc,
                                          T (&tile)[Tile][Tile + 1]) {
  constexpr int kRowsPerPass = Threads / Tile, kPasses = Tile / kRowsPerPass;
  const int x = threadIdx.x % Tile, y = threadIdx.x / Tile;
  const T* src = in + size_t(tr * Tile) * n + tc * Tile;
  T v[kPasses];
#pragma unroll
  for (int k = 0; k < kPasses; ++k) v[k] = src[size_t(y + k * kRowsPerPass) * n + x];
  if constexpr (!Transpose) {
    T* dst = out + size_t(tr * Tile) * n + tc * Tile;
#pragma unroll
    for (int k = 0; k < kPasses; ++k) dst[size_t(y + k * kRowsPerPass) * n + x] = v[k];
  } else {
#pragma unroll
    for (int k = 0; k < kPasses; ++k) tile[y + k * kRowsPerPass][x] = v[k];
    __syncthreads();
    T* dst = out + size_t(tc * Tile) * n + tr * Tile;
#pragma unroll
    for (int k = 0; k < kPasses; ++k) dst[size_t(y + k * kRowsPerPass) * n + x] = tile[x][y + k * kRowsPerPass];
  }
}

// Tile x Tile elements moved by Threads threads, one tile per block; Transpose false copies the tile
// in place.
template <typename T, int Tile, int Threads, int MinBlocks, bool Transpose>
__global__ void __launch_bounds__(Threads, MinBlocks)
    band_kernel(const T* __restrict__ in, T* __restrict__ out, int n, int band) {
  __shared__ T tile[Tile][Tile + 1];
  const int tiles = n / Tile;
  int tr, tc;
  band_tile(blockIdx.x, tiles, tiles, band, tr, tc);
  move_tile<T, Tile, Threads, Transpose>(in, out, n, tr, tc, tile);
}

// Tile of position `pos` of a walk over tiles x tiles: walk 0 takes the columns fastest (row bands
// in turn), walk 1 the rows fastest, walk s >= 2 squares of s x s tiles (columns fastest inside a
// square and between squares). `tiles` is a multiple of s.
__device__ __forceinline__ void walk_tile(int pos, int tiles, int walk, int& tr, int& tc) {
  if (walk == 0) {
    tr = pos / tiles, tc = pos % tiles;
  } else if (walk == 1) {
    tc = pos / tiles, tr = pos % tiles;
  } else {
    const int squares = tiles / walk, square = pos / (walk * walk), within = pos % (walk * walk);
    tr = square / squares * walk + within / walk;
    tc = square % squares * walk + within % walk;
  }
}

// A resident grid (as many blocks as fit at once) walking the tiles. Chunk gives block b the walk
// positions [b * per_block, (b + 1) * per_block): each block's successive tiles lie together and the
// grid's tiles in flight lie spread over the walk. Otherwise block b takes b, b + grid, ...: the
// grid's tiles in flight lie together (as in a launch of one block per tile) and each block's
// successive tiles far apart. Telling the two apart says whether the cost of spread accesses is the
// DRAM's (the whole grid's spread) or each SM's (its translations, say).
template <typename T, int Tile, int Threads, bool Transpose, bool Chunk>
__global__ void __launch_bounds__(Threads, 2)
    resident_kernel(const T* __restrict__ in, T* __restrict__ out, int n, int walk) {
  __shared__ T tile[Tile][Tile + 1];
  const int tiles = n / Tile, count = tiles * tiles;
  const int per_block = (count + gridDim.x - 1) / gridDim.x;
  for (int step = 0; step < per_block; ++step) {
    const int pos = Chunk ? blockIdx.x * per_block + step : blockIdx.x + step * gridDim.x;
    if (pos >= count) break;
    int tr, tc;
    walk_tile(pos, tiles, walk, tr, tc);
    move_tile<T, Tile, Threads, Transpose>(in, out, n, tr, tc, tile);
    __syncthreads();  // the next tile's loads overwrite `tile`
  }
}

// An R x C tile (R * C / Threads elements per thread) in a walk of bands of `band` row tiles; the
// shapes with long input rows (small R, large C) read long segments of each input row per tile,
// while consecutive blocks of a rows-fastest walk write neighbouring segments of the same output
// rows.
template <typename T, int R, int C, int Threads, bool Transpose>
__global__ void __launch_bounds__(Threads)
    shape_kernel(const T* __restrict__ in, T* __restrict__ out, int n, int band) {
  constexpr int kPerThread = R * C / Threads;
  static_assert(kPerThread * Threads == R * C, "loads divide evenly");
  __shared__ T tile[R][C + 1];
  int tr, tc;
  band_tile(blockIdx.x, n / R, n / C, band, tr, tc);
  const T* src = in + size_t(tr * R) * n + size_t(tc) * C;
  T v[kPerThread];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int i = threadIdx.x + k * Threads;
    v[k] = src[size_t(i / C) * n + i % C];
  }
  if constexpr (!Transpose) {
    T* dst = out + size_t(tr * R) * n + size_t(tc) * C;
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int i = threadIdx.x + k * Threads;
      dst[size_t(i / C) * n + i % C] = v[k];
    }
  } else {
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int i = threadIdx.x + k * Threads;
      tile[i / C][i % C] = v[k];
    }
    __syncthreads();
    T* dst = out + size_t(tc * C) * n + size_t(tr) * R;  // output tile: C rows of R elements
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int i = threadIdx.x + k * Threads;
      dst[size_t(i / R) * n + i % R] = tile[i % R][i / R];
    }
  }
}

template <typename T>
__global__ void count_wrong(const T* in, const T* out, int n, bool transposed, unsigned long long* wrong) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= size_t(n) * n) return;
  const size_t r = i / n, c = i % n;
  const T expected = transposed ? in[c * n + r] : in[i];
  if (out[i] != expected) atomicAdd(wrong, 1ull);
}

template <typename T>
__global__ void fill(T* p, size_t count) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < count) p[i] = T(double(i % 1000003) + 0.5);
}

using Launch = std::function<void(const void*, void*, cudaStream_t)>;

struct Variant {
  std::string name;
  Launch launch;
  bool transposes;
};

double median_us(const Launch& launch, const void* in, void* out, cudaStream_t stream, int reps) {
  return median_event_us([&] { launch(in, out, stream); }, stream, reps);
}

Launch library(const std::string& kernel, int n, xpose::DType type) {
  auto plan = std::make_shared<xpose::Plan>();
  xpose::PlanOptions options;
  options.kernel = kernel;
  if (xpose::Plan::create(*plan, xpose::Matrix{n, n}, type, xpose::Device::cuda, options) != xpose::Status::ok) {
    std::fprintf(stderr, "plan %s: %s\n", kernel.c_str(), xpose::last_error_message());
    std::exit(1);
  }
  return [plan](const void* in, void* out, cudaStream_t stream) {
    if (plan->execute(in, out, stream) != xpose::Status::ok) {
      std::fprintf(stderr, "execute: %s\n", xpose::last_error_message());
      std::exit(1);
    }
  };
}

template <typename T, int R, int C, bool Transpose>
Launch shape_launch(int n, int band) {
  return [n, band](const void* in, void* out, cudaStream_t stream) {
    shape_kernel<T, R, C, 512, Transpose>
        <<<(n / R) * (n / C), 512, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), n, band);
  };
}

// Both walks (rows fastest: band = all row tiles; columns fastest: band 1) of an R x C tile, as a
// transpose and as a copy.
template <typename T, int R, int C>
void add_shape(std::vector<Variant>& variants, int n) {
  int resident = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, shape_kernel<T, R, C, 512, true>, 512, 0));
  const std::string shape = std::to_string(R) + "x" + std::to_string(C) + "/" + std::to_string(resident);
  for (int band : {n / R, 1}) {
    const std::string walk = band == 1 ? " cols-first" : " rows-first";
    variants.push_back({"t" + shape + walk, shape_launch<T, R, C, true>(n, band), true});
    variants.push_back({"c" + shape + walk, shape_launch<T, R, C, false>(n, band), false});
  }
}

// Blocks of a band kernel resident per SM (decides the tiles in flight).
template <typename T, int Tile, int Threads, int MinBlocks, bool Transpose>
int resident_per_sm() {
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, band_kernel<T, Tile, Threads, MinBlocks, Transpose>,
                                                      Threads, 0));
  return blocks;
}

template <typename T, int Tile, int Threads, int MinBlocks, bool Transpose>
Launch band_launch(int n, int band) {
  return [n, band](const void* in, void* out, cudaStream_t stream) {
    const int tiles = (n / Tile) * (n / Tile);
    band_kernel<T, Tile, Threads, MinBlocks, Transpose>
        <<<tiles, Threads, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), n, band);
  };
}

template <typename T, bool Transpose, bool Chunk>
Launch resident_launch(int n, int walk) {
  int per_sm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, resident_kernel<T, 64, 512, Transpose, Chunk>, 512, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = per_sm * sms;
  return [n, walk, grid](const void* in, void* out, cudaStream_t stream) {
    resident_kernel<T, 64, 512, Transpose, Chunk>
        <<<grid, 512, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), n, walk);
  };
}

// The 64 x 64 tile walked by a resident grid, per block (chunk) or per grid (stride), as a copy and
// as a transpose; walks 0 (columns fastest), 1 (rows fastest) and squares of s x s tiles.
template <typename T>
void add_locality(std::vector<Variant>& variants, int n) {
  const int tiles = n / 64;
  variants.push_back({"c64 launch band 1", band_launch<T, 64, 512, 2, false>(n, 1), false});
  variants.push_back({"c64 launch band all", band_launch<T, 64, 512, 2, false>(n, tiles), false});
  variants.push_back({"t64 launch band 1", band_launch<T, 64, 512, 2, true>(n, 1), true});
  variants.push_back({"t64 launch band all", band_launch<T, 64, 512, 2, true>(n, tiles), true});
  for (int walk : {0, 1}) {
    const std::string w = " walk " + std::to_string(walk);
    variants.push_back({"c64 stride" + w, resident_launch<T, false, false>(n, walk), false});
    variants.push_back({"c64 chunk" + w, resident_launch<T, false, true>(n, walk), false});
    variants.push_back({"t64 stride" + w, resident_launch<T, true, false>(n, walk), true});
  }
  for (int walk : {0, 1, 2, 4, 8, 16})
    variants.push_back({"t64 chunk walk " + std::to_string(walk), resident_launch<T, true, true>(n, walk), true});
}

template <typename T>
void run(const std::string& mode, const char* type_name, xpose::DType type, int n, int rounds) {
  std::vector<Variant> variants = {{"memcpy", library("memcpy", n, type), false},
                                   {"auto", library("auto", n, type), true},
                                   {"tiled_padded_rows", library("tiled_padded_rows", n, type), true}};
  if (mode == "bands") {
    std::printf("resident blocks per SM: t64 %d, c64 %d, t32 %d\n", resident_per_sm<T, 64, 512, 2, true>(),
                resident_per_sm<T, 64, 512, 2, false>(), resident_per_sm<T, 32, 256, 8, true>());
    for (int band : {1, 2, 4, 8, 16, 32, 64, n / 64}) {
      if (band > n / 64) continue;
      variants.push_back({"t64 band " + std::to_string(band), band_launch<T, 64, 512, 2, true>(n, band), true});
      variants.push_back({"c64 band " + std::to_string(band), band_launch<T, 64, 512, 2, false>(n, band), false});
    }
    for (int band : {1, 4, 16, 64, n / 32})
      if (band <= n / 32)
        variants.push_back({"t32 band " + std::to_string(band), band_launch<T, 32, 256, 8, true>(n, band), true});
  } else if (mode == "locality") {
    add_locality<T>(variants, n);
  } else if constexpr (sizeof(T) == 8) {  // 32 KiB tiles
    add_shape<T, 64, 64>(variants, n);
    add_shape<T, 32, 128>(variants, n);
    add_shape<T, 16, 256>(variants, n);
    add_shape<T, 8, 512>(variants, n);
    add_shape<T, 128, 32>(variants, n);
    add_shape<T, 256, 16>(variants, n);
    add_shape<T, 512, 8>(variants, n);
  } else {
    add_shape<T, 64, 128>(variants, n);
    add_shape<T, 32, 256>(variants, n);
    add_shape<T, 16, 512>(variants, n);
    add_shape<T, 8, 1024>(variants, n);
    add_shape<T, 256, 32>(variants, n);
  }
  const size_t count = size_t(n) * n, bytes = count * sizeof(T);
  void *in = nullptr, *out = nullptr;
  unsigned long long* wrong = nullptr;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMalloc(&wrong, sizeof(*wrong)));
  fill<T><<<(count + 255) / 256, 256>>>(static_cast<T*>(in), count);
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  for (const Variant& v : variants) {  // every output checked once, in full
    CHECK(cudaMemset(out, 0, bytes));
    CHECK(cudaMemset(wrong, 0, sizeof(*wrong)));
    v.launch(in, out, stream);
    count_wrong<T><<<(count + 255) / 256, 256, 0, stream>>>(static_cast<const T*>(in), static_cast<const T*>(out),
                                                            n, v.transposes, wrong);
    unsigned long long host = 0;
    CHECK(cudaMemcpy(&host, wrong, sizeof(host), cudaMemcpyDeviceToHost));
    if (host != 0) {
      std::fprintf(stderr, "%s: %llu elements wrong\n", v.name.c_str(), host);
      std::exit(1);
    }
  }
  std::vector<std::vector<double>> us(variants.size());
  for (int round = 0; round < rounds; ++round)
    for (size_t i = 0; i < variants.size(); ++i) us[i].push_back(median_us(variants[i].launch, in, out, stream, 20));
  std::vector<double> mid(variants.size());
  for (size_t i = 0; i < variants.size(); ++i) {
    std::sort(us[i].begin(), us[i].end());
    mid[i] = us[i][us[i].size() / 2];
  }
  for (size_t i = 0; i < variants.size(); ++i)
    std::printf("%5dx%-5d %-4s %-20s %9.2f us (rounds %.2f-%.2f) %6.1f%% of memcpy\n", n, n, type_name,
                variants[i].name.c_str(), mid[i], us[i].front(), us[i].back(), 100.0 * mid[0] / mid[i]);
  std::fflush(stdout);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(wrong));
  CHECK(cudaStreamDestroy(stream));
}

}  // namespace

// Usage: walk_bands [bands|shapes|locality [rounds]]. bands: 64 x 64 and 32 x 32 tiles in bands of 1
// to all row tiles; shapes: 32 KiB tiles of every aspect, each walked rows first and columns first;
// locality: a resident grid whose blocks each walk tiles that lie together, or whose grid does.
int main(int argc, char** argv) {
  xpose::baselines::register_kernels();  // memcpy and tiled_padded_rows are baselines
  const std::string mode = argc > 1 ? argv[1] : "bands";
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  run<double>(mode, "f64", xpose::DType::f64, 8192, rounds);
  run<double>(mode, "f64", xpose::DType::f64, 16384, rounds);
  run<float>(mode, "f32", xpose::DType::f32, 8192, rounds);
  return 0;
}
