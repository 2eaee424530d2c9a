#pragma once
// Host-side packing of a dense K x N weight matrix into the tile-major layout
// the weight-stationary control reads (WsTiler: tiles in (column tile,
// reduction tile) order, each row-major K x N, packed without padding).
#include <cstdint>
#include <vector>

#include "common/accel_config.hpp"
#include "common/vq_math.hpp"
#include "systolic/ws_tiler.hpp"

namespace eva {

// `codes` row-major K x N, `bits` each (two's complement codes masked);
// codes are packed LSB first (pack_index).
inline std::vector<std::uint8_t> pack_tile_major(const std::vector<std::uint32_t>& codes, std::uint64_t k,
                                                 std::uint64_t n, std::uint64_t tile_k, std::uint64_t tile_n,
                                                 int bits) {
  std::vector<std::uint8_t> out(packed_bytes(k * n, bits), 0);
  const WsTiler tiler(1, k, n, tile_k, tile_n, 1);
  const std::uint32_t mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1u;
  for (std::uint64_t i = 0; i < tiler.tiles_per_block(); ++i) {
    const WsTile t = tiler.at(i);
    for (std::uint64_t kk = 0; kk < t.k; ++kk)
      for (std::uint64_t nn = 0; nn < t.n; ++nn) {
        const std::uint64_t element = t.weight_offset + kk * t.n + nn;
        pack_index(out.data(), element, bits, codes[(t.k0 + kk) * n + t.n0 + nn] & mask);
      }
  }
  return out;
}

}  // namespace eva
