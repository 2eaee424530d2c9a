#include "baselines/figlut/figlut_accelerator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "baselines/figlut/lut.hpp"
#include "common/error.hpp"
#include "common/fp16.hpp"
#include "common/int_quant.hpp"
#include "pack/operand_layout.hpp"

namespace eva {

namespace {

// Bit-planes in the layout of figlut_accelerator.hpp.
class BitPlaneWeights : public WeightSource {
 public:
  // `planes` bit-planes; a quantised KV cache's groups of `group` elements
  // (0: none) carry `group_bytes` of parameters, loaded with the first pass.
  BitPlaneWeights(int planes, int mpus, int group = 0, int group_bytes = 0)
      : m_planes(static_cast<std::uint64_t>(planes)),
        m_mpus(static_cast<std::uint64_t>(mpus)),
        m_group(group),
        m_group_bytes(group_bytes) {}

  std::uint64_t planes_in(std::uint64_t pass) const { return figlut_planes_in(m_planes, m_mpus, pass); }
  std::uint64_t offset(const WsTile& t, std::uint64_t k) const {
    return figlut_tile_offset(m_planes, m_mpus, t, k) + group_params(t.weight_offset);
  }
  Dma::Transfer fetch(Dma& dma, const GemmDescriptor& op, const WsTile& t, const BufferSlot& slot) override {
    const std::uint64_t bytes = tile_bytes(t);
    return dma.start_load(op.weight_addr + offset(t, op.k), bytes, 1, bytes, slot.at, !slot.data);
  }
  std::uint64_t tile_bytes(const WsTile& t) const override {
    return planes_in(t.pass) * t.n * bytes_for_bits(t.k) + (t.pass == 0 ? group_params(t.k * t.n) : 0);
  }
  std::uint64_t tile_buffer_bytes(std::uint64_t rows, std::uint64_t cols) const override {
    return std::min(m_planes, m_mpus) * cols * bytes_for_bits(rows) + group_params(rows * cols);
  }

 private:
  std::uint64_t group_params(std::uint64_t elements) const {
    return grouped_bytes(elements, 0, m_group, m_group_bytes);
  }
  std::uint64_t m_planes, m_mpus;
  int m_group, m_group_bytes;
};

// The PEs' LUTs in the `lut` SRAM. PE (mpu, r, c) is bank
// (mpu x rows + r) x cols + c; entry e of its half-size LUT sits at byte
// entry_bytes x (e x pes + pe), so each PE's LUT is a bank of its own, read by
// its racs_per_pe RACs through as many ports. Slice s of a tile (mu
// activations) is held by the PEs of column s mod cols, in part s / cols of
// the MPUs sharing a plane, in every PE row.
struct LutGeometry {
  std::uint64_t rows, cols, racs, mu, half, entry_bytes, pes;
  std::uint64_t planes, mpus, share;  // bit-planes, MPUs, MPUs per plane along K

  LutGeometry(const WsAcceleratorConfig& c, const FiglutConfig& f, int planes_)
      : rows(static_cast<std::uint64_t>(c.systolic.rows)),
        cols(static_cast<std::uint64_t>(c.systolic.cols)),
        racs(static_cast<std::uint64_t>(f.racs_per_pe)),
        mu(static_cast<std::uint64_t>(f.mu)),
        half(1ull << (f.mu - 1)),
        entry_bytes(static_cast<std::uint64_t>(c.formats.acc_bits) / 8),  // FP32 entries (FIGLUT-F)
        pes(0),
        planes(static_cast<std::uint64_t>(planes_)),
        mpus(static_cast<std::uint64_t>(f.mpus)),
        share((mpus + planes - 1) / planes) {
    pes = rows * cols * mpus_used();
  }
  // The MPUs' worth of PEs one pass occupies.
  std::uint64_t mpus_used() const { return std::min(mpus, planes) * share; }
  std::uint64_t planes_in(std::uint64_t pass) const { return std::min(mpus, planes - pass * mpus); }
  std::uint64_t pe(std::uint64_t plane, std::uint64_t slice, std::uint64_t r) const {
    return ((plane * share + slice / cols) * rows + r) * cols + slice % cols;
  }
  std::uint64_t addr(std::uint64_t pe, std::uint64_t entry) const { return entry_bytes * (entry * pes + pe); }
  std::uint64_t bytes() const { return entry_bytes * half * pes; }
};

// Presents the tiles' LUT traffic to the `lut` SRAM through the array's lane
// port: per input row, every PE holding one of the tile's slices writes its
// 2^(mu-1) entries, and every RAC reads one entry per slice and plane. The
// bank pattern does not depend on the keys (a PE's RACs are served by its
// ports whatever they read), so consecutive tiles of one shape are presented
// together, as one write and one read access with `repeat` covering their
// input rows and entries (a tile is far smaller than the lanes' bookkeeping).
class LutStore : public PeStorage {
 public:
  LutStore(SystolicArray& array, const LutGeometry& g) : m_array(array), m_g(g) {
    m_write.lane_bytes = m_read.lane_bytes = g.entry_bytes;
  }
  void tile(const WsTile& t) override {
    const std::uint64_t planes = m_g.planes_in(t.pass);
    if (t.k != m_k || t.n != m_n || planes != m_planes) {
      finish();
      m_k = t.k;
      m_n = t.n;
      m_planes = planes;
      const std::uint64_t slices = (t.k + m_g.mu - 1) / m_g.mu;
      m_write.addrs.clear();
      m_read.addrs.clear();
      for (std::uint64_t p = 0; p < planes; ++p)
        for (std::uint64_t s = 0; s < slices; ++s) {
          for (std::uint64_t r = 0; r < m_g.rows; ++r) m_write.addrs.push_back(m_g.addr(m_g.pe(p, s, r), 0));
          for (std::uint64_t nn = 0; nn < t.n; ++nn) m_read.addrs.push_back(m_g.addr(m_g.pe(p, s, nn / m_g.racs), 0));
        }
    }
    m_rows += t.m;
  }
  void finish() override {
    if (m_rows == 0) return;
    m_write.repeat = m_g.half * m_rows;
    m_read.repeat = m_rows;
    m_array.lanes(m_write, true, nullptr);
    m_array.lanes(m_read, false, nullptr);
    m_rows = 0;
  }

 private:
  SystolicArray& m_array;
  const LutGeometry m_g;
  LaneAccess m_write, m_read;
  std::uint64_t m_k = 0, m_n = 0, m_planes = 0;
  std::uint64_t m_rows = 0;  // input rows of the tiles held, all of the current shape
};

// The RAC arithmetic (FIGLUT-F: FP32 LUT entries and accumulators). Per tile
// and input row, each mu-slice of activations gets its half-size LUT, written
// into the `lut` SRAM (through DMI: one copy, in the slice's PE of row 0 and
// the pass's first plane; LutStore counts the traffic of every copy); each
// plane's read-accumulate sum over the tile is scaled by its alpha and added
// into the FP32 output accumulator; the first pass adds offset x sum(x).
class LutDatapath : public WsDatapath {
 public:
  LutDatapath(SystolicArray& array, const LutGeometry& g) : m_array(array), m_g(g) {}

  std::uint64_t parameter_bytes(const GemmDescriptor& op) const override { return 2 * op.n * (m_g.planes + 1); }
  void set_parameters(const GemmDescriptor& op, const std::vector<std::uint8_t>& bytes) override {
    std::vector<half_bits> h(op.n * (m_g.planes + 1));
    std::memcpy(h.data(), bytes.data(), h.size() * 2);
    m_alpha.resize(op.n * m_g.planes);
    m_offset.resize(op.n);
    for (std::uint64_t i = 0; i < m_alpha.size(); ++i) m_alpha[i] = half_to_float(h[i]);
    for (std::uint64_t j = 0; j < op.n; ++j) m_offset[j] = half_to_float(h[op.n * m_g.planes + j]);
  }
  void tile(const WsTile& t, const std::uint8_t* input, std::uint64_t first, std::uint64_t row_elems,
            const std::uint8_t* weights, double* acc) override {
    const std::uint64_t mu = m_g.mu, half = m_g.half, eb = m_g.entry_bytes;
    const int mu_bits = static_cast<int>(mu);
    const std::uint64_t slices = (t.k + mu - 1) / mu, row_bytes = bytes_for_bits(t.k);
    const std::uint64_t p0 = t.pass * m_g.mpus, planes = m_g.planes_in(t.pass);
    std::uint8_t* sram = m_array.lane_direct(0, m_g.bytes());
    std::vector<float> luts(slices * half), x(mu);
    for (std::uint64_t mm = 0; mm < t.m; ++mm) {
      float sum_x = 0.0f;  // sum of the tile's activations: LUT[all ones] per slice
      for (std::uint64_t s = 0; s < slices; ++s) {
        for (std::uint64_t j = 0; j < mu; ++j) {
          const std::uint64_t kk = s * mu + j;
          half_bits h = 0;
          if (kk < t.k) std::memcpy(&h, input + 2 * (first + mm * row_elems + kk), 2);
          x[j] = half_to_float(h);
        }
        // The generator writes the slice's LUT into its PE; the RACs read it back.
        const std::vector<float> lut = figlut::build_half_lut(x.data(), mu_bits);
        const std::uint64_t pe = m_g.pe(0, s, 0);
        for (std::uint64_t e = 0; e < half; ++e) std::memcpy(sram + m_g.addr(pe, e), &lut[e], eb);
        float* held = luts.data() + s * half;
        for (std::uint64_t e = 0; e < half; ++e) std::memcpy(&held[e], sram + m_g.addr(pe, e), eb);
        sum_x += figlut::read_half_lut(held, static_cast<std::uint32_t>((1ull << mu) - 1), mu_bits);
      }
      for (std::uint64_t nn = 0; nn < t.n; ++nn) {
        float y = static_cast<float>(acc[mm * t.n + nn]);
        for (std::uint64_t p = 0; p < planes; ++p) {
          const std::uint8_t* bits = weights + (p * t.n + nn) * row_bytes;
          float plane_sum = 0.0f;
          for (std::uint64_t s = 0; s < slices; ++s) {
            std::uint32_t key = 0;
            for (std::uint64_t j = 0; j < mu && s * mu + j < t.k; ++j) {
              const std::uint64_t kk = s * mu + j;
              key |= static_cast<std::uint32_t>((bits[kk / 8] >> (kk % 8)) & 1u) << j;
            }
            plane_sum += figlut::read_half_lut(luts.data() + s * half, key, mu_bits);
          }
          y += m_alpha[(t.n0 + nn) * m_g.planes + p0 + p] * plane_sum;
        }
        if (t.pass == 0) y += m_offset[t.n0 + nn] * sum_x;
        acc[mm * t.n + nn] = y;
      }
    }
  }
  void finish(const WsTile& t, const double* acc, std::uint8_t* out) override {
    doubles_to_fp16_bytes(acc, t.m * t.n, out);
  }

 private:
  SystolicArray& m_array;
  const LutGeometry m_g;
  std::vector<float> m_alpha, m_offset;
};

}  // namespace

WsGemmConfig FiglutAccelerator::gemm_config(const WsAcceleratorConfig& c, const FiglutConfig& f, Operand operand) {
  // Attention: the KV cache's kv_bits taken as bit-planes, FP16 in and out;
  // FP16 weights as 16 bit-planes (FIGLUT's FP16 path: bit-serial).
  const FormatConfig formats = operand == Operand::kv_cache       ? c.formats.kv_formats()
                               : operand == Operand::fp16_weights ? c.formats.fp16_formats()
                                                                  : c.formats;
  WsGemmConfig g{c.systolic, c.buffers, formats, c.tiling};
  const WsGeometry l = figlut_geometry(c.systolic, f, formats);
  g.tile_k = l.tile_k;
  g.tile_n = l.tile_n;
  g.passes = l.passes;
  return g;
}

SramConfig FiglutAccelerator::lut_sram(const WsAcceleratorConfig& c, const FiglutConfig& f) {
  // Sized for the largest of the layers', attention's and FP16 weights' geometry.
  const LutGeometry w(c, f, c.formats.weight_bits), kv(c, f, c.formats.kv_bits), fp16(c, f, 16);
  const LutGeometry& wkv = w.pes >= kv.pes ? w : kv;
  const LutGeometry& g = wkv.pes >= fp16.pes ? wkv : fp16;
  SramConfig s;
  s.size_kib = static_cast<int>(std::max<std::uint64_t>(1, (g.bytes() + 1023) / 1024));
  s.banks = static_cast<int>(g.pes);
  s.bank_width_bytes = static_cast<int>(g.entry_bytes);
  s.ports = f.racs_per_pe;
  s.latency_cycles = 0;  // inside the array's cycle convention
  // Its cost is the array's: the artifact's core_power and area for figlut_4
  // cover the PEs, their LUTs included (the Sram is built unpriced, at no
  // area or leakage).
  s.read_pj_per_bit = s.write_pj_per_bit = 0.0;
  s.cost = SramCost{};
  return s;
}

FiglutAccelerator::FiglutAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config,
                                     const FiglutConfig& figlut)
    : WsAccelerator(name, config, gemm_config(config, figlut), gemm_config(config, figlut, Operand::kv_cache),
                    gemm_config(config, figlut, Operand::fp16_weights),
                    // the PEs of every MPU
                    static_cast<std::uint64_t>(config.systolic.rows) *
                        static_cast<std::uint64_t>(config.systolic.cols) * static_cast<std::uint64_t>(figlut.mpus)),
      lut("lut", lut_sram(config, figlut), config.clock_mhz, false),
      m_figlut(figlut),
      m_geometry(gemm_config(config, figlut)) {
  array.lane_socket.bind(lut.lookup_socket);
  const LutGeometry w(config, figlut, config.formats.weight_bits), kv(config, figlut, config.formats.kv_bits),
      fp16(config, figlut, 16);
  install(std::make_unique<BitPlaneWeights>(config.formats.weight_bits, figlut.mpus),
          std::make_unique<LutDatapath>(array, w),
          std::make_unique<BitPlaneWeights>(config.formats.kv_bits, figlut.mpus, config.formats.kv_group,
                                            config.formats.kv_group_bytes),
          std::make_unique<BitPlaneWeights>(16, figlut.mpus), std::make_unique<LutStore>(array, w),
          std::make_unique<LutStore>(array, kv), std::make_unique<LutStore>(array, fp16));
}

std::vector<const StatGroup*> FiglutAccelerator::stat_groups() {
  std::vector<const StatGroup*> g = WsAccelerator::stat_groups();
  lut.flush_stats();
  g.push_back(&lut.stats());
  return g;
}

std::uint64_t FiglutAccelerator::weight_bytes(std::uint64_t n, std::uint64_t k) const {
  return figlut_weight_bytes(m_config.formats.weight_bits, n, k);
}

void FiglutAccelerator::check(const GemmDescriptor& op) const {
  if (m_geometry.tile_k % 8 != 0)
    throw InputError(
        fmt::format("figlut: a weight tile of systolic.cols x figlut.mu x MPUs per plane = {} "
                    "activations must be a multiple of 8 (whole bytes of bit-planes)",
                    m_geometry.tile_k));
  if (m_config.formats.act_bits != 16 || m_config.formats.out_bits != 16)
    throw InputError("figlut: formats.act_bits and formats.out_bits must be 16 (FP16 activations and outputs)");
  if (m_config.formats.acc_bits != 32)
    throw InputError("figlut: formats.acc_bits must be 32 (FP32 LUT entries and accumulators, FIGLUT-F)");
  if (m_config.formats.weight_bits > 8)
    throw InputError(
        fmt::format("formats.weight_bits: {} bit-planes; figlut takes 1 to 8", m_config.formats.weight_bits));
  WsAccelerator::check(op);
}

EncodedGemm FiglutAccelerator::encode_gemm(const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                                           std::uint64_t n, std::uint64_t k) const {
  return encode_figlut_gemm(m_config.formats, m_figlut,
                            WsGeometry{m_geometry.tile_k, m_geometry.tile_n, m_geometry.passes}, x, w, m, n, k);
}

}  // namespace eva
