// SPDX-License-Identifier: Apache-2.0
#include "cuda/tile_launch.hpp"

#include <string>

#include "cuda/tuning.hpp"

namespace xpose::cuda {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The launch of tuning entry T as shape `id` (its partial-row form: T's kUnmasked and
// kPartialRowsForm, which only unaligned entries have).
template <class T>
TileLaunch shape_of(TileShapeId id, bool partial_rows_form = false) {
  TileLaunch launch;
  launch.shape = id;
  launch.rows = T::kRows;
  launch.cols = T::kCols;
  launch.threads = T::kThreads;
  launch.min_blocks = T::kMinBlocks;
  launch.partial_rows = partial_rows_form;  // until the view says whether it needs the form
  return launch;
}

template <class T>
constexpr bool partial_rows_form() {
  return T::kUnmasked && T::kPartialRowsForm;
}

// Whether a view gives a large shape too few tiles to keep every SM busy (the compact rule).
template <class Large>
bool too_few_large_tiles(const detail::Transpose2D& p, int sms) {
  const int64_t large_tiles = ceil_div(p.rows, Large::kRows) * ceil_div(p.cols, Large::kCols) * p.batch;
  return large_tiles < int64_t{kLargeTilesPerSmForLarge} * sms;
}

// The share of the tiles of a rows x cols shape that view `p`'s matrices fill.
double tile_fill(const detail::Transpose2D& p, int rows, int cols) {
  return static_cast<double>(p.rows) * static_cast<double>(p.cols) /
         (static_cast<double>(ceil_div(p.rows, rows) * rows) * static_cast<double>(ceil_div(p.cols, cols) * cols));
}

// Whether view `p` takes the compact shape Compact instead of `launch` because its matrices fill
// Compact's tiles kCompactFillAdvantage times better, or fill launch's under the `min_fill` that
// shape needs. Only matrices of at most kCompactFillMaxLargeTiles of launch's tiles: the rule was
// measured on medium matrices, and larger flat and tall ones keep their shapes (the partial-row
// form, the tall u8 shape) whatever the batch.
template <class Compact>
bool compact_fills_better(const detail::Transpose2D& p, const TileLaunch& launch, double min_fill = 0) {
  if (ceil_div(p.rows, launch.rows) * ceil_div(p.cols, launch.cols) > kCompactFillMaxLargeTiles) return false;
  const double fill = tile_fill(p, launch.rows, launch.cols);
  return fill < min_fill || tile_fill(p, Compact::kRows, Compact::kCols) > kCompactFillAdvantage * fill;
}

// The unaligned u8 compact shape ran 14-23 points under the large one on batches it filled as
// well (H200: 350 x 104 batch 54 -> 31% of memcpy) and won only on matrices small_batch takes.
template <int Size>
constexpr bool unaligned_compact_takes_fill_rule = Size != 1;

// The views of few row tiles of `rows` rows, the last partial (the partial-row instantiation's).
bool few_row_tiles_last_partial(const detail::Transpose2D& p, int rows) {
  return p.rows % rows != 0 && ceil_div(p.rows, rows) <= kPartialFormMaxRowTiles;
}

// The 1-, 2-, 4- and 16-byte shapes of tile_kernel.cu, before the walk.
template <int Size>
TileLaunch tile_shape(const detail::Transpose2D& p, const DeviceInfo& device, const TilePointers& pointers, int sms) {
  // The aligned shapes need 16-byte rows, but their tiles store exactly their output row
  // segments, so output rows 16 bytes off 32-byte sectors leave every tile boundary inside a
  // sector, written half by each tile; the unaligned shapes store each aligned vector whole once
  // and take such views (tuning.hpp, kOutputSectorBytes). 16-byte elements are always aligned:
  // Plan::execute rejects pointers not aligned to the element.
  const bool aligned = Size == 16 || (pointers.input_rows_on_16 && pointers.output_rows_on_sector);
  if (aligned) {
    using Large = TileTuning<Size, false>;
    using Compact = TileTuning<Size, true>;
    const TileLaunch compact = shape_of<Compact>(TileShapeId::aligned_compact);
    if (too_few_large_tiles<Large>(p, sms)) return compact;
    TileLaunch large = shape_of<Large>(TileShapeId::aligned);
    if constexpr (DeviceTileTuning<Size>::kFasterOn != BandwidthPerSm::none)
      if (entry_applies(DeviceTileTuning<Size>::kFasterOn, device))
        large = shape_of<DeviceTileTuning<Size>>(TileShapeId::aligned_device);
    return Size != 16 && compact_fills_better<Compact>(p, large) ? compact : large;
  }
  if constexpr (Size == 16) {
    return {};  // not reached
  } else {
    using Large = UnalignedTileTuning<Size, false>;
    using Compact = UnalignedTileTuning<Size, true>;
    const TileLaunch compact = shape_of<Compact>(TileShapeId::unaligned_compact, partial_rows_form<Compact>());
    // u8 views of many rows: the tall shape, on the class of device it was measured faster on.
    if constexpr (Size == 1) {
      using T = UnalignedTallU8Tuning;
      const int64_t tiles = ceil_div(p.rows, T::kRows) * ceil_div(p.cols, T::kCols) * p.batch;
      if (p.rows >= T::kMinRows && tiles >= int64_t{T::kMinTilesPerSm} * sms && entry_applies(T::kFasterOn, device))
        return shape_of<T>(TileShapeId::unaligned_tall_u8, partial_rows_form<T>());
    }
    if (too_few_large_tiles<Large>(p, sms)) return compact;
    // The device class's own shape, for the views that take the large one.
    if constexpr (DeviceUnalignedTileTuning<Size>::kFasterOn != BandwidthPerSm::none)
      if (entry_applies(DeviceUnalignedTileTuning<Size>::kFasterOn, device)) {
        using Device = DeviceUnalignedTileTuning<Size>;
        const TileLaunch own = shape_of<Device>(TileShapeId::unaligned_device, partial_rows_form<Device>());
        return unaligned_compact_takes_fill_rule<Size> && compact_fills_better<Compact>(p, own, Device::kMinFill)
                   ? compact
                   : own;
      }
    // Views that take the large shape with few row tiles of it, the last partial: the shape with
    // the partial-row instantiation, which the large one lacks.
    static_assert(partial_rows_form<UnalignedPartialRowsTuning<Size>>() && !partial_rows_form<Large>(),
                  "one shape each");
    const TileLaunch large = few_row_tiles_last_partial(p, Large::kRows)
                                 ? shape_of<UnalignedPartialRowsTuning<Size>>(TileShapeId::unaligned_partial_rows, true)
                                 : shape_of<Large>(TileShapeId::unaligned, false);
    return unaligned_compact_takes_fill_rule<Size> && compact_fills_better<Compact>(p, large) ? compact : large;
  }
}

// 8-byte elements: the element form (element_tile_kernel.cu), walk included.
TileLaunch element_launch(const detail::Transpose2D& p, const DeviceInfo& device, const TilePointers& pointers,
                          int sms) {
  using Square = ElementTileTuning<ElementShape::square>;
  using Wide = ElementTileTuning<ElementShape::wide>;
  static_assert(Square::kRows * Square::kCols == Wide::kRows * Wide::kCols,
                "the large shapes hold as many elements, so the compact rule can count either");
  const bool block_rows = pointers.input_rows_on_dram_block;
  const int64_t row_tiles = ceil_div(p.rows, Square::kRows);
  TileLaunch launch;
  if (row_tiles * ceil_div(p.cols, Square::kCols) * p.batch < int64_t{kLargeTilesPerSmForLarge} * sms) {
    launch = shape_of<ElementTileTuning<ElementShape::compact>>(TileShapeId::element_compact);
    launch.block_rows = block_rows;
  } else if (!block_rows) {
    launch = shape_of<Square>(TileShapeId::element_square);
  } else if (entry_applies(ElementTileTuning<ElementShape::fine>::kFasterOn, device)) {
    launch = shape_of<ElementTileTuning<ElementShape::fine>>(TileShapeId::element_fine);
    launch.block_rows = true;
  } else {
    // Fewer than two columns of square tiles in flight (2 blocks per SM): the wide shape.
    launch = row_tiles > sms ? shape_of<Wide>(TileShapeId::element_wide)
                             : shape_of<Square>(TileShapeId::element_square);
    launch.block_rows = true;
  }
  // The fine shape walks column tiles fastest where each output row segment of a tile (32
  // elements: 256 bytes) is a whole DRAM block, rows fastest where the output rows start off
  // blocks, so that the tiles sharing an output block run together.
  if (launch.shape == TileShapeId::element_fine)
    launch.walk = pointers.output_rows_on_dram_block ? TileWalk::columns_fastest : TileWalk::rows_fastest;
  else
    launch.walk = tile_walk(ceil_div(p.rows, launch.rows), ceil_div(p.cols, launch.cols), launch.min_blocks, sms,
                            launch.cols * 8, launch.block_rows);
  return launch;
}

}  // namespace

TileWalk tile_walk(int64_t row_tiles, int64_t col_tiles, int min_blocks_per_sm, int sms, int tile_row_bytes,
                   bool rows_on_blocks) {
  const bool columns_share_blocks = !(rows_on_blocks && tile_row_bytes % kDramBlock == 0);
  const int64_t resident = int64_t{min_blocks_per_sm} * sms;
  const bool columns_fastest =
      min_blocks_per_sm > 1 && columns_share_blocks && row_tiles > resident && col_tiles * 4 <= resident;
  return columns_fastest ? TileWalk::columns_fastest : TileWalk::rows_fastest;
}

const char* name_of(TileShapeId shape) {
  switch (shape) {
    case TileShapeId::aligned: return "aligned";
    case TileShapeId::aligned_compact: return "aligned_compact";
    case TileShapeId::aligned_device: return "aligned_device";
    case TileShapeId::unaligned: return "unaligned";
    case TileShapeId::unaligned_compact: return "unaligned_compact";
    case TileShapeId::unaligned_device: return "unaligned_device";
    case TileShapeId::unaligned_partial_rows: return "unaligned_partial_rows";
    case TileShapeId::unaligned_tall_u8: return "unaligned_tall_u8";
    case TileShapeId::element_square: return "element_square";
    case TileShapeId::element_wide: return "element_wide";
    case TileShapeId::element_compact: return "element_compact";
    case TileShapeId::element_fine: return "element_fine";
  }
  return "?";
}

std::string TileLaunch::describe() const {
  std::string text = std::string(name_of(shape)) + " " + std::to_string(rows) + "x" + std::to_string(cols) + ", " +
                     std::to_string(threads) + " threads, " + std::to_string(min_blocks) + " blocks/SM, " +
                     (walk == TileWalk::columns_fastest ? "columns fastest" : "rows fastest");
  if (partial_rows) text += ", partial-row form";
  if (block_rows) text += ", whole-block loads";
  return text;
}

TilePointers tile_pointers(const detail::Transpose2D& p, const void* in, const void* out) {
  const int64_t sector = p.elem_size < 16 ? kOutputSectorBytes<1> : kOutputSectorBytes<16>;
  TilePointers pointers;
  pointers.input_rows_on_16 = input_rows_start_on(16, in, p);
  pointers.output_rows_on_sector = output_rows_start_on(sector, out, p);
  pointers.input_rows_on_dram_block = input_rows_start_on(kDramBlock, in, p);
  pointers.output_rows_on_dram_block = output_rows_start_on(kDramBlock, out, p);
  return pointers;
}

std::string describe_tile_launches(const detail::Transpose2D& p, const DeviceInfo& device) {
  // Pointers as cudaMalloc returns them (on 256 bytes), then one element further.
  const auto* on_blocks = reinterpret_cast<const unsigned char*>(uintptr_t{256});
  std::string text = select_tile_launch(p, device, tile_pointers(p, on_blocks, on_blocks)).describe();
  if (p.elem_size < 16) {
    const auto* off = on_blocks + p.elem_size;
    const std::string off_16 = select_tile_launch(p, device, tile_pointers(p, off, off)).describe();
    if (off_16 != text) text += "; pointers off 16 bytes: " + off_16;
  }
  return text;
}

TileLaunch select_tile_launch(const detail::Transpose2D& p, const DeviceInfo& device, const TilePointers& pointers) {
  const int sms = device.multiprocessors > 0 ? device.multiprocessors : 132;
  if (p.elem_size == 8) return element_launch(p, device, pointers, sms);
  TileLaunch launch;
  switch (p.elem_size) {
    case 1: launch = tile_shape<1>(p, device, pointers, sms); break;
    case 2: launch = tile_shape<2>(p, device, pointers, sms); break;
    case 4: launch = tile_shape<4>(p, device, pointers, sms); break;
    default: launch = tile_shape<16>(p, device, pointers, sms); break;
  }
  // The partial-row instantiation where the shape has one and the view has few row tiles, the
  // last partial.
  launch.partial_rows = launch.partial_rows && few_row_tiles_last_partial(p, launch.rows);
  launch.walk = tile_walk(ceil_div(p.rows, launch.rows), ceil_div(p.cols, launch.cols), launch.min_blocks, sms,
                          launch.cols * p.elem_size, pointers.input_rows_on_dram_block);
  return launch;
}

}  // namespace xpose::cuda
