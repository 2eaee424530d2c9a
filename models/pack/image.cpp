#include "pack/image.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "common/accel_config.hpp"
#include "common/error.hpp"
#include "common/fp16.hpp"
#include "common/int_quant.hpp"
#include "pack/operand_layout.hpp"

namespace eva {

namespace {

void put32(std::vector<std::uint8_t>& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void put64(std::vector<std::uint8_t>& b, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
std::uint64_t get(const std::vector<std::uint8_t>& b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(b[at + static_cast<std::size_t>(i)]) << (8 * i);
  return v;
}
std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

std::vector<std::uint8_t> fp16_image(const std::vector<double>& y) {
  std::vector<std::uint8_t> out;
  out.reserve(y.size() * 2);
  for (double v : y) {
    const half_bits h = float_to_half(static_cast<float>(v));
    out.push_back(static_cast<std::uint8_t>(h & 0xffu));
    out.push_back(static_cast<std::uint8_t>(h >> 8));
  }
  return out;
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double e : v) m = std::max(m, std::fabs(e));
  return m;
}

void finish(PackedOp& p, const ArchConfig& c, double abs_sum) {
  p.reference_fp16 = fp16_image(p.reference);
  p.ref_checksum = fnv1a64(p.reference_fp16.data(), p.reference_fp16.size());
  p.tolerance_q24 = tolerance_q24(c, p.k, max_abs(p.reference), abs_sum);
}

}  // namespace

std::uint64_t fnv1a64(const std::uint8_t* data, std::size_t size) {
  std::uint64_t h = EVA_IMAGE_FNV_OFFSET;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= data[i];
    h *= EVA_IMAGE_FNV_PRIME;
  }
  return h;
}

std::vector<std::uint8_t> encode_op_table(const std::vector<eva_image_op_t>& ops) {
  std::vector<std::uint8_t> b;
  put32(b, EVA_IMAGE_TABLE_MAGIC);
  put32(b, EVA_IMAGE_TABLE_VERSION);
  put32(b, static_cast<std::uint32_t>(ops.size()));
  put32(b, 0);
  for (const eva_image_op_t& o : ops) {
    put32(b, o.arch);
    put32(b, o.flags);
    for (std::uint64_t v : {o.m, o.n, o.k, o.act_addr, o.weight_addr, o.codebook_addr, o.out_addr, o.ref_addr,
                            o.ref_checksum, o.tolerance_q24, o.reserved[0], o.reserved[1]})
      put64(b, v);
  }
  return b;
}

GemmDescriptor gemm_descriptor(const eva_image_op_t& op) {
  GemmDescriptor d;
  d.m = op.m;
  d.n = op.n;
  d.k = op.k;
  d.act_addr = op.act_addr;
  d.weight_addr = op.weight_addr;
  d.codebook_addr = op.codebook_addr;
  d.out_addr = op.out_addr;
  d.functional = (op.flags & EVA_IMAGE_OP_FUNCTIONAL) != 0;
  return d;
}

std::vector<eva_image_op_t> decode_op_table(const std::vector<std::uint8_t>& b) {
  if (b.size() < EVA_IMAGE_TABLE_BYTES)
    throw InputError(
        fmt::format("op table: {} bytes, shorter than its {}-byte header", b.size(), EVA_IMAGE_TABLE_BYTES));
  if (get(b, 0, 4) != EVA_IMAGE_TABLE_MAGIC) throw InputError("op table, byte 0: magic is not 'EVAT'");
  if (get(b, 4, 4) != EVA_IMAGE_TABLE_VERSION)
    throw InputError(fmt::format("op table, byte 4: version {} (expected {})", get(b, 4, 4), EVA_IMAGE_TABLE_VERSION));
  const std::uint64_t count = get(b, 8, 4);
  if (b.size() < EVA_IMAGE_TABLE_BYTES + count * EVA_IMAGE_OP_BYTES)
    throw InputError(fmt::format("op table: {} ops need {} bytes, the table has {}", count,
                                 EVA_IMAGE_TABLE_BYTES + count * EVA_IMAGE_OP_BYTES, b.size()));
  std::vector<eva_image_op_t> ops(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::size_t at = EVA_IMAGE_TABLE_BYTES + i * EVA_IMAGE_OP_BYTES;
    eva_image_op_t& o = ops[i];
    o.arch = static_cast<std::uint32_t>(get(b, at + 0, 4));
    o.flags = static_cast<std::uint32_t>(get(b, at + 4, 4));
    std::uint64_t* fields[] = {&o.m,
                               &o.n,
                               &o.k,
                               &o.act_addr,
                               &o.weight_addr,
                               &o.codebook_addr,
                               &o.out_addr,
                               &o.ref_addr,
                               &o.ref_checksum,
                               &o.tolerance_q24,
                               &o.reserved[0],
                               &o.reserved[1]};
    for (std::size_t f = 0; f < 12; ++f) *fields[f] = get(b, at + 8 + 8 * f, 8);
  }
  return ops;
}

std::vector<std::uint8_t> encode_image(const std::vector<ImageSegment>& segments) {
  // The magic's 8 characters, without its terminating NUL.
  const std::string_view magic(EVA_IMAGE_FILE_MAGIC, 8);
  std::vector<std::uint8_t> b(magic.begin(), magic.end());
  put32(b, EVA_IMAGE_FILE_VERSION);
  put32(b, static_cast<std::uint32_t>(segments.size()));
  for (const ImageSegment& s : segments) {
    put64(b, s.address);
    put64(b, s.bytes.size());
    b.insert(b.end(), s.bytes.begin(), s.bytes.end());
    b.resize(align_up(b.size(), EVA_IMAGE_SEGMENT_ALIGN), 0);
  }
  return b;
}

std::vector<ImageSegment> decode_image(const std::vector<std::uint8_t>& b) {
  if (b.size() < EVA_IMAGE_FILE_HEADER_BYTES) throw InputError("image: shorter than its 16-byte header");
  if (std::memcmp(b.data(), EVA_IMAGE_FILE_MAGIC, 8) != 0) throw InputError("image, byte 0: magic is not EVAIMG01");
  if (get(b, 8, 4) != EVA_IMAGE_FILE_VERSION)
    throw InputError(fmt::format("image, byte 8: version {} (expected {})", get(b, 8, 4), EVA_IMAGE_FILE_VERSION));
  const std::uint64_t count = get(b, 12, 4);
  std::vector<ImageSegment> segments;
  std::size_t at = EVA_IMAGE_FILE_HEADER_BYTES;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (b.size() - at < EVA_IMAGE_SEGMENT_HEADER_BYTES)
      throw InputError(fmt::format("image, byte {}: segment {} header cut short", at, i));
    ImageSegment s;
    s.address = get(b, at, 8);
    const std::uint64_t length = get(b, at + 8, 8);
    at += EVA_IMAGE_SEGMENT_HEADER_BYTES;
    if (length > b.size() - at)
      throw InputError(
          fmt::format("image, byte {}: segment {} claims {} bytes, {} remain", at - 8, i, length, b.size() - at));
    s.bytes.assign(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + length));
    at = static_cast<std::size_t>(std::min<std::uint64_t>(align_up(at + length, EVA_IMAGE_SEGMENT_ALIGN), b.size()));
    segments.push_back(std::move(s));
  }
  if (at != b.size())
    throw InputError(fmt::format("image, byte {}: {} bytes after the last segment", at, b.size() - at));
  return segments;
}

std::uint32_t image_arch_code(ArchKind kind) {
  // EVA_ARCH_* (models/periph/regmap.py): ArchKind's order, from 1.
  switch (kind) {
    case ArchKind::eva:
      return 1;
    case ArchKind::sa:
      return 2;
    case ArchKind::ant:
      return 3;
    case ArchKind::figna:
      return 4;
    case ArchKind::figlut:
      return 5;
    case ArchKind::vq_conflict:
      return 6;
  }
  return 0;
}

std::uint64_t output_bytes(const ArchConfig& c, std::uint64_t m, std::uint64_t n) {
  // sa, ant: integers of formats.out_bits packed; the FP16 ones: 2 bytes (EVA
  // decode mode; functional prefill is not modelled).
  if (c.kind == ArchKind::sa || c.kind == ArchKind::ant) return packed_bytes(m * n, c.formats.out_bits);
  return 2 * m * n;
}

std::vector<double> decode_outputs(const ArchConfig& c, std::uint64_t m, std::uint64_t n,
                                   const std::vector<std::uint8_t>& out, const std::vector<std::uint8_t>& parameters) {
  if (out.size() < output_bytes(c, m, n))
    throw InputError(
        fmt::format("{}: {} output bytes, M x N = {} x {} needs {}", c.name, out.size(), m, n, output_bytes(c, m, n)));
  if (c.kind != ArchKind::sa && c.kind != ArchKind::ant) return fp16_bytes_to_doubles(out, m * n);
  const std::size_t at = c.kind == ArchKind::ant ? 8 : 4;  // s_y
  if (parameters.size() < at + 4)
    throw InputError(fmt::format("{}: {} parameter bytes, too short to hold s_y", c.name, parameters.size()));
  float s_y;
  std::memcpy(&s_y, parameters.data() + at, 4);
  return int_bytes_to_doubles(out, m * n, c.formats.out_bits, s_y);
}

OutputCheck check_outputs(const std::vector<double>& y, const std::vector<std::uint8_t>& reference_fp16,
                          std::uint64_t tolerance_q24) {
  if (reference_fp16.size() != 2 * y.size())
    throw InputError(fmt::format("{} outputs, {} reference bytes", y.size(), reference_fp16.size()));
  OutputCheck r;
  r.tolerance = std::ldexp(static_cast<double>(tolerance_q24), -24);
  for (std::size_t i = 0; i < y.size(); ++i) {
    const auto h = static_cast<half_bits>(reference_fp16[2 * i] | (reference_fp16[2 * i + 1] << 8));
    const double e = std::fabs(y[i] - static_cast<double>(half_to_float(h)));
    if (std::isnan(e) || e > r.worst) {  // NaN (a NaN output) counts as infinitely wrong
      r.worst = std::isnan(e) ? HUGE_VAL : e;
      r.worst_at = i;
    }
  }
  r.ok = r.worst <= r.tolerance;
  return r;
}

std::uint64_t tolerance_q24(const ArchConfig& c, std::uint64_t k, double max_ref, double abs_sum) {
  // Relative rounding of each term (u) and FP32 additions on the way to an
  // output (adds), with a 4x margin on the FP32 part (2^-22, not 2^-24).
  double lsb = 0.0, u = 0.0, adds = 0.0;
  const double lookups = c.vq.vector_dim > 0 ? static_cast<double>(k) / c.vq.vector_dim * c.vq.codebooks : 0.0;
  switch (c.kind) {
    case ArchKind::sa:
    case ArchKind::ant:
      lsb = max_ref / static_cast<double>((std::int64_t{1} << (c.formats.out_bits - 1)) - 1);
      break;
    case ArchKind::figna:
      u = std::ldexp(1.0, -(9 + c.figna.guard_bits));
      adds = static_cast<double>(k) / c.systolic.rows + 2;
      break;
    case ArchKind::figlut:
      adds = 2.0 * static_cast<double>(k);
      break;
    case ArchKind::eva:
      u = std::ldexp(1.0, -11);
      adds = lookups + c.vq.vector_dim;
      break;
    case ArchKind::vq_conflict:
      adds = lookups + c.vq.vector_dim;
      break;
  }
  const double tol = std::ldexp(1.0, -10) * max_ref + lsb + (u + adds * std::ldexp(1.0, -22)) * abs_sum;
  return static_cast<std::uint64_t>(std::ceil(std::ldexp(tol, 24)));
}

PackedOp pack_dense_op(const ArchConfig& c, const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m,
                       std::uint64_t n, std::uint64_t k) {
  if (x.size() != m * k || w.size() != k * n)
    throw InputError(
        fmt::format("{}: x has {} values (M x K = {}), W {} (K x N = {})", c.name, x.size(), m * k, w.size(), k * n));
  EncodedGemm e = encode_gemm(c, x, w, m, n, k);
  PackedOp p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.arch = image_arch_code(c.kind);
  p.activations = std::move(e.activations);
  p.weights = std::move(e.weights);
  p.codebooks = std::move(e.parameters);
  p.out_bytes = output_bytes(c, m, n);
  p.reference = std::move(e.reference);
  p.format = e.format;
  // S; figna: each activation as large as its pre-alignment block's largest
  // (systolic.rows activations along K), whose exponent it is aligned to.
  const std::uint64_t block = c.kind == ArchKind::figna ? static_cast<std::uint64_t>(c.systolic.rows) : 1;
  std::vector<double> xs(m * k);
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t k0 = 0; k0 < k; k0 += block) {
      double big = 0.0;
      for (std::uint64_t kk = k0; kk < std::min(k, k0 + block); ++kk)
        big = std::max(big, std::fabs(static_cast<double>(x[i * k + kk])));
      for (std::uint64_t kk = k0; kk < std::min(k, k0 + block); ++kk) xs[i * k + kk] = big;
    }
  // |w|; figlut: the magnitude of its BCQ terms, sum_p |alpha_p| + |offset|,
  // which its FP32 sums carry and which need not be small where w is (the
  // terms of a column of zeros cancel).
  std::vector<double> w_abs(k * n);
  for (std::uint64_t i = 0; i < k * n; ++i) w_abs[i] = std::fabs(static_cast<double>(w[i]));
  if (c.kind == ArchKind::figlut) {
    const auto q = static_cast<std::uint64_t>(c.formats.weight_bits);
    const auto param = [&](std::uint64_t i) {
      return std::fabs(
          static_cast<double>(half_to_float(static_cast<half_bits>(p.codebooks[2 * i] | p.codebooks[2 * i + 1] << 8))));
    };
    for (std::uint64_t j = 0; j < n; ++j) {
      double terms = param(n * q + j);
      for (std::uint64_t b = 0; b < q; ++b) terms += param(j * q + b);
      for (std::uint64_t kk = 0; kk < k; ++kk) w_abs[kk * n + j] = terms;
    }
  }
  double s = 0.0;
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      double row = 0.0;
      for (std::uint64_t kk = 0; kk < k; ++kk) row += xs[i * k + kk] * w_abs[kk * n + j];
      s = std::max(s, row);
    }
  finish(p, c, s);
  return p;
}

PackedOp pack_vq_op(const ArchConfig& c, const VqMatrix& w, const std::vector<half_bits>& x, std::uint64_t m) {
  const VqFormat& f = c.vq;
  if (w.codebooks != f.codebooks || w.index_bits != f.index_bits || w.d != f.vector_dim ||
      w.group_k != static_cast<std::uint64_t>(f.group_k) || w.group_n != static_cast<std::uint64_t>(f.group_n))
    throw InputError(
        fmt::format("{}: the weights' VQ format ({} codebooks, {}-bit indices, d = {}) is not the "
                    "architecture's (vq.codebooks {}, vq.index_bits {}, vq.vector_dim {})",
                    c.name, w.codebooks, w.index_bits, w.d, f.codebooks, f.index_bits, f.vector_dim));
  if (x.size() != m * w.k) throw InputError(fmt::format("{}: x has {} values (M x K = {})", c.name, x.size(), m * w.k));
  if (c.kind == ArchKind::eva && m > static_cast<std::uint64_t>(f.prefill_above_m))
    throw InputError(
        fmt::format("{}: M = {} is above vq.prefill_above_m ({}): INT8 prefill mode has no functional "
                    "model",
                    c.name, m, f.prefill_above_m));
  PackedOp p;
  p.m = m;
  p.n = w.n;
  p.k = w.k;
  p.arch = image_arch_code(c.kind);
  p.activations.resize(x.size() * 2);
  for (std::size_t i = 0; i < x.size(); ++i) {
    p.activations[2 * i] = static_cast<std::uint8_t>(x[i] & 0xffu);
    p.activations[2 * i + 1] = static_cast<std::uint8_t>(x[i] >> 8);
  }
  p.weights = vq_index_image(c, w, m);
  p.codebooks.resize(w.centroids.size() * 2);
  for (std::size_t i = 0; i < w.centroids.size(); ++i) {
    p.codebooks[2 * i] = static_cast<std::uint8_t>(w.centroids[i] & 0xffu);
    p.codebooks[2 * i + 1] = static_cast<std::uint8_t>(w.centroids[i] >> 8);
  }
  p.out_bytes = output_bytes(c, m, w.n);
  p.reference = vq_reference(w, x, m);
  p.format = fmt::format("VQ {}x{}, d = {}, FP16 activations and codebooks", w.codebooks, w.index_bits, w.d);
  // S: the sum of |x| |centroid| over every lookup of an output.
  const auto d = static_cast<std::uint64_t>(w.d);
  double s = 0.0;
  for (std::uint64_t r = 0; r < m; ++r)
    for (std::uint64_t j = 0; j < w.n; ++j) {
      double sum = 0.0;
      for (std::uint64_t v = 0; v < w.subvectors(); ++v) {
        const std::uint64_t g = w.group_of(v * d, j);
        for (int cb = 0; cb < w.codebooks; ++cb)
          for (std::uint64_t t = 0; t < d; ++t)
            sum += std::fabs(static_cast<double>(half_to_float(x[r * w.k + v * d + t])) *
                             static_cast<double>(half_to_float(w.codebook(g, cb)[w.at(cb, v, j) * d + t])));
      }
      s = std::max(s, sum);
    }
  finish(p, c, s);
  return p;
}

std::vector<ImageSegment> layout_image(std::vector<PackedOp>& packed, std::vector<eva_image_op_t>& ops,
                                       std::uint64_t base, std::uint64_t table_addr) {
  ops.assign(packed.size(), eva_image_op_t{});
  const std::uint64_t table_bytes = EVA_IMAGE_TABLE_BYTES + packed.size() * EVA_IMAGE_OP_BYTES;
  if (table_addr < base && table_addr + table_bytes > base)
    throw InputError(fmt::format("table_addr {:#x}: the {}-byte op table overlaps the operands from base {:#x}",
                                 table_addr, table_bytes, base));
  std::uint64_t at = align_up(table_addr >= base ? table_addr + table_bytes : base, image_region_align);
  std::vector<ImageSegment> segments(1);
  const auto place = [&](std::vector<std::uint8_t> bytes) {
    const std::uint64_t addr = at;
    at = align_up(at + std::max<std::uint64_t>(bytes.size(), 1), image_region_align);
    segments.push_back({addr, std::move(bytes)});
    return addr;
  };
  for (std::size_t i = 0; i < packed.size(); ++i) {
    PackedOp& p = packed[i];
    eva_image_op_t& o = ops[i];
    o.arch = p.arch;
    o.flags = EVA_IMAGE_OP_FUNCTIONAL;
    o.m = p.m;
    o.n = p.n;
    o.k = p.k;
    o.act_addr = place(p.activations);
    o.weight_addr = place(p.weights);
    o.codebook_addr = p.codebooks.empty() ? 0 : place(p.codebooks);
    o.out_addr = place(std::vector<std::uint8_t>(p.out_bytes, 0));
    o.ref_addr = place(p.reference_fp16);
    o.ref_checksum = p.ref_checksum;
    o.tolerance_q24 = p.tolerance_q24;
  }
  segments[0] = {table_addr, encode_op_table(ops)};
  return segments;
}

}  // namespace eva
