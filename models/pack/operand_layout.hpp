#pragma once
// Every architecture's operand layouts in DRAM, host side (docs/MEMORY-LAYOUT.md):
// the encoders behind Accelerator::encode_gemm and the VQ index images behind
// Accelerator::vq_index_image. Plain C++ on configuration structs; the
// accelerators call these, so the host and the models share one layout.
#include <cstdint>
#include <vector>

#include "arch/arch_config.hpp"
#include "common/vq_math.hpp"
#include "eva/eva_sizes.hpp"
#include "eva/eva_tiler.hpp"
#include "pack/encoded_gemm.hpp"
#include "systolic/ws_tiler.hpp"

namespace eva {

// A weight-stationary array's weight tile: tile_k x tile_n elements, weights
// fetched in `passes` passes (FIGLUT's bit-plane groups; 1 elsewhere).
struct WsGeometry {
  std::uint64_t tile_k = 0, tile_n = 0, passes = 1;
};

// sa and figna: one weight per PE, tile = systolic.rows x systolic.cols.
WsGeometry ws_geometry(const SystolicConfig& s);
// ant: a 4-bit operand doubles the tile along its dimension (8 / max(bits, 4)).
WsGeometry ant_geometry(const SystolicConfig& s, const FormatConfig& f);
// figlut: tile_k = cols x mu x ceil(mpus / planes), tile_n = rows x racs_per_pe,
// passes = ceil(planes / mpus), planes = f.weight_bits.
WsGeometry figlut_geometry(const SystolicConfig& s, const FiglutConfig& c, const FormatConfig& f);

// FIGLUT's bit-plane weights: for tile t of a K-long matrix, its byte offset
// n0 * planes * ceil(K/8) + planes * t.n * (t.k0 / 8) + t.pass * mpus * t.n * ceil(t.k/8);
// the whole image is N * planes * ceil(K/8) bytes.
std::uint64_t bytes_for_bits(std::uint64_t bits);
std::uint64_t figlut_planes_in(std::uint64_t planes, std::uint64_t mpus, std::uint64_t pass);
std::uint64_t figlut_tile_offset(std::uint64_t planes, std::uint64_t mpus, const WsTile& t, std::uint64_t k);
std::uint64_t figlut_weight_bytes(int planes, std::uint64_t n, std::uint64_t k);

// Dense encoders: x (M x K) and W (K x N), row-major floats.
EncodedGemm encode_int_gemm(const FormatConfig& f, const std::vector<float>& x, const std::vector<float>& w,
                            std::uint64_t m, std::uint64_t n, std::uint64_t k, const WsGeometry& g);
EncodedGemm encode_ant_gemm(const FormatConfig& f, const std::vector<float>& x, const std::vector<float>& w,
                            std::uint64_t m, std::uint64_t n, std::uint64_t k, const WsGeometry& g);
EncodedGemm encode_figna_gemm(const FormatConfig& f, const SystolicConfig& s, const std::vector<float>& x,
                              const std::vector<float>& w, std::uint64_t m, std::uint64_t n, std::uint64_t k);
EncodedGemm encode_figlut_gemm(const FormatConfig& f, const FiglutConfig& c, const WsGeometry& g,
                               const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                               std::uint64_t n, std::uint64_t k);

// EVA: lookups per cycle and the OC SRAM's depth per region (eva/eva_sizes.hpp)
// set the index tiling (EvaTiler).
EvaTiler eva_tiler(const VqFormat& f, const EpilogueConfig& e, const SramConfig& oc, std::uint64_t m, std::uint64_t k,
                   std::uint64_t n);
std::vector<std::uint8_t> eva_index_image(const EvaTiler& t, const VqMatrix& w);
// vq-conflict: per codebook c and sub-vector v, a row of N indices packed LSB
// first, ceil(N * bits / 8) bytes, at (c * K/d + v) * row.
std::vector<std::uint8_t> vq_conflict_index_image(const VqMatrix& w);

// By architecture (the same calls the accelerators make). encode_gemm throws
// InputError for the VQ architectures (vq_index_image for them) and
// vq_index_image for the dense ones.
EncodedGemm encode_gemm(const ArchConfig& c, const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                        std::uint64_t n, std::uint64_t k);
std::vector<std::uint8_t> vq_index_image(const ArchConfig& c, const VqMatrix& w, std::uint64_t m);

}  // namespace eva
