#pragma once
// Tiling of a GEMM for a weight-stationary array: blocks of at most m_tile
// input rows (outer), then groups of `group` output-column tiles of C, then
// reduction tiles of R, then the column tiles of the group (so the group's
// partial sums stay in the output buffer and an input slice serves the whole
// group), then passes over the same tile (bit-serial arrays take a tile's
// weight bit-planes in several passes). With group 1 this is column tiles,
// then reduction tiles. Tiles are computed from their index, so a plan costs
// no memory whatever the shape.
//
// Weights are stored tile-major in (column tile, reduction tile) order, each
// tile packed without padding: the array reads DRAM sequentially and edge
// tiles cost only their real bytes.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "systolic/ws_timing.hpp"

namespace eva {

struct WsTile {
  std::uint64_t block = 0;                       // index of the input-row block
  std::uint64_t m0 = 0, m = 0;                   // input rows
  std::uint64_t k0 = 0, k = 0;                   // reduction rows of the tile
  std::uint64_t n0 = 0, n = 0;                   // output columns of the tile
  std::uint64_t pass = 0;                        // pass over this (k, n) tile
  bool group_first = false, group_last = false;  // first / last tile of its group at this k
  bool first_k = false, last_k = false;
  bool first_in_block = false, last_in_block = false;
  std::uint64_t weight_offset = 0;  // in elements from the start of W
};

class WsTiler {
 public:
  WsTiler(std::uint64_t m, std::uint64_t k, std::uint64_t n, std::uint64_t rows, std::uint64_t cols,
          std::uint64_t m_tile, std::uint64_t passes = 1, std::uint64_t group = 1)
      : m_m(m),
        m_k(k),
        m_n(n),
        m_rows(rows),
        m_cols(cols),
        m_blocks(ceil_div(m, m_tile)),
        m_ktiles(ceil_div(k, rows)),
        m_ntiles(ceil_div(n, cols)),
        m_passes(passes),
        m_group(std::max<std::uint64_t>(1, std::min(group, m_ntiles))) {}

  std::uint64_t size() const { return m_blocks * tiles_per_block(); }
  std::uint64_t tiles_per_block() const { return m_ktiles * m_ntiles * m_passes; }
  std::uint64_t blocks() const { return m_blocks; }
  std::uint64_t rows() const { return m_rows; }  // a weight tile's K extent
  std::uint64_t cols() const { return m_cols; }  // and its N extent
  std::uint64_t n_tiles() const { return m_ntiles; }
  std::uint64_t passes() const { return m_passes; }

  // Rows of block b: balanced, the first (M mod blocks) blocks one larger.
  std::uint64_t block_rows(std::uint64_t b) const { return m_m / m_blocks + (b < m_m % m_blocks ? 1 : 0); }
  std::uint64_t block_start(std::uint64_t b) const { return b * (m_m / m_blocks) + std::min(b, m_m % m_blocks); }

  WsTile at(std::uint64_t i) const {
    WsTile t;
    t.block = i / tiles_per_block();
    const std::uint64_t r = i % tiles_per_block();
    // The group, then the reduction tile, column tile and pass within it.
    const std::uint64_t per_full = m_ktiles * m_group * m_passes, full_groups = m_ntiles / m_group;
    const std::uint64_t g = std::min(r / per_full, full_groups);
    const std::uint64_t size = g < full_groups ? m_group : m_ntiles % m_group;
    const std::uint64_t rr = r - g * per_full;
    const std::uint64_t kt = rr / (size * m_passes), q = rr % (size * m_passes);
    const std::uint64_t nt = g * m_group + q / m_passes;
    t.pass = q % m_passes;
    t.group_first = q == 0;
    t.group_last = q + 1 == size * m_passes;
    t.m0 = block_start(t.block);
    t.m = block_rows(t.block);
    t.k0 = kt * m_rows;
    t.k = std::min(m_rows, m_k - t.k0);
    t.n0 = nt * m_cols;
    t.n = std::min(m_cols, m_n - t.n0);
    t.first_k = kt == 0 && t.pass == 0;
    t.last_k = kt + 1 == m_ktiles && t.pass + 1 == m_passes;
    t.first_in_block = r == 0;
    t.last_in_block = r + 1 == tiles_per_block();
    t.weight_offset = t.n0 * m_k + t.k0 * t.n;
    return t;
  }

  // (tiles, rows) per block, for WsTiming::gemm_cycles_blocks.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> timing_blocks() const {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    for (std::uint64_t b = 0; b < m_blocks; ++b) out.emplace_back(tiles_per_block(), block_rows(b));
    return out;
  }

 private:
  std::uint64_t m_m, m_k, m_n, m_rows, m_cols, m_blocks, m_ktiles, m_ntiles, m_passes, m_group;
};

}  // namespace eva
