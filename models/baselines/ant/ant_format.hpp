#pragma once
// ANT's adaptive number types (int, flint, power of two): value grids, the
// code <-> value map, the nearest-grid quantizer, the PE's decode to
// ±i·2^e with an integer MAC, and the per-tensor type search.
// Spec: BASELINES.md section 1 (the baseline notes). Plain C++.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace eva::ant {

enum class AntType { int_type, flint, pot };
const char* type_name(AntType type);

// An n-bit format, 2 <= bits <= 8. Signed int is two's complement; signed
// flint and PoT are a sign bit (the MSB) over an (n-1)-bit unsigned magnitude.
struct AntFormat {
  AntType type = AntType::int_type;
  int bits = 4;
  bool is_signed = true;
};

// Codes: unsigned flint as BASELINES.md 1.2; PoT magnitude code 0 -> 0 and
// c -> 2^(c-1). decode() returns the grid value of any n-bit code; encode()
// returns the lowest code of a grid value (+0 for zero) and throws
// std::invalid_argument for a value off the grid.
double decode(const AntFormat& format, std::uint32_t code);
std::uint32_t encode(const AntFormat& format, double value);

// Distinct grid values, ascending (the duplicate -0 code is left out).
std::vector<double> grid(const AntFormat& format);
// The largest grid value, the divisor in x = g·alpha/max(grid).
double grid_max(const AntFormat& format);

// Nearest grid value; a tie goes to the larger grid value.
double nearest(const std::vector<double>& ascending_grid, double v);

// The quantizer of one format, with its grid and codes kept for reuse.
class AntQuantizer {
 public:
  explicit AntQuantizer(const AntFormat& format);
  const AntFormat& format() const { return m_format; }
  double max() const { return m_grid.back(); }
  // Code of the grid value nearest to x·max/alpha (clipped to the grid ends);
  // alpha <= 0 gives the code of 0.
  std::uint32_t quantize(double x, double alpha) const;
  // The real value g·alpha/max of a code.
  double dequantize(std::uint32_t code, double alpha) const;
  // dequantize(quantize(x, alpha), alpha) without the code lookup.
  double fake_quantize(double x, double alpha) const;

 private:
  AntFormat m_format;
  std::vector<double> m_grid;          // ascending
  std::vector<std::uint32_t> m_codes;  // code of each grid value

  std::size_t nearest_index(double x, double alpha) const;
};

// The PE's unified decoder: value = (negative ? -1 : 1)·i·2^e.
struct PeOperand {
  bool negative = false;
  std::uint32_t i = 0;
  int e = 0;
};
PeOperand pe_decode(const AntFormat& format, std::uint32_t code);

// One PE cycle: acc += ±(i_a·i_w) << (e_a + e_w).
void pe_mac(std::int64_t& acc, const PeOperand& a, const PeOperand& w);

// What one PE column computes over K: decode both operands, MAC into an int64
// accumulator. Throws std::overflow_error if K products could overflow it.
std::int64_t pe_dot(const AntFormat& a_format, const std::uint32_t* a_codes, const AntFormat& w_format,
                    const std::uint32_t* w_codes, std::size_t k);
// The factor turning the accumulator into the real result:
// (alpha_a/max_a)·(alpha_w/max_w).
double pe_scale(const AntFormat& a_format, double alpha_a, const AntFormat& w_format, double alpha_w);

// Per-tensor type selection (BASELINES.md 1.3).
enum class TensorKind { weight, activation };

struct SearchOptions {
  // Evaluated in this order; on an equal score the earlier one wins.
  std::vector<AntType> candidates = {AntType::int_type, AntType::pot, AntType::flint};
  int low = 0;  // alpha = max|x|·p/100 for p in [low, up); 0: 75, or 95 when bits > 6
  int up = 150;
};

struct AntChoice {
  AntFormat format;
  std::vector<double> alphas;                      // one per channel (weights) or one (activations)
  std::vector<std::uint32_t> codes;                // laid out as the input
  double mse = 0;                                  // the winner's score
  std::vector<std::pair<AntType, double>> scores;  // every candidate's score
};

// x holds `channels` rows (output channels for weights; 1 for activations).
// Weights are signed with one alpha per channel and score the sum of the
// channels' MSEs; activations are unsigned unless min(x) < 0 and get one alpha.
// Above 6 bits only int is tried, as the reference code does.
AntChoice select_type(const std::vector<float>& x, std::size_t channels, int bits, TensorKind kind,
                      const SearchOptions& options = {});

}  // namespace eva::ant
