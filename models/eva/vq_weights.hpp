#pragma once
// EVA's weights in prefill mode: the INT8 array runs weight-stationary tiles
// (WsGemm), and the weights come from the VQ indices and codebooks in DRAM,
// dequantised on chip. The indices of a (block of sub-vectors, column tile)
// are read once, when the block's first reduction tile comes; codebooks once
// per op, or per group (GPTVQ). Dequantisation is a codebook lookup per
// sub-vector; it is taken to keep pace with the array (a 32 x 32 tile needs
// 32 x 32 / d lookups per codebook, against M + R + C or more array cycles
// above the prefill threshold).
#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "common/vq_format.hpp"
#include "eva/eva_tiler.hpp"
#include "systolic/ws_gemm.hpp"

namespace eva {

class VqWeights : public WeightSource {
 public:
  // `codebooks`: the codebook buffer's slot for a group's codebooks.
  VqWeights(const VqFormat& f, const EvaTiler& layout, const BufferSlot& codebooks = {})
      : m_f(f), m_layout(layout), m_codebooks(codebooks) {}

  // Timing only (EVA refuses functional prefill). The index runs of a tile go
  // into its weight slot one after the other, from its start again when they
  // outgrow it (a block's runs for several column tiles).
  Dma::Transfer fetch(Dma& dma, const GemmDescriptor& op, const WsTile& t, const BufferSlot& slot) override {
    const auto d = static_cast<std::uint64_t>(m_f.vector_dim);
    const std::uint64_t entries = 1ull << m_f.index_bits;
    const std::uint64_t block_k = m_layout.block_rows() * d;
    // Codebooks: the group this tile falls in, when it changes.
    const std::uint64_t gn = m_f.group_n ? (op.n + m_f.group_n - 1) / static_cast<std::uint64_t>(m_f.group_n) : 1;
    const std::uint64_t group = (m_f.group_k ? t.k0 / static_cast<std::uint64_t>(m_f.group_k) : 0) * gn +
                                (m_f.group_n ? t.n0 / static_cast<std::uint64_t>(m_f.group_n) : 0);
    if (!m_have_group || group != m_group) {
      const std::uint64_t bytes = static_cast<std::uint64_t>(m_f.codebooks) * entries * d * 2;
      m_last = load(dma, op.codebook_addr + group * bytes, bytes, m_codebooks);
      m_group = group;
      m_have_group = true;
    }
    if (t.k0 % block_k == 0 || t.first_k) {  // a new block of indices for this column tile
      const std::uint64_t v0 = t.k0 / d / m_layout.block_rows() * m_layout.block_rows();
      // The block's runs for the index tiles under this column tile: one
      // contiguous read per index tile and codebook.
      const std::uint64_t rows = m_layout.block_size(v0 / m_layout.block_rows());
      const std::uint64_t tc = EvaTiler::tile_cols;
      std::uint64_t offset = 0;
      for (int c = 0; c < m_f.codebooks; ++c)
        for (std::uint64_t tile = t.n0 / tc; tile * tc < t.n0 + t.n; ++tile) {
          const std::uint64_t bytes = rows * m_layout.column_bytes(m_layout.tile_width(tile));
          if (offset + bytes > slot.size) offset = 0;
          m_last = load(dma, op.weight_addr + m_layout.run_offset(c, v0, tile), bytes,
                        BufferSlot{slot.at + offset, slot.size - offset, false});
          offset = (offset + bytes) % slot.size;
        }
    }
    return m_last;
  }
  // The dequantised INT8 tile the array reads.
  std::uint64_t tile_bytes(const WsTile& t) const override { return t.k * t.n; }
  // The array's PEs take the tile dequantised, one INT8 byte a weight.
  std::uint64_t array_tile_bytes(std::uint64_t rows, std::uint64_t cols) const override { return rows * cols; }
  std::uint64_t tile_buffer_bytes(std::uint64_t rows, std::uint64_t cols) const override {
    // A block of indices for one column tile.
    return static_cast<std::uint64_t>(m_f.codebooks) * m_layout.column_bytes(m_layout.block_rows()) * cols /
           std::max<std::uint64_t>(1, m_layout.block_rows() * static_cast<std::uint64_t>(m_f.vector_dim) / rows);
  }

 private:
  // A timing-only load of `bytes` into `slot`, in pieces of at most the slot
  // when it is larger (operands this control does not tile to the buffers).
  static Dma::Transfer load(Dma& dma, std::uint64_t addr, std::uint64_t bytes, const BufferSlot& slot) {
    if (slot.size == 0) throw std::logic_error("VqWeights: a load into an empty buffer slot");
    Dma::Transfer last;
    for (std::uint64_t done = 0; done < bytes;) {
      const std::uint64_t piece = std::min(bytes - done, slot.size);
      last = dma.start_load(addr + done, piece, 1, piece, slot.at, true);
      done += piece;
    }
    return last;
  }

  VqFormat m_f;
  EvaTiler m_layout;
  BufferSlot m_codebooks;
  Dma::Transfer m_last;
  std::uint64_t m_group = 0;
  bool m_have_group = false;
};

}  // namespace eva
