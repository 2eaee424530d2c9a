#pragma once
// Cycle conventions of a weight-stationary array with R rows (reduction, K)
// and C columns (outputs, N). A weight tile is R x C weights; M input rows
// stream through it. With T = ceil(K/R) * ceil(N/C) tiles and fast memory, a
// GEMM of M rows takes (every edge tile costs a full tile, as in both sources):
//
//   paper:      T * (M + R + C + o)
//       The EVA artifact's dense model, simulator/methods/base.py
//       get_weight_stationary_cycles: ceil(n/H)*ceil(k/W)*m + H + W, charged per
//       32x32 tile; o is the per-arch pipeline overhead (ANT 2, FIGNA 4).
//   scalesim:   T * (2R + C + M - 2 + o)
//       SCALE-Sim v2, scalesim/compute/systolic_compute_ws.py: per fold R
//       cycles of weight load, M rows of input, C - 1 of inter-fold gap and
//       R - 1 of skew (the ifmap, filter and ofmap demand matrices all have
//       2R + C + M - 2 rows per fold). SCALE-Sim reports one cycle less in some
//       versions (the last row's issue cycle); we count the completion.
//   overlapped: L + (T - 1) * max(M + o, L) + (M + o) + (R + C - 2)
//       Double-buffered weights: the next tile's weights shift into shadow
//       registers, L = ceil(tile bytes / load_bytes_per_cycle) cycles (or
//       ceil(R / load_rows_per_cycle) where that is set), while the current
//       tile streams its M rows; the first load is exposed and the array
//       drains once, R + C - 2 cycles after the last input row enters.
//
// These closed forms are what the array module produces with memory that is
// never late; with real memory the module's timing also waits for the data.
#include <algorithm>
#include <cstdint>

#include "systolic/systolic_config.hpp"

namespace eva {

inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

struct WsTiming {
  std::uint64_t rows, cols, load_cycles, overhead;
  WeightLoad mode;

  // `tile_bytes`: one R x C weight tile in its format, as the load path moves it.
  WsTiming(const SystolicConfig& c, std::uint64_t tile_bytes)
      : rows(static_cast<std::uint64_t>(c.rows)),
        cols(static_cast<std::uint64_t>(c.cols)),
        load_cycles(shadow_load_cycles(c, tile_bytes)),
        overhead(static_cast<std::uint64_t>(c.tile_overhead_cycles)),
        mode(c.weight_load) {}

  // overlapped: cycles to shift one tile into the shadow registers.
  static std::uint64_t shadow_load_cycles(const SystolicConfig& c, std::uint64_t tile_bytes) {
    if (c.load_rows_per_cycle > 0)
      return ceil_div(static_cast<std::uint64_t>(c.rows), static_cast<std::uint64_t>(c.load_rows_per_cycle));
    return std::max<std::uint64_t>(1, ceil_div(tile_bytes, static_cast<std::uint64_t>(c.load_bytes_per_cycle)));
  }

  // paper and scalesim: the whole cost of one tile of m input rows.
  std::uint64_t tile_cycles(std::uint64_t m) const {
    switch (mode) {
      case WeightLoad::paper:
        return m + rows + cols + overhead;
      case WeightLoad::scalesim:
        return 2 * rows + cols + m - 2 + overhead;
      case WeightLoad::overlapped:
        return m + overhead;  // streaming only
    }
    return 0;
  }
  // overlapped: cycles to drain the array after the last tile.
  std::uint64_t drain_cycles() const { return mode == WeightLoad::overlapped ? rows + cols - 2 : 0; }

  // Closed form for T tiles of m rows each, memory never late.
  std::uint64_t gemm_cycles(std::uint64_t tiles, std::uint64_t m) const {
    if (tiles == 0) return 0;
    if (mode != WeightLoad::overlapped) return tiles * tile_cycles(m);
    const std::uint64_t stream = m + overhead;
    return load_cycles + (tiles - 1) * std::max(stream, load_cycles) + stream + drain_cycles();
  }

  // The same over blocks of input rows: (tiles, rows) per block, in order. The
  // overlapped array keeps streaming from one block into the next.
  template <class Blocks>
  std::uint64_t gemm_cycles_blocks(const Blocks& blocks) const {
    if (mode != WeightLoad::overlapped) {
      std::uint64_t total = 0;
      for (const auto& [tiles, m] : blocks) total += tiles * tile_cycles(m);
      return total;
    }
    std::uint64_t total = 0, last_stream = 0;
    bool any = false;
    for (const auto& [tiles, m] : blocks) {
      if (tiles == 0) continue;
      const std::uint64_t stream = m + overhead;
      if (any) total += std::max(last_stream, load_cycles);  // the previous block's last tile
      total += (tiles - 1) * std::max(stream, load_cycles);
      last_stream = stream;
      any = true;
    }
    return any ? load_cycles + total + last_stream + drain_cycles() : 0;
  }
};

}  // namespace eva
