#pragma once
// How EVA's control cuts a VQ layer (M x K activations, K x N VQ weights)
// into passes, and where the weights sit in DRAM. Plain C++.
//
// A pass is one (input-row tile, reduction tile, column block, codebook,
// entry tile): the array computes the output codebook OC for the pass's
// sub-vectors (rows = sub-vectors x input rows, one per OC bank) against one
// codebook's entries, then the epilogue looks up and adds OC entries for every
// column of the block. Passes run in order: rows outer, then reduction tiles
// (sub-vector tiles), column blocks (one, or one per GPTVQ group), codebooks
// and entry tiles (one unless a codebook has more entries than an OC bank
// holds).
//
// Index layout in DRAM, per codebook: blocks of `block_rows` sub-vectors; in a
// block, column tiles of 32 columns; in a tile, one run per sub-vector of the
// tile's indices (index_bits each, LSB first, padded to a byte). So the
// weight-stationary prefill array reads a block's column tile as one
// contiguous run, and a decode pass, for its sub-vectors, one run per column
// tile (32 x its sub-vectors indices: at least 128 B at 8-bit indices).
#include <algorithm>
#include <cstdint>

#include "common/vq_format.hpp"
#include "eva/eva_sizes.hpp"

namespace eva {

struct EvaPass {
  std::uint64_t m0 = 0, m = 0;  // input rows
  std::uint64_t v0 = 0, v = 0;  // sub-vectors (rows of K / d)
  std::uint64_t n0 = 0, n = 0;  // output columns
  int codebook = 0;
  std::uint64_t e0 = 0, e = 0;  // entries of the codebook in this pass
  std::uint64_t group = 0;      // codebook group (GPTVQ), else 0
  bool first_of_rows = false;   // the first pass of its input-row tile
  bool first_of_tile = false;   // the first pass of its reduction tile (new activations)
  bool last_of_rows = false;    // the last pass of its input-row tile (outputs complete)
  bool new_codebook = false;    // needs codebook data different from the previous pass's
};

class EvaTiler {
 public:
  // lookups: what the epilogue adds per column per cycle (units x adder
  // inputs); depth: OC entries per bank.
  EvaTiler(std::uint64_t m, std::uint64_t k, std::uint64_t n, const VqFormat& f, std::uint64_t lookups,
           std::uint64_t depth)
      : m_m(m), m_n(n), m_f(f), m_block_rows(pow2_floor(lookups)) {
    const auto d = static_cast<std::uint64_t>(f.vector_dim);
    m_v = k / d;
    m_entries = 1ull << f.index_bits;
    m_etile = std::min(m_entries, depth);
    m_etiles = (m_entries + m_etile - 1) / m_etile;
    // Input rows per tile: as many as the epilogue adds in one cycle with at
    // least one sub-vector each; sub-vectors per tile: a power of two that
    // fills the adder trees for those rows, within a block and a GPTVQ group
    // (so a tile never straddles either).
    m_mt = std::min(m, m_block_rows);
    m_vt = pow2_floor(std::max<std::uint64_t>(1, m_block_rows / m_mt));
    if (f.group_k) m_vt = std::min(m_vt, pow2_floor(static_cast<std::uint64_t>(f.group_k) / d));
    m_nblock = f.group_n ? static_cast<std::uint64_t>(f.group_n) : n;
  }

  std::uint64_t rows_tiles() const { return ceil(m_m, m_mt); }
  std::uint64_t v_tiles() const {
    if (!m_f.group_k) return ceil(m_v, m_vt);
    // Tiles never straddle a group: per group, ceil(group sub-vectors / vt).
    const std::uint64_t gv = static_cast<std::uint64_t>(m_f.group_k) / static_cast<std::uint64_t>(m_f.vector_dim);
    return (m_v / gv) * ceil(gv, m_vt) + ceil(m_v % gv, m_vt);
  }
  std::uint64_t n_blocks() const { return ceil(m_n, m_nblock); }
  std::uint64_t passes_per_tile() const { return n_blocks() * static_cast<std::uint64_t>(m_f.codebooks) * m_etiles; }
  std::uint64_t size() const { return rows_tiles() * v_tiles() * passes_per_tile(); }
  bool codebooks_resident() const { return m_etiles == 1 && !m_f.group_k && !m_f.group_n; }
  std::uint64_t block_rows() const { return m_block_rows; }

  EvaPass at(std::uint64_t i) const {
    EvaPass p;
    const std::uint64_t per_rows = v_tiles() * passes_per_tile();
    const std::uint64_t rt = i / per_rows, in_rows = i % per_rows;
    const std::uint64_t vt = in_rows / passes_per_tile(), in_tile = in_rows % passes_per_tile();
    const std::uint64_t nb = in_tile / (static_cast<std::uint64_t>(m_f.codebooks) * m_etiles);
    const std::uint64_t rest = in_tile % (static_cast<std::uint64_t>(m_f.codebooks) * m_etiles);
    p.codebook = static_cast<int>(rest / m_etiles);
    const std::uint64_t et = rest % m_etiles;
    p.m0 = rt * m_mt;
    p.m = std::min(m_mt, m_m - p.m0);
    locate_v(vt, p.v0, p.v);
    p.n0 = nb * m_nblock;
    p.n = std::min(m_nblock, m_n - p.n0);
    p.e0 = et * m_etile;
    p.e = std::min(m_etile, m_entries - p.e0);
    const auto d = static_cast<std::uint64_t>(m_f.vector_dim);
    p.group =
        (m_f.group_k ? (p.v0 * d) / static_cast<std::uint64_t>(m_f.group_k) : 0) * n_blocks() + (m_f.group_n ? nb : 0);
    p.first_of_rows = in_rows == 0;
    p.first_of_tile = in_tile == 0;
    p.last_of_rows = in_rows + 1 == per_rows;
    // With one group and one entry tile, every codebook is loaded once and
    // stays; otherwise each pass loads its own slice.
    p.new_codebook = i == 0 || !codebooks_resident();
    return p;
  }

  // DRAM layout of the indices.
  static constexpr std::uint64_t tile_cols = 32;           // the prefill array's columns
  std::uint64_t column_bytes(std::uint64_t count) const {  // `count` indices, packed
    return (count * static_cast<std::uint64_t>(m_f.index_bits) + 7) / 8;
  }
  std::uint64_t tile_width(std::uint64_t tile) const { return std::min(tile_cols, m_n - tile * tile_cols); }
  std::uint64_t block_size(std::uint64_t block) const { return std::min(m_block_rows, m_v - block * m_block_rows); }
  // One sub-vector's N indices, tile by tile.
  std::uint64_t row_bytes() const { return m_n / tile_cols * column_bytes(tile_cols) + column_bytes(m_n % tile_cols); }
  std::uint64_t index_bytes() const {  // all of them
    return static_cast<std::uint64_t>(m_f.codebooks) * m_v * row_bytes();
  }
  // Where sub-vector v's run in column tile `tile` of codebook c starts; the
  // runs of a block's consecutive sub-vectors follow each other.
  std::uint64_t run_offset(int c, std::uint64_t v, std::uint64_t tile) const {
    const std::uint64_t block = v / m_block_rows;
    return (static_cast<std::uint64_t>(c) * m_v + block * m_block_rows) * row_bytes() +
           tile * block_size(block) * column_bytes(tile_cols) + (v % m_block_rows) * column_bytes(tile_width(tile));
  }

 private:
  static std::uint64_t ceil(std::uint64_t a, std::uint64_t b) { return b ? (a + b - 1) / b : 0; }
  void locate_v(std::uint64_t tile, std::uint64_t& v0, std::uint64_t& v) const {
    if (!m_f.group_k) {
      v0 = tile * m_vt;
      v = std::min(m_vt, m_v - v0);
      return;
    }
    const std::uint64_t gv = static_cast<std::uint64_t>(m_f.group_k) / static_cast<std::uint64_t>(m_f.vector_dim);
    const std::uint64_t per_group = ceil(gv, m_vt);
    const std::uint64_t g = tile / per_group, t = tile % per_group;
    v0 = g * gv + t * m_vt;
    v = std::min({m_vt, gv - t * m_vt, m_v - v0});
  }

  std::uint64_t m_m, m_n;  // K is m_v sub-vectors
  VqFormat m_f;
  std::uint64_t m_block_rows, m_v = 0, m_entries = 0, m_etile = 0, m_etiles = 0;
  std::uint64_t m_mt = 0, m_vt = 0, m_nblock = 0;
};

}  // namespace eva
