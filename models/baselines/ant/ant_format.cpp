#include "baselines/ant/ant_format.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace eva::ant {
namespace {

void check_format(const AntFormat& format) {
  if (format.bits < 2 || format.bits > 8)
    throw std::invalid_argument("ANT: bits must be in [2, 8], got " + std::to_string(format.bits));
}

// Unsigned n-bit flint (BASELINES.md 1.2): the MSB-0 half is a plain integer;
// in the MSB-1 half, k leading ones pick the exponent 2k-1 and the remaining
// n-k-1 bits are the mantissa under an implicit leading one.
PeOperand flint_magnitude(std::uint32_t code, int n) {
  const std::uint32_t msb = 1u << (n - 1);
  if ((code & msb) == 0) return {false, code, 0};
  int k = 0;
  while (k < n && (code & (msb >> k)) != 0) ++k;
  if (k == n) return {false, 1, 2 * n - 2};
  const int m = n - k - 1;
  return {false, (1u << m) + (code & ((1u << m) - 1)), 2 * k - 1};
}

PeOperand pot_magnitude(std::uint32_t code) {
  if (code == 0) return {false, 0, 0};
  return {false, 1, static_cast<int>(code) - 1};
}

double value_of(const PeOperand& op) {
  const double v = std::ldexp(static_cast<double>(op.i), op.e);
  return op.negative && op.i != 0 ? -v : v;  // the sign-magnitude -0 is 0
}

double max_magnitude(const AntFormat& format) {
  const std::vector<double> g = grid(format);
  return std::max(-g.front(), g.back());
}

struct ChannelFit {
  double alpha = 0;
  double mse = 0;
};

// The alpha = max|x|·p/100, p in [low, up), with the least mean squared error.
ChannelFit fit_alpha(const AntQuantizer& quantizer, const float* x, std::size_t n, int low, int up) {
  double max_abs = 0;
  for (std::size_t i = 0; i < n; ++i) max_abs = std::max(max_abs, std::fabs(static_cast<double>(x[i])));
  if (max_abs == 0) return {};  // all zero: code 0 is exact for any alpha
  ChannelFit best{0, std::numeric_limits<double>::infinity()};
  for (int p = low; p < up; ++p) {
    const double alpha = max_abs * p / 100.0;
    double sse = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double d = quantizer.fake_quantize(x[i], alpha) - x[i];
      sse += d * d;
    }
    const double mse = sse / static_cast<double>(n);
    if (mse < best.mse) best = {alpha, mse};
  }
  return best;
}

}  // namespace

const char* type_name(AntType type) {
  switch (type) {
    case AntType::int_type:
      return "int";
    case AntType::flint:
      return "flint";
    case AntType::pot:
      return "pot";
  }
  return "?";
}

PeOperand pe_decode(const AntFormat& format, std::uint32_t code) {
  check_format(format);
  const std::uint32_t sign_bit = 1u << (format.bits - 1);
  if (code >= sign_bit << 1)
    throw std::invalid_argument("ANT: code " + std::to_string(code) + " has more than " + std::to_string(format.bits) +
                                " bits");
  if (format.type == AntType::int_type) {
    if (format.is_signed && (code & sign_bit) != 0) return {true, (sign_bit << 1) - code, 0};  // two's complement
    return {false, code, 0};
  }
  const int n = format.is_signed ? format.bits - 1 : format.bits;
  const std::uint32_t magnitude = code & ((1u << n) - 1);
  PeOperand op = format.type == AntType::flint ? flint_magnitude(magnitude, n) : pot_magnitude(magnitude);
  op.negative = format.is_signed && (code & sign_bit) != 0;
  return op;
}

double decode(const AntFormat& format, std::uint32_t code) { return value_of(pe_decode(format, code)); }

std::uint32_t encode(const AntFormat& format, double value) {
  check_format(format);
  for (std::uint32_t code = 0; code < (1u << format.bits); ++code)
    if (decode(format, code) == value) return code;
  throw std::invalid_argument("ANT: " + std::to_string(value) + " is not on the " + type_name(format.type) + " grid");
}

std::vector<double> grid(const AntFormat& format) {
  check_format(format);
  std::vector<double> g;
  for (std::uint32_t code = 0; code < (1u << format.bits); ++code) g.push_back(decode(format, code));
  std::sort(g.begin(), g.end());
  g.erase(std::unique(g.begin(), g.end()), g.end());
  return g;
}

double grid_max(const AntFormat& format) { return grid(format).back(); }

double nearest(const std::vector<double>& ascending_grid, double v) {
  const auto it = std::lower_bound(ascending_grid.begin(), ascending_grid.end(), v);
  if (it == ascending_grid.begin()) return ascending_grid.front();
  if (it == ascending_grid.end()) return ascending_grid.back();
  const double lo = *(it - 1), hi = *it;
  return v - lo < hi - v ? lo : hi;
}

AntQuantizer::AntQuantizer(const AntFormat& format) : m_format(format), m_grid(grid(format)) {
  for (const double g : m_grid) m_codes.push_back(encode(format, g));
}

std::size_t AntQuantizer::nearest_index(double x, double alpha) const {
  if (alpha <= 0) return static_cast<std::size_t>(std::lower_bound(m_grid.begin(), m_grid.end(), 0.0) - m_grid.begin());
  const double v = nearest(m_grid, x * max() / alpha);
  return static_cast<std::size_t>(std::lower_bound(m_grid.begin(), m_grid.end(), v) - m_grid.begin());
}

std::uint32_t AntQuantizer::quantize(double x, double alpha) const { return m_codes[nearest_index(x, alpha)]; }

double AntQuantizer::dequantize(std::uint32_t code, double alpha) const {
  return decode(m_format, code) * alpha / max();
}

double AntQuantizer::fake_quantize(double x, double alpha) const {
  if (alpha <= 0) return 0;
  return nearest(m_grid, x * max() / alpha) * alpha / max();
}

void pe_mac(std::int64_t& acc, const PeOperand& a, const PeOperand& w) {
  const std::int64_t product = static_cast<std::int64_t>(static_cast<std::uint64_t>(a.i) * w.i) << (a.e + w.e);
  acc += a.negative != w.negative ? -product : product;
}

std::int64_t pe_dot(const AntFormat& a_format, const std::uint32_t* a_codes, const AntFormat& w_format,
                    const std::uint32_t* w_codes, std::size_t k) {
  // Doubles hold these bounds exactly enough: they are powers of two times small integers.
  if (max_magnitude(a_format) * max_magnitude(w_format) * static_cast<double>(k) >= std::ldexp(1.0, 62))
    throw std::overflow_error("ANT: a " + std::to_string(k) + "-term dot product of these formats overflows int64");
  std::int64_t acc = 0;
  for (std::size_t t = 0; t < k; ++t) pe_mac(acc, pe_decode(a_format, a_codes[t]), pe_decode(w_format, w_codes[t]));
  return acc;
}

double pe_scale(const AntFormat& a_format, double alpha_a, const AntFormat& w_format, double alpha_w) {
  return alpha_a / grid_max(a_format) * (alpha_w / grid_max(w_format));
}

AntChoice select_type(const std::vector<float>& x, std::size_t channels, int bits, TensorKind kind,
                      const SearchOptions& options) {
  if (x.empty() || channels == 0 || x.size() % channels != 0)
    throw std::invalid_argument("ANT: " + std::to_string(x.size()) + " values do not split into " +
                                std::to_string(channels) + " channels");
  const int low = options.low > 0 ? options.low : (bits > 6 ? 95 : 75);
  if (low >= options.up) throw std::invalid_argument("ANT: empty alpha search range");
  // Above 6 bits the reference code uses int whatever the mode string says.
  const std::vector<AntType> candidates = bits > 6 ? std::vector<AntType>{AntType::int_type} : options.candidates;
  if (candidates.empty()) throw std::invalid_argument("ANT: no candidate types");
  const bool is_signed = kind == TensorKind::weight || *std::min_element(x.begin(), x.end()) < 0;
  const std::size_t per_channel = kind == TensorKind::weight ? x.size() / channels : x.size();

  AntChoice choice;
  choice.mse = std::numeric_limits<double>::infinity();
  for (const AntType type : candidates) {
    const AntQuantizer quantizer({type, bits, is_signed});
    std::vector<double> alphas;
    double score = 0;
    for (std::size_t c = 0; c * per_channel < x.size(); ++c) {
      const ChannelFit fit = fit_alpha(quantizer, x.data() + c * per_channel, per_channel, low, options.up);
      alphas.push_back(fit.alpha);
      score += fit.mse;
    }
    choice.scores.emplace_back(type, score);
    if (score < choice.mse || choice.scores.size() == 1) {
      choice.format = quantizer.format();
      choice.alphas = std::move(alphas);
      choice.mse = score;
    }
  }
  const AntQuantizer quantizer(choice.format);
  choice.codes.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    choice.codes.push_back(quantizer.quantize(x[i], choice.alphas[i / per_channel]));
  return choice;
}

}  // namespace eva::ant
