#pragma once
// The plain integer array's arithmetic (sa): symmetric two's complement
// activations (one scale per tensor) and weights (one scale per output
// channel), exact integer accumulation, requantisation of each output to a
// signed integer of formats.out_bits with one output scale:
//   y_q[n] = clamp(round(acc[n] * s_a * s_w[n] / s_y))
// Parameters in DRAM (float32): s_a, s_y, then s_w[0..N).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/accel_config.hpp"
#include "common/accelerator.hpp"
#include "common/int_quant.hpp"
#include "common/vq_math.hpp"
#include "systolic/tile_layout.hpp"
#include "systolic/ws_gemm.hpp"

namespace eva {

class IntDatapath : public WsDatapath {
 public:
  explicit IntDatapath(const FormatConfig& f) : m_f(f) {}

  std::uint64_t parameter_bytes(const GemmDescriptor& op) const override { return 4 * (2 + op.n); }
  void set_parameters(const GemmDescriptor& op, const std::vector<std::uint8_t>& bytes) override {
    std::vector<float> p(2 + op.n);
    std::memcpy(p.data(), bytes.data(), p.size() * 4);
    m_act_scale = p[0];
    m_out_scale = p[1];
    m_weight_scale.assign(p.begin() + 2, p.end());
  }
  void tile(const WsTile& t, const std::uint8_t* input, std::uint64_t first, std::uint64_t row_elems,
            const std::uint8_t* weights, double* acc) override {
    for (std::uint64_t mm = 0; mm < t.m; ++mm)
      for (std::uint64_t kk = 0; kk < t.k; ++kk) {
        const std::int64_t a =
            sign_extend(unpack_index(input, first + mm * row_elems + kk, m_f.act_bits), m_f.act_bits);
        if (a == 0) continue;
        for (std::uint64_t nn = 0; nn < t.n; ++nn)
          acc[mm * t.n + nn] += static_cast<double>(
              a * sign_extend(unpack_index(weights, kk * t.n + nn, m_f.weight_bits), m_f.weight_bits));
      }
  }
  void finish(const WsTile& t, const double* acc, std::uint8_t* out) override {
    for (std::uint64_t mm = 0; mm < t.m; ++mm)
      for (std::uint64_t nn = 0; nn < t.n; ++nn) {
        const double y = acc[mm * t.n + nn] * m_act_scale * m_weight_scale[t.n0 + nn];
        const std::int64_t q = quantize_symmetric(y, m_out_scale, m_f.out_bits);
        pack_index(out, mm * t.n + nn, m_f.out_bits, static_cast<std::uint32_t>(q));
      }
  }

  // Host side: pack/operand_layout.hpp, encode_int_gemm (the same scales,
  // W packed tile-major).

 private:
  FormatConfig m_f;
  double m_act_scale = 0, m_out_scale = 0;
  std::vector<float> m_weight_scale;
};

}  // namespace eva
