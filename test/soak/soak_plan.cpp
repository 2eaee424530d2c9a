#include "soak_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "common/accel_config.hpp"
#include "common/fp16.hpp"
#include "common/vq_math.hpp"
#include "pack/image.hpp"
#include "pack/operand_layout.hpp"

namespace eva::soak {

namespace {

using regs::ErrorCode;

constexpr std::uint64_t MiB = 1ull << 20;
constexpr std::uint64_t window_bytes = 16 * MiB;  // one batch's operands, descriptors and outputs
constexpr std::uint64_t guard_bytes = 64;         // canary bytes either side of an output
constexpr std::uint64_t desc = regs::desc_bytes;

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

template <class T>
void put(DescriptorBytes& b, std::uint32_t offset, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) b[offset + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

bool is_vq(const ArchConfig& a) { return a.kind == ArchKind::eva || a.kind == ArchKind::vq_conflict; }

// A K x N KV-cache slice's bytes (docs/DESCRIPTORS.md): dense, kv_bits per
// element; FIGLUT's are kv_bits bit-planes, laid out as its weights.
std::uint64_t kv_bytes(const ArchConfig& a, std::uint64_t n, std::uint64_t k) {
  if (a.kind == ArchKind::figlut) return figlut_weight_bytes(a.formats.kv_bits, n, k);
  return packed_bytes(k * n, a.formats.kv_bits);
}

// sa's requantisation (models/baselines/sa/int_datapath.hpp): exact integer
// sums times s_a s_w, which the reference holds in float64 computed the same
// way, divided by s_y, rounded half away from zero and saturated. So the
// output codes are known exactly.
std::vector<std::uint8_t> sa_codes(const ArchConfig& a, const PackedOp& p) {
  float s_y;
  std::memcpy(&s_y, p.codebooks.data() + 4, 4);
  const double top = static_cast<double>((std::int64_t{1} << (a.formats.out_bits - 1)) - 1);
  std::vector<std::uint8_t> out(p.out_bytes, 0);
  for (std::size_t i = 0; i < p.reference.size(); ++i) {
    const double q = s_y > 0 ? std::round(p.reference[i] / static_cast<double>(s_y)) : 0.0;
    const auto code = static_cast<std::int64_t>(std::max(-top, std::min(top, q)));
    pack_index(out.data(), i, a.formats.out_bits, static_cast<std::uint32_t>(code));
  }
  return out;
}

}  // namespace

// ---- random numbers ----------------------------------------------------------

std::uint64_t Rng::next() {
  std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t Rng::between(std::uint64_t lo, std::uint64_t hi) {
  if (hi <= lo) return lo;
  const std::uint64_t span = hi - lo + 1;
  return span == 0 ? next() : lo + next() % span;  // span 0: the whole range
}

std::uint64_t Rng::log_between(std::uint64_t lo, std::uint64_t hi) {
  const double l = std::log(static_cast<double>(lo)), h = std::log(static_cast<double>(hi) + 1.0);
  const auto v = static_cast<std::uint64_t>(std::exp(l + (h - l) * uniform()));
  return std::clamp(v, lo, hi);
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  const double u = 1.0 - uniform(), v = uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

const char* category_name(Category c) {
  switch (c) {
    case Category::functional:
      return "functional GEMM";
    case Category::garbage:
      return "functional GEMM on random bytes";
    case Category::timing:
      return "timing GEMM";
    case Category::attention:
      return "attention GEMM";
    case Category::vector:
      return "vector op";
    case Category::invalid:
      return "invalid";
  }
  return "?";
}

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::irq:
      return "irq";
    case Mode::trickle:
      return "trickle";
    case Mode::poll:
      return "poll";
    case Mode::late_enable:
      return "late-enable";
    case Mode::pause:
      return "pause";
    case Mode::reset:
      return "reset";
  }
  return "?";
}

std::uint32_t Batch::last_slot() const {
  return ring.size ? static_cast<std::uint32_t>((first_slot + entries.size()) % ring.size) : 0;
}

// ---- memory ------------------------------------------------------------------

// One batch's window: operands from the bottom up with random gaps and
// alignments; in the window at the end of memory, the first allocation ends
// on its last byte.
struct Generator::Arena {
  std::uint64_t lo, hi;
  bool flush_top;
  Rng& rng;

  std::uint64_t left() const { return hi - lo; }
  std::uint64_t alloc(std::uint64_t bytes, std::uint64_t align) {
    if (flush_top && bytes <= left()) {
      flush_top = false;
      hi = (hi - bytes) / align * align;
      if (hi < lo) throw std::logic_error("soak: window exhausted");
      return hi;
    }
    const std::uint64_t at = align_up(lo + rng.between(0, 256), align);
    if (at + bytes > hi) throw std::logic_error(fmt::format("soak: window exhausted ({} B wanted)", bytes));
    lo = at + bytes;
    return at;
  }
  // Operand alignment: anything from a byte to a page.
  std::uint64_t alloc_operand(std::uint64_t bytes) {
    static const std::vector<std::uint64_t> aligns = {1, 2, 4, 8, 64, 256, 4096};
    return alloc(std::max<std::uint64_t>(bytes, 1), rng.pick(aligns));
  }
};

Generator::Generator(const ArchConfig& arch, std::uint64_t seed, OperandSizer sizes)
    : m_arch(arch),
      m_rng(seed ^ fnv1a64(reinterpret_cast<const std::uint8_t*>(arch.name.data()), arch.name.size())),
      m_sizes(std::move(sizes)) {
  // The architecture's name is mixed into the seed: each gets its own plan.
  m_capacity = static_cast<std::uint64_t>(arch.dram.capacity_bytes());
  if (m_capacity < 64 * MiB) throw std::invalid_argument("soak: the DRAM must hold at least 64 MiB");
  // Data windows: above the ring's page, just above 4 GiB, at random places
  // and at the very end of memory; never where the rings go (page 0 and
  // around 4 GiB).
  const std::uint64_t four_g = 1ull << 32;
  m_windows.push_back(MiB);
  if (m_capacity >= four_g + 64 * MiB) m_windows.push_back(four_g + 2 * MiB);
  while (m_windows.size() < 8) {
    const std::uint64_t at = m_rng.between(32, m_capacity / MiB - 48) * MiB;
    const bool near_4g = at + window_bytes + MiB > four_g && at < four_g + 2 * MiB;
    bool overlaps = near_4g;
    for (std::uint64_t w : m_windows)
      overlaps = overlaps || (at < w + window_bytes + MiB && w < at + window_bytes + MiB);
    if (!overlaps) m_windows.push_back(at);
  }
  m_windows.push_back(m_capacity - window_bytes);
}

std::vector<std::uint8_t> Generator::random_bytes(std::uint64_t n) {
  std::vector<std::uint8_t> b(n);
  for (std::uint64_t i = 0; i < n; i += 8) {
    const std::uint64_t v = m_rng.next();
    for (std::uint64_t j = 0; j < 8 && i + j < n; ++j) b[i + j] = static_cast<std::uint8_t>(v >> (8 * j));
  }
  return b;
}

std::uint64_t Generator::anywhere(std::uint64_t bytes) {
  bytes = std::max<std::uint64_t>(bytes, 1);
  switch (m_rng.between(0, 3)) {
    case 0:  // low memory
      return m_rng.between(0, std::min<std::uint64_t>(m_capacity - bytes, 64 * MiB));
    case 1:  // flush with the end
      return m_capacity - bytes;
    default:
      return m_rng.between(0, m_capacity - bytes);
  }
}

std::uint64_t Generator::outside(std::uint64_t bytes) {
  bytes = std::max<std::uint64_t>(bytes, 1);
  if (bytes > m_capacity) return m_capacity;
  const std::uint64_t last = ~0ull;
  switch (m_rng.between(0, 4)) {
    case 0:  // straddles the end of memory
      if (bytes > 1) return m_capacity - m_rng.between(1, bytes - 1);
      return m_capacity;
    case 1:  // just beyond
      return m_capacity + m_rng.between(0, 4096);
    case 2:  // anywhere in a 48-bit space
      return m_rng.between(m_capacity, (1ull << 48) - bytes);
    case 3:  // anywhere, up to the top of the 64-bit space
      return m_rng.between(m_capacity, last - bytes + 1);
    default:  // ending on the last address, or exactly at 2^64
      return last - bytes + 1 - m_rng.between(0, 1);
  }
}

OutputBlock& Generator::add_output_block(Batch& b, Arena& a, std::size_t r, std::uint64_t bytes, std::uint64_t& at) {
  const std::uint64_t base = a.alloc(bytes + 2 * guard_bytes, m_rng.chance(0.5) ? 1 : 64);
  at = base + guard_bytes;
  OutputBlock o;
  o.record = r;
  o.canary.addr = base;
  o.canary.bytes = random_bytes(bytes + 2 * guard_bytes);
  b.outputs.push_back(std::move(o));
  return b.outputs.back();
}

// ---- descriptors ---------------------------------------------------------------

Record& Generator::add_record(Batch& b, Arena& a, std::size_t entry) {
  Record r;
  r.index = m_descriptors++;
  r.entry = entry;
  r.addr = a.alloc(desc, 8);
  b.records.push_back(r);
  return b.records.back();
}

void Generator::make_valid(Batch& b, Arena& a, std::size_t r, Category c) {
  b.records[r].category = c;
  switch (c) {
    case Category::functional:
      make_functional(b, a, r);
      break;
    case Category::garbage:
      make_garbage(b, a, r);
      break;
    case Category::timing:
      make_timing(b, a, r);
      break;
    case Category::attention:
      make_attention(b, a, r);
      break;
    default:
      make_vector(b, a, r);
      break;
  }
}

// Functional GEMMs: random shapes the architecture runs, operands packed by the
// packing library from random data, at random legal addresses; `count` of
// them strided when the operands allow (the same weights; the activations
// differ where the parameters do not depend on them).
void Generator::make_functional(Batch& b, Arena& a, std::size_t r) {
  Rng& g = m_rng;
  const ArchConfig& c = m_arch;
  const std::uint64_t count = g.chance(0.7) ? 1 : g.between(2, 3);
  std::uint64_t m = 0, n = g.log_between(1, 384), k = 0;
  std::vector<PackedOp> packed;
  std::string data;
  if (is_vq(c)) {
    const auto d = static_cast<std::uint64_t>(c.vq.vector_dim);
    k = d * g.log_between(1, 512 / d);
    if (c.kind == ArchKind::eva)
      m = g.between(1, static_cast<std::uint64_t>(c.vq.prefill_above_m));
    else
      m = std::min<std::uint64_t>(g.log_between(1, 16),
                                  static_cast<std::uint64_t>(c.buffers.input_kib) * 1024 / (2 * k));
    VqMatrix w;
    w.k = k;
    w.n = n;
    w.codebooks = c.vq.codebooks;
    w.index_bits = c.vq.index_bits;
    w.d = c.vq.vector_dim;
    w.group_k = static_cast<std::uint64_t>(c.vq.group_k);
    w.group_n = static_cast<std::uint64_t>(c.vq.group_n);
    const double cb_scale = std::ldexp(1.0, static_cast<int>(g.between(0, 8)) - 8);
    const std::uint64_t centroids =
        w.groups_k() * w.groups_n() * static_cast<std::uint64_t>(w.codebooks) * w.entries() * d;
    for (std::uint64_t i = 0; i < centroids; ++i)
      w.centroids.push_back(float_to_half(static_cast<float>(cb_scale * g.normal())));
    const bool skewed = g.chance(0.3);  // a few hot entries, as trained codebooks have
    const std::uint64_t indices = static_cast<std::uint64_t>(w.codebooks) * (k / d) * n;
    for (std::uint64_t i = 0; i < indices; ++i) {
      const double u = g.uniform();
      w.index.push_back(static_cast<std::uint32_t>((skewed ? u * u * u : u) * static_cast<double>(w.entries())) %
                        static_cast<std::uint32_t>(w.entries()));
    }
    const double x_scale = std::ldexp(1.0, static_cast<int>(g.between(0, 9)) - 6);
    for (std::uint64_t i = 0; i < count; ++i) {
      std::vector<half_bits> x(m * k);
      for (half_bits& v : x) v = float_to_half(static_cast<float>(x_scale * g.normal()));
      packed.push_back(pack_vq_op(c, w, x, m));
    }
    data = fmt::format("x ~ N(0, {}), centroids ~ N(0, {}){}", x_scale, cb_scale, skewed ? ", skewed indices" : "");
  } else {
    m = g.log_between(1, 16);
    k = g.log_between(1, 512);
    while (m * k * n > (1u << 21)) n = std::max<std::uint64_t>(1, n / 2);
    const double x_scale = std::ldexp(1.0, static_cast<int>(g.between(0, 9)) - 6);
    const double w_scale = std::ldexp(1.0, static_cast<int>(g.between(0, 8)) - 8);
    const bool outliers = x_scale <= 1.0 && g.chance(0.15);  // an activation column 100x larger
    const std::uint64_t outlier_col = g.between(0, k - 1);
    const bool zero_cols = g.chance(0.1);  // some all-zero weight columns
    std::vector<float> w(k * n);
    for (std::uint64_t j = 0; j < n; ++j) {
      const bool zero = zero_cols && g.chance(0.3);
      for (std::uint64_t kk = 0; kk < k; ++kk) w[kk * n + j] = zero ? 0.0f : static_cast<float>(w_scale * g.normal());
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      std::vector<float> x(m * k);
      for (std::uint64_t e = 0; e < m * k; ++e)
        x[e] = static_cast<float>(x_scale * g.normal() * (outliers && e % k == outlier_col ? 100.0 : 1.0));
      packed.push_back(pack_dense_op(c, x, w, m, n, k));
    }
    // The count GEMMs share the parameters (codebook_addr is not strided):
    // where they depend on the activations (sa, ant), all take the first's.
    for (std::uint64_t i = 1; i < count; ++i)
      if (packed[i].codebooks != packed[0].codebooks || packed[i].weights != packed[0].weights) packed[i] = packed[0];
    data = fmt::format("x ~ N(0, {}){}, W ~ N(0, {}){}", x_scale, outliers ? " with a 100x column" : "", w_scale,
                       zero_cols ? " with zero columns" : "");
  }
  const PackedOp& p0 = packed[0];
  const bool same_x =
      std::all_of(packed.begin(), packed.end(), [&](const PackedOp& p) { return p.activations == p0.activations; });
  GemmDescriptor op;
  op.m = m;
  op.n = n;
  op.k = k;
  op.count = count;
  op.functional = true;
  // Strided copies: 0 where every copy is the same, else at least the operand.
  const auto stride = [&](std::uint64_t bytes, bool same) {
    if (count == 1) return g.chance(0.5) ? std::uint64_t{0} : g.between(0, 1 << 20);
    if (same && g.chance(0.3)) return std::uint64_t{0};
    return bytes + g.between(0, 300);
  };
  op.act_stride = stride(p0.activations.size(), same_x);
  op.weight_stride = stride(p0.weights.size(), true);
  const auto place = [&](const std::vector<std::vector<std::uint8_t>>& copies, std::uint64_t stride_bytes) {
    const std::uint64_t span = (copies.size() - 1) * stride_bytes + copies[0].size();
    const std::uint64_t at = a.alloc_operand(span);
    for (std::size_t i = 0; i < copies.size(); ++i)
      b.inputs.push_back({at + i * stride_bytes, copies[stride_bytes ? i : 0]});
    return at;
  };
  std::vector<std::vector<std::uint8_t>> acts, weights;
  for (const PackedOp& p : packed) {
    acts.push_back(p.activations);
    weights.push_back(p.weights);
  }
  if (op.act_stride == 0) acts.resize(1);
  if (op.weight_stride == 0) weights.resize(1);
  if (count == 1) {
    acts.resize(1);
    weights.resize(1);
  }
  op.act_addr = place(acts, count > 1 ? op.act_stride : 0);
  op.weight_addr = place(weights, count > 1 ? op.weight_stride : 0);
  if (!p0.codebooks.empty()) op.codebook_addr = place({p0.codebooks}, 0);
  // Outputs: one block holding every copy's output.
  const bool same_y = std::all_of(packed.begin(), packed.end(),
                                  [&](const PackedOp& p) { return p.reference_fp16 == p0.reference_fp16; });
  op.out_stride = count == 1 ? (g.chance(0.5) ? 0 : g.between(0, 1 << 20))
                             : (same_y && g.chance(0.3) ? 0 : p0.out_bytes + g.between(0, 300));
  const std::uint64_t out_span = (count - 1) * op.out_stride + p0.out_bytes;
  std::uint64_t out_at = 0;
  OutputBlock& block = add_output_block(b, a, r, out_span, out_at);
  block.functional = true;
  op.out_addr = out_at;
  for (std::uint64_t i = 0; i < count; ++i) {
    const PackedOp& p = packed[i];
    OutputExpect e;
    e.addr = out_at + i * op.out_stride;
    e.bytes = p.out_bytes;
    e.m = m;
    e.n = n;
    e.reference_fp16 = p.reference_fp16;
    e.tolerance_q24 = p.tolerance_q24;
    e.parameters = p.codebooks;
    if (c.kind == ArchKind::sa) e.exact = sa_codes(c, p);
    if (op.out_stride == 0 && i > 0) continue;  // the same output, written again
    block.outputs.push_back(std::move(e));
  }
  Record& rec = b.records[r];
  rec.bytes = encode_descriptor(op, 0, static_cast<std::uint32_t>(rec.index));
  rec.what = fmt::format("functional GEMM m={} n={} k={} count={} ({}; {})", m, n, k, count, p0.format, data);
}

// A functional GEMM of a shape the architecture runs on random operand bytes:
// whatever the data, it completes and writes its outputs only.
void Generator::make_garbage(Batch& b, Arena& a, std::size_t r) {
  Rng& g = m_rng;
  const ArchConfig& c = m_arch;
  GemmDescriptor op;
  op.functional = true;
  op.n = g.log_between(1, 256);
  if (is_vq(c)) {
    const auto d = static_cast<std::uint64_t>(c.vq.vector_dim);
    op.k = d * g.log_between(1, 256 / d);
    op.m =
        c.kind == ArchKind::eva ? g.between(1, static_cast<std::uint64_t>(c.vq.prefill_above_m)) : g.log_between(1, 8);
  } else {
    op.m = g.log_between(1, 8);
    op.k = g.log_between(1, 256);
  }
  const OperandSizes s = m_sizes(op.m, op.n, op.k);
  const auto place = [&](std::uint64_t bytes) {
    const std::uint64_t at = a.alloc_operand(bytes);
    b.inputs.push_back({at, random_bytes(bytes)});
    return at;
  };
  op.act_addr = place(s.activations);
  op.weight_addr = place(s.weights);
  if (s.codebooks > 0) op.codebook_addr = place(s.codebooks);
  const std::uint64_t out = output_bytes(c, op.m, op.n);
  std::uint64_t out_at = 0;
  OutputBlock& block = add_output_block(b, a, r, out, out_at);
  block.functional = true;
  OutputExpect e;
  e.addr = out_at;
  e.bytes = out;
  e.m = op.m;
  e.n = op.n;
  block.outputs.push_back(std::move(e));
  op.out_addr = out_at;
  Record& rec = b.records[r];
  rec.bytes = encode_descriptor(op, 0, static_cast<std::uint32_t>(rec.index));
  rec.what = fmt::format("functional GEMM m={} n={} k={} on random bytes", op.m, op.n, op.k);
}

namespace {

// A timing GEMM's shape that the architecture accepts (VQ: K a multiple of d).
void timing_shape(const ArchConfig& c, Rng& g, std::uint64_t& m, std::uint64_t& n, std::uint64_t& k) {
  m = g.log_between(1, 64);
  n = g.log_between(1, 2048);
  k = g.log_between(1, 2048);
  if (is_vq(c)) {
    const auto d = static_cast<std::uint64_t>(c.vq.vector_dim);
    k = std::max(d, k / d * d);
  }
  while (k * n > (1u << 20)) n = std::max<std::uint64_t>(1, n / 2);
  while (m * n > (1u << 16)) m = std::max<std::uint64_t>(1, m / 2);
}

}  // namespace

// Timing-only GEMMs: larger shapes (EVA's INT8 prefill above
// vq.prefill_above_m), operands anywhere in memory; they write nothing.
void Generator::make_timing(Batch& b, Arena& a, std::size_t r) {
  Rng& g = m_rng;
  GemmDescriptor op;
  timing_shape(m_arch, g, op.m, op.n, op.k);
  op.count = g.chance(0.7) ? 1 : g.between(2, 4);
  const OperandSizes s = m_sizes(op.m, op.n, op.k);
  const auto strided = [&](std::uint64_t bytes, std::uint64_t& stride) {
    stride = g.chance(0.3) ? 0 : bytes + g.between(0, 4096);
    return anywhere((op.count - 1) * stride + bytes);
  };
  op.act_addr = strided(s.activations, op.act_stride);
  op.weight_addr = strided(s.weights, op.weight_stride);
  op.codebook_addr = anywhere(s.codebooks);
  op.out_stride = g.chance(0.3) ? 0 : s.outputs + g.between(0, 300);
  std::uint64_t out_at = 0;
  add_output_block(b, a, r, (op.count - 1) * op.out_stride + s.outputs, out_at);
  op.out_addr = out_at;
  Record& rec = b.records[r];
  rec.bytes = encode_descriptor(op, 0, static_cast<std::uint32_t>(rec.index));
  rec.what = fmt::format("timing GEMM m={} n={} k={} count={}", op.m, op.n, op.k, op.count);
}

// Attention over a KV cache (timing only): heads strided.
void Generator::make_attention(Batch& b, Arena& a, std::size_t r) {
  Rng& g = m_rng;
  GemmDescriptor op;
  op.operand = GemmOperand::kv_cache;
  op.m = g.log_between(1, 8);
  op.k = g.log_between(1, 256);
  op.n = g.log_between(1, 1024);
  op.count = g.between(1, 4);
  const std::uint64_t x = op.m * op.k * 2, kv = kv_bytes(m_arch, op.n, op.k), y = op.m * op.n * 2;
  op.act_stride = g.chance(0.2) ? 0 : x + g.between(0, 256);
  op.weight_stride = kv + g.between(0, 4096);
  op.act_addr = anywhere((op.count - 1) * op.act_stride + x);
  op.weight_addr = anywhere((op.count - 1) * op.weight_stride + kv);
  op.out_stride = y + g.between(0, 64);
  std::uint64_t out_at = 0;
  add_output_block(b, a, r, (op.count - 1) * op.out_stride + y, out_at);
  op.out_addr = out_at;
  Record& rec = b.records[r];
  rec.bytes = encode_descriptor(op, 0, static_cast<std::uint32_t>(rec.index));
  rec.what = fmt::format("attention GEMM m={} n={} k={} heads={}", op.m, op.n, op.k, op.count);
}

void Generator::make_vector(Batch& b, Arena& a, std::size_t r) {
  Rng& g = m_rng;
  VectorDescriptor op;
  op.op = static_cast<VectorOp>(g.between(0, static_cast<std::uint64_t>(VectorOp::rope)));
  op.rows = g.log_between(1, 16);
  op.cols = g.log_between(1, 4096);
  while (op.rows * op.cols > (1u << 15)) op.cols /= 2;
  const std::uint64_t bytes = op.rows * op.cols * 2;
  op.in_addr = anywhere(bytes);
  op.in2_addr = vector_op_binary(op.op) ? anywhere(bytes) : g.next();  // unary: any value, unread
  std::uint64_t out_at = 0;
  add_output_block(b, a, r, bytes, out_at);
  op.out_addr = out_at;
  Record& rec = b.records[r];
  rec.bytes = encode_descriptor(op, 0, static_cast<std::uint32_t>(rec.index));
  rec.what = fmt::format("vector op {} rows={} cols={}", static_cast<int>(op.op), op.rows, op.cols);
}

// ---- invalid descriptors -----------------------------------------------------------

namespace {

// The decoder's checks in their documented order (docs/DESCRIPTORS.md):
// magic, version, opcode, flags and reserved bytes, then the fields' values.
enum class Fault { magic, version, opcode, flags, reserved, operand, vector_op, shape };
int stage(Fault f) {
  switch (f) {
    case Fault::magic:
      return 0;
    case Fault::version:
      return 1;
    case Fault::opcode:
      return 2;
    case Fault::flags:
    case Fault::reserved:
      return 3;
    default:
      return 4;
  }
}
ErrorCode code_of(Fault f) {
  switch (f) {
    case Fault::magic:
      return ErrorCode::desc_magic;
    case Fault::version:
      return ErrorCode::desc_version;
    case Fault::opcode:
      return ErrorCode::desc_opcode;
    case Fault::flags:
    case Fault::reserved:
      return ErrorCode::desc_reserved;
    case Fault::operand:
      return ErrorCode::desc_operand;
    case Fault::vector_op:
      return ErrorCode::desc_vector_op;
    case Fault::shape:
      return ErrorCode::desc_shape;
  }
  return ErrorCode::none;
}
const char* fault_name(Fault f) {
  switch (f) {
    case Fault::magic:
      return "bad magic";
    case Fault::version:
      return "bad version";
    case Fault::opcode:
      return "bad opcode";
    case Fault::flags:
      return "reserved flag bits";
    case Fault::reserved:
      return "reserved bytes";
    case Fault::operand:
      return "bad operand kind";
    case Fault::vector_op:
      return "bad vector op";
    case Fault::shape:
      return "zero shape";
  }
  return "?";
}

// Spoils `b` (a GEMM or vector descriptor) with `f`.
void spoil(DescriptorBytes& b, Fault f, Rng& g) {
  const bool gemm = b[regs::gemm_desc::opcode] == static_cast<std::uint8_t>(regs::DescOpcode::gemm);
  switch (f) {
    case Fault::magic: {
      std::uint32_t v;
      do v = static_cast<std::uint32_t>(g.next());
      while (v == regs::desc_magic);
      if (g.chance(0.5)) v = regs::desc_magic ^ (1u << g.between(0, 31));  // one bit off
      put(b, regs::gemm_desc::magic, v);
      break;
    }
    case Fault::version: {
      std::uint8_t v;
      do v = static_cast<std::uint8_t>(g.next());
      while (v == regs::desc_version);
      b[regs::gemm_desc::version] = v;
      break;
    }
    case Fault::opcode: {
      std::uint8_t v;
      do v = static_cast<std::uint8_t>(g.chance(0.5) ? g.between(0, 4) : g.next());
      while (v == static_cast<std::uint8_t>(regs::DescOpcode::gemm) ||
             v == static_cast<std::uint8_t>(regs::DescOpcode::vector));
      b[regs::gemm_desc::opcode] = v;
      break;
    }
    case Fault::flags: {
      // GEMM: any bit but FUNCTIONAL; a vector op has no flags at all.
      std::uint16_t flags = static_cast<std::uint16_t>(b[regs::gemm_desc::flags] | b[regs::gemm_desc::flags + 1] << 8);
      const std::uint64_t lowest = gemm ? 1 : 0;
      flags = static_cast<std::uint16_t>(flags | 1u << g.between(lowest, 15));
      put(b, regs::gemm_desc::flags, flags);
      break;
    }
    case Fault::reserved: {
      const std::uint32_t from = gemm ? regs::gemm_desc::reserved : regs::vector_desc::reserved;
      b[g.between(from, regs::desc_bytes - 1)] = static_cast<std::uint8_t>(g.between(1, 255));
      break;
    }
    case Fault::operand: {
      // Past the last operand kind.
      const auto first = static_cast<std::uint32_t>(regs::OperandCode::fp16_weights) + 1;
      put(b, regs::gemm_desc::operand,
          static_cast<std::uint32_t>(g.chance(0.5) ? g.between(first, 9) : g.between(first, ~0u)));
      break;
    }
    case Fault::vector_op:
      put(b, regs::vector_desc::op, static_cast<std::uint32_t>(g.chance(0.5) ? g.between(8, 9) : g.between(8, ~0u)));
      break;
    case Fault::shape:
      if (gemm) {
        const std::uint32_t fields[] = {regs::gemm_desc::m, regs::gemm_desc::n, regs::gemm_desc::k,
                                        regs::gemm_desc::count};
        const std::uint64_t first = g.between(0, 3);
        for (std::uint64_t i = 0; i < 4; ++i)
          if (i == first || g.chance(0.2)) put(b, fields[i], std::uint32_t{0});
      } else {
        const std::uint64_t which = g.between(0, 2);  // rows, cols, both
        if (which != 1) put(b, regs::vector_desc::rows, std::uint32_t{0});
        if (which != 0) put(b, regs::vector_desc::cols, std::uint32_t{0});
      }
      break;
  }
}

}  // namespace

void Generator::make_invalid(Batch& b, Arena& a, std::size_t r) {
  Rng& g = m_rng;
  const double u = g.uniform();
  if (u < 0.15) {
    make_unsupported(b, a, r);
    return;
  }
  if (u < 0.4) {
    make_data_bus_error(b, a, r);
    return;
  }
  // A decoder error, each code as often, on a descriptor that would otherwise
  // run (functional at times, so that running it by mistake would show in
  // its outputs).
  static const std::vector<Fault> faults = {Fault::magic,   Fault::version,   Fault::opcode, Fault::flags,
                                            Fault::operand, Fault::vector_op, Fault::shape};
  Fault f = g.pick(faults);
  if (f == Fault::flags && g.chance(0.5)) f = Fault::reserved;  // DESC_RESERVED: flag bits or bytes
  const bool vector = f == Fault::vector_op || (f != Fault::operand && g.chance(0.4));
  make_valid(b, a, r, vector ? Category::vector : g.chance(0.3) ? Category::functional : Category::timing);
  Record& rec = b.records[r];
  spoil(rec.bytes, f, g);
  std::string what = fault_name(f);
  // Later checks' faults too, at times: the first in the documented order
  // wins (one value fault at most: their order is not documented).
  static const std::vector<Fault> later_gemm = {Fault::opcode, Fault::flags, Fault::reserved, Fault::operand,
                                                Fault::shape};
  static const std::vector<Fault> later_vector = {Fault::opcode, Fault::flags, Fault::reserved, Fault::vector_op,
                                                  Fault::shape};
  bool value_fault = stage(f) == 4;
  for (Fault later : vector ? later_vector : later_gemm)
    if (stage(later) > stage(f) && !(stage(later) == 4 && value_fault) && g.chance(0.25)) {
      spoil(rec.bytes, later, g);
      what += fmt::format(" + {}", fault_name(later));
      value_fault = value_fault || stage(later) == 4;
    }
  rec.what = fmt::format("{} on {}", what, rec.what);
  rec.category = Category::invalid;
  rec.error = code_of(f);
}

// Operations the architecture refuses (Accelerator::check): attention with
// data, VQ weights with K not a multiple of d, EVA's INT8 prefill with data,
// vq-conflict activations larger than its input buffer with data.
void Generator::make_unsupported(Batch& b, Arena& a, std::size_t r) {
  Rng& g = m_rng;
  const ArchConfig& c = m_arch;
  GemmDescriptor op;
  std::string why;
  std::vector<int> options = {0};
  if (is_vq(c)) options.push_back(1);
  if (c.kind == ArchKind::eva) options.push_back(2);
  if (c.kind == ArchKind::vq_conflict) options.push_back(3);
  switch (g.pick(options)) {
    case 0:
      op.operand = GemmOperand::kv_cache;
      op.functional = true;
      op.m = g.log_between(1, 8);
      op.k = g.log_between(1, 256);
      op.n = g.log_between(1, 1024);
      why = "attention with FUNCTIONAL";
      break;
    case 1: {
      const auto d = static_cast<std::uint64_t>(c.vq.vector_dim);
      timing_shape(c, g, op.m, op.n, op.k);
      op.k += g.between(1, d - 1);
      op.functional = g.chance(0.5);
      why = fmt::format("K = {} not a multiple of d = {}", op.k, d);
      break;
    }
    case 2:
      op.m = g.between(static_cast<std::uint64_t>(c.vq.prefill_above_m) + 1, 256);
      op.k = static_cast<std::uint64_t>(c.vq.vector_dim) * g.log_between(1, 64);
      op.n = g.log_between(1, 1024);
      op.functional = true;
      why = "functional INT8 prefill";
      break;
    default: {
      const std::uint64_t input = static_cast<std::uint64_t>(c.buffers.input_kib) * 1024;
      op.k = static_cast<std::uint64_t>(c.vq.vector_dim) * g.log_between(64, 512);
      op.m = input / (2 * op.k) + g.between(1, 8);
      op.n = g.log_between(1, 1024);
      op.functional = true;
      why = "functional activations beyond the input buffer";
      break;
    }
  }
  op.count = g.between(1, 3);
  op.act_addr = anywhere(1);
  op.weight_addr = anywhere(1);
  op.codebook_addr = anywhere(1);
  std::uint64_t out_at = 0;
  add_output_block(b, a, r, std::min<std::uint64_t>(op.m * op.n * 2, 4096), out_at);  // nothing may be written
  op.out_addr = out_at;
  Record& rec = b.records[r];
  rec.bytes = encode_descriptor(op, 0, static_cast<std::uint32_t>(rec.index));
  rec.what = fmt::format("unsupported: {} (m={} n={} k={})", why, op.m, op.n, op.k);
  rec.category = Category::invalid;
  rec.error = ErrorCode::unsupported;
}

// A valid descriptor with one operand (at times only the last of its count)
// not wholly in memory: DATA_BUS_ERROR, ERROR_ADDR a burst of that operand
// that reaches beyond the end of memory.
void Generator::make_data_bus_error(Batch& b, Arena& a, std::size_t r) {
  Rng& g = m_rng;
  static const std::vector<Category> kinds = {Category::functional, Category::timing, Category::attention,
                                              Category::vector};
  make_valid(b, a, r, g.pick(kinds));
  Record& rec = b.records[r];
  const DecodedDescriptor d = decode_descriptor(rec.bytes.data(), rec.bytes.size());
  // The operand moved: its address field, the stride between its copies,
  // its bytes, whether the operation writes it.
  struct Operand {
    std::uint64_t* addr;
    std::uint64_t stride, bytes;
    bool output;
    const char* name;
  };
  std::vector<Operand> operands;
  GemmDescriptor gemm;
  VectorDescriptor vector;
  std::uint64_t count = 1;
  if (const auto* gm = std::get_if<GemmDescriptor>(&d.op)) {
    gemm = *gm;
    count = gemm.count;
    OperandSizes s;
    if (gemm.operand == GemmOperand::kv_cache) {
      s.activations = gemm.m * gemm.k * 2;
      s.weights = kv_bytes(m_arch, gemm.n, gemm.k);
      s.outputs = gemm.m * gemm.n * 2;
    } else {
      s = m_sizes(gemm.m, gemm.n, gemm.k);
    }
    operands.push_back({&gemm.act_addr, gemm.act_stride, s.activations, false, "activations"});
    operands.push_back({&gemm.weight_addr, gemm.weight_stride, s.weights, false, "weights"});
    operands.push_back({&gemm.out_addr, gemm.out_stride, s.outputs, true, "outputs"});
    if (gemm.operand == GemmOperand::weights && s.codebooks > 0)
      operands.push_back({&gemm.codebook_addr, 0, s.codebooks, false, "codebooks"});
  } else {
    vector = std::get<VectorDescriptor>(d.op);
    const std::uint64_t bytes = vector.rows * vector.cols * 2;
    operands.push_back({&vector.in_addr, 0, bytes, false, "input"});
    operands.push_back({&vector.out_addr, 0, bytes, true, "output"});
    if (vector_op_binary(vector.op)) operands.push_back({&vector.in2_addr, 0, bytes, false, "second input"});
  }
  const Operand o = g.pick(operands);
  std::uint64_t lo = 0;  // the copy outside memory
  bool last = false;
  if (count > 1 && o.stride >= o.bytes && !o.output && g.chance(0.5)) {
    // The last GEMM's copy straddles the end or lies just beyond; the earlier
    // ones are in memory.
    last = true;
    lo = g.between(m_capacity - o.bytes + 1, m_capacity + o.stride - o.bytes);
    *o.addr = lo - (count - 1) * o.stride;
  } else if (o.output) {
    // Written data must not land in memory outside this batch's window: wholly
    // beyond the end, every copy below 2^64, or straddling where nothing else is.
    const std::uint64_t span = (count - 1) * o.stride + o.bytes;
    lo = count == 1 && o.bytes > 1 && !m_top_in_use && g.chance(0.3) ? m_capacity - g.between(1, o.bytes - 1)
                                                                     : g.between(m_capacity, ~0ull - span + 1);
    *o.addr = lo;
  } else {
    lo = outside(o.bytes);
    *o.addr = lo;
  }
  if (o.output)  // the block is not where the outputs go any more
    b.outputs.erase(
        std::remove_if(b.outputs.begin(), b.outputs.end(), [&](const OutputBlock& ob) { return ob.record == r; }),
        b.outputs.end());
  rec.bytes = d.op.index() == 0 ? encode_descriptor(gemm, 0, static_cast<std::uint32_t>(rec.index))
                                : encode_descriptor(vector, 0, static_cast<std::uint32_t>(rec.index));
  const auto burst = static_cast<std::uint64_t>(m_arch.dma.burst_bytes);
  rec.what = fmt::format("bus error: {} with its {}{} at 0x{:x} ({} B)", rec.what, o.name,
                         last ? " (the last GEMM's)" : "", lo, o.bytes);
  rec.category = Category::invalid;
  rec.error = ErrorCode::data_bus_error;
  // A failing burst lies in the operand and reaches beyond the end (or 2^64).
  rec.error_lo = std::max(lo, m_capacity - std::min(m_capacity, burst - 1));
  rec.error_hi = lo + (o.bytes - 1) < lo ? ~0ull : lo + (o.bytes - 1);
}

// ---- batches -----------------------------------------------------------------

Batch Generator::next() {
  Rng& g = m_rng;
  Batch b;
  b.index = m_batches++;
  const std::uint64_t limit = static_cast<std::uint64_t>(m_arch.periph.chain_limit);
  const auto burst = static_cast<std::uint64_t>(m_arch.dma.burst_bytes);

  // Between batches: a soft reset, a new ring (at times partly or wholly
  // beyond the end of memory), a doorbell the peripheral must refuse.
  b.soft_reset = g.chance(0.03);
  const bool relocate = b.soft_reset || !m_ring_programmed || !m_ring_usable || g.chance(0.1);
  bool ring_outside = false;
  if (relocate) {
    b.program_ring = true;
    m_ring.size = static_cast<std::uint32_t>(g.chance(0.2) ? g.between(2, 3) : g.between(4, 16));
    const std::uint64_t ring_bytes = m_ring.size * desc;
    ring_outside = !b.soft_reset && m_ring_programmed && m_ring_usable && g.chance(0.15);
    if (ring_outside) {
      // Partly beyond the end (the first slots fetch, the later ones fail), or wholly.
      m_ring.base = g.chance(0.6) ? m_capacity - g.between(0, m_ring.size - 1) * desc : outside(ring_bytes);
      if (m_ring.base + ring_bytes < m_ring.base) m_ring.base = m_capacity;  // keep the ring below 2^64
    } else if (g.chance(0.5) || m_capacity < (1ull << 32) + MiB) {
      m_ring.base = align_up(g.between(0x1000, 0xf0000 - ring_bytes), 8);  // page 0
    } else {
      m_ring.base = (1ull << 32) - g.between(0, m_ring.size) * desc - 8 * g.between(0, 15);  // across 4 GiB
    }
    m_ring_programmed = true;
    m_ring_usable = m_ring.base + ring_bytes <= m_capacity;
    m_tail = 0;
  }
  b.ring = m_ring;
  if (g.chance(0.05)) {
    b.misconfig = g.chance(0.5) ? Misconfig::tail_beyond : Misconfig::size_zero;
    b.bad_tail = static_cast<std::uint32_t>(g.chance(0.5) ? g.between(m_ring.size, m_ring.size + 8) : g.next());
    if (b.bad_tail < m_ring.size) b.bad_tail = m_ring.size;
    if (b.misconfig == Misconfig::size_zero) m_tail = 0;  // RING_SIZE written again: HEAD and TAIL to 0
  }
  b.first_slot = m_tail;

  // The mode, and how many failures it can observe one by one.
  const double u = g.uniform();
  b.mode = u < 0.3    ? Mode::irq
           : u < 0.45 ? Mode::trickle
           : u < 0.75 ? Mode::poll
           : u < 0.85 ? Mode::late_enable
           : u < 0.95 ? Mode::pause
                      : Mode::reset;
  if (ring_outside) b.mode = Mode::poll;  // several fetches fail in a row
  const bool many_failures = b.mode == Mode::poll;
  bool may_fail = b.mode != Mode::reset && (many_failures || g.chance(0.9));

  // The window for this batch's operands, descriptors and outputs.
  const std::uint64_t w = ring_outside ? g.between(0, m_windows.size() - 2) : g.between(0, m_windows.size() - 1);
  const bool top = w == m_windows.size() - 1;
  Arena arena{m_windows[w], m_windows[w] + window_bytes, top && g.chance(0.5), g};
  m_top_in_use = top || ring_outside;

  const std::uint64_t entries = g.between(1, std::min<std::uint64_t>(many_failures ? 6 : 4, m_ring.size - 1));
  for (std::uint64_t e = 0; e < entries; ++e) {
    const auto slot = static_cast<std::uint32_t>((b.first_slot + e) % m_ring.size);
    const std::uint64_t slot_addr = m_ring.base + slot * desc;
    // The chain: its descriptors' categories, and how it may fail.
    const bool invalid_here = may_fail && g.chance(many_failures ? 0.5 : 1.0 / static_cast<double>(entries - e));
    if (invalid_here && !many_failures) may_fail = false;
    const double cu = g.uniform();
    const bool chain_limit = invalid_here && limit <= 64 && cu < 0.12;
    const bool chain_at_limit = !invalid_here && limit <= 64 && cu < 0.03;  // exactly the limit: fine
    const bool fetch_fault = invalid_here && !chain_limit && cu < 0.2;      // `next` beyond memory
    std::size_t length = chain_limit || chain_at_limit ? limit : g.chance(0.7) ? 1 : g.between(2, 3);
    bool loop = false;
    if (chain_limit) {
      loop = g.chance(0.7);
      length = loop ? g.between(1, 3) : limit + g.between(1, 2);
    }
    const std::size_t bad_at = invalid_here && !chain_limit && !fetch_fault ? g.between(0, length - 1) : length;
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < length; ++i) {
      std::size_t r;
      if (i == 0) {
        Record rec;
        rec.index = m_descriptors++;
        rec.entry = e;
        rec.addr = slot_addr;
        rec.in_memory = slot_addr + desc <= m_capacity && slot_addr + desc > slot_addr;
        b.records.push_back(rec);
        r = b.records.size() - 1;
      } else {
        add_record(b, arena, e);
        r = b.records.size() - 1;
      }
      members.push_back(r);
      if (!b.records[r].in_memory) {
        Record& rec = b.records[r];
        rec.category = Category::invalid;
        rec.error = ErrorCode::fetch_bus_error;
        rec.error_lo = std::max(rec.addr, m_capacity - std::min(m_capacity, burst - 1));
        rec.error_hi = rec.addr + desc - 1;
        rec.what = fmt::format("ring entry at 0x{:x}, beyond the end of memory", rec.addr);
        break;  // nothing follows a descriptor that cannot be fetched
      }
      if (i == bad_at) {
        make_invalid(b, arena, r);
      } else {
        // Long chains and loops: cheap descriptors.
        const bool cheap = chain_limit || chain_at_limit;
        const double v = g.uniform();
        const Category c = cheap ? (v < 0.1   ? Category::functional
                                    : v < 0.3 ? Category::timing
                                              : Category::vector)
                                 : (v < 0.45   ? Category::functional
                                    : v < 0.55 ? Category::garbage
                                    : v < 0.7  ? Category::timing
                                    : v < 0.8  ? Category::attention
                                               : Category::vector);
        if (cheap && c == Category::timing) {
          make_vector(b, arena, r);
          b.records[r].category = Category::vector;
        } else {
          make_valid(b, arena, r, c);
        }
      }
    }
    // Link the chain.
    for (std::size_t i = 0; i + 1 < members.size(); ++i) b.records[members[i]].next = b.records[members[i + 1]].addr;
    if (loop) b.records[members.back()].next = b.records[members[g.between(0, members.size() - 1)]].addr;
    if (fetch_fault && b.records[members.back()].in_memory) {
      Record phantom;
      phantom.index = m_descriptors++;
      phantom.entry = e;
      phantom.addr = outside(desc);
      phantom.in_memory = false;
      phantom.category = Category::invalid;
      phantom.error = ErrorCode::fetch_bus_error;
      phantom.error_lo = std::max(phantom.addr, m_capacity - std::min(m_capacity, burst - 1));
      phantom.error_hi = phantom.addr + (desc - 1);
      if (phantom.error_hi < phantom.addr) phantom.error_hi = ~0ull;
      phantom.what = fmt::format("chained descriptor at 0x{:x}, not wholly in memory", phantom.addr);
      b.records[members.back()].next = phantom.addr;
      b.records.push_back(phantom);
    }
    for (std::size_t r : members) {
      Record& rec = b.records[r];
      if (!rec.in_memory) continue;
      put(rec.bytes, regs::gemm_desc::next, rec.next);
      if (chain_limit) rec.what += loop ? " (in a chain that loops)" : " (in a chain beyond the limit)";
      b.inputs.push_back({rec.addr, std::vector<std::uint8_t>(rec.bytes.begin(), rec.bytes.end())});
    }
    b.entries.push_back(members.front());
  }
  m_tail = b.last_slot();
  if (b.mode == Mode::reset) m_ring_programmed = false;  // the reset clears the ring registers
  predict(b);
  return b;
}

void Generator::predict(Batch& b) const {
  const auto limit = static_cast<std::uint64_t>(m_arch.periph.chain_limit);
  std::map<std::uint64_t, std::size_t> at;
  for (std::size_t r = 0; r < b.records.size(); ++r) at[b.records[r].addr] = r;
  b.runs.assign(b.records.size(), 0);
  b.ran.assign(b.records.size(), false);
  for (std::size_t e : b.entries) {
    std::uint64_t addr = b.records[e].addr;
    for (std::uint64_t n = 0; addr != 0; ++n) {
      const std::size_t r = at.at(addr);
      const Record& rec = b.records[r];
      if (n == limit) {
        b.failures.push_back({ErrorCode::chain_limit, addr, addr, r});
        break;
      }
      if (rec.error == ErrorCode::fetch_bus_error ||
          (rec.error != ErrorCode::none && rec.error != ErrorCode::data_bus_error)) {
        const bool exact = rec.error != ErrorCode::fetch_bus_error;
        b.failures.push_back({rec.error, exact ? addr : rec.error_lo, exact ? addr : rec.error_hi, r});
        break;
      }
      b.ran[r] = true;
      if (rec.error == ErrorCode::data_bus_error) {
        b.failures.push_back({rec.error, rec.error_lo, rec.error_hi, r});
        break;
      }
      ++b.runs[r];
      ++b.done;
      addr = rec.next;
    }
  }
  b.failed = b.failures.size();
}

}  // namespace eva::soak
