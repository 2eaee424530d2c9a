#pragma once
// A functional GEMM in an accelerator's formats: the DRAM images of its
// operands, the float64 reference computed from the operands as encoded (so
// only the datapath's own rounding separates it from the result), and how to
// read the outputs back. Plain C++ (docs/MEMORY-LAYOUT.md).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace eva {

struct EncodedGemm {
  std::vector<std::uint8_t> activations, weights, parameters;
  std::vector<double> reference;  // M x N
  std::function<std::vector<double>(const std::vector<std::uint8_t>& out_bytes)> decode_output;
  std::string format;  // what the encoding chose, for the report
};

}  // namespace eva
