#pragma once
// EVA's weights in prefill mode: the INT8 array runs weight-stationary tiles
// (WsGemm), and the weights come from the VQ indices and codebooks in DRAM,
// dequantised on chip. The indices of a (block of sub-vectors, column tile)
// are read once, when the block's first reduction tile comes; codebooks once
// per op, or per group (GPTVQ). Dequantisation is a codebook lookup per
// sub-vector; it is taken to keep pace with the array (a 32 x 32 tile needs
// 32 x 32 / d lookups per codebook, against M + R + C or more array cycles
// above the prefill threshold).
#include <cstdint>

#include "common/vq_format.hpp"
#include "eva/eva_tiler.hpp"
#include "systolic/ws_gemm.hpp"

namespace eva {

class VqWeights : public WeightSource {
 public:
  VqWeights(const VqFormat& f, const EvaTiler& layout) : m_f(f), m_layout(layout) {}

  // Timing only (EVA refuses functional prefill): `dst` stays unused.
  Dma::Transfer fetch(Dma& dma, const GemmDescriptor& op, const WsTile& t, std::uint8_t*) override {
    const auto d = static_cast<std::uint64_t>(m_f.vector_dim);
    const std::uint64_t entries = 1ull << m_f.index_bits;
    const std::uint64_t block_k = m_layout.block_rows() * d;
    // Codebooks: the group this tile falls in, when it changes.
    const std::uint64_t gn = m_f.group_n ? (op.n + m_f.group_n - 1) / static_cast<std::uint64_t>(m_f.group_n) : 1;
    const std::uint64_t group = (m_f.group_k ? t.k0 / static_cast<std::uint64_t>(m_f.group_k) : 0) * gn +
                                (m_f.group_n ? t.n0 / static_cast<std::uint64_t>(m_f.group_n) : 0);
    if (!m_have_group || group != m_group) {
      const std::uint64_t bytes = static_cast<std::uint64_t>(m_f.codebooks) * entries * d * 2;
      m_last = dma.start_read(op.codebook_addr + group * bytes, bytes, 1, bytes, nullptr);
      m_group = group;
      m_have_group = true;
    }
    if (t.k0 % block_k == 0 || t.first_k) {  // a new block of indices for this column tile
      const std::uint64_t v0 = t.k0 / d / m_layout.block_rows() * m_layout.block_rows();
      // The block's runs for the index tiles under this column tile: one
      // contiguous read per index tile and codebook.
      const std::uint64_t rows = m_layout.block_size(v0 / m_layout.block_rows());
      const std::uint64_t tc = EvaTiler::tile_cols;
      for (int c = 0; c < m_f.codebooks; ++c)
        for (std::uint64_t tile = t.n0 / tc; tile * tc < t.n0 + t.n; ++tile) {
          const std::uint64_t bytes = rows * m_layout.column_bytes(m_layout.tile_width(tile));
          m_last = dma.start_read(op.weight_addr + m_layout.run_offset(c, v0, tile), bytes, 1, bytes, nullptr);
        }
    }
    return m_last;
  }
  // The dequantised INT8 tile the array reads.
  std::uint64_t tile_bytes(const WsTile& t) const override { return t.k * t.n; }
  std::uint64_t tile_buffer_bytes(std::uint64_t rows, std::uint64_t cols) const override {
    // A block of indices for one column tile.
    return static_cast<std::uint64_t>(m_f.codebooks) * m_layout.column_bytes(m_layout.block_rows()) * cols /
           std::max<std::uint64_t>(1, m_layout.block_rows() * static_cast<std::uint64_t>(m_f.vector_dim) / rows);
  }

 private:
  VqFormat m_f;
  EvaTiler m_layout;
  Dma::Transfer m_last;
  std::uint64_t m_group = 0;
  bool m_have_group = false;
};

}  // namespace eva
