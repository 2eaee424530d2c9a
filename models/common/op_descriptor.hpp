#pragma once
// Operation descriptors: what the platform hands an accelerator's control.
// Plain data with addresses in the accelerator's memory space; the same
// descriptors will sit in system memory once the accelerator has a register
// interface (BRIEF section 8).
#include <cstdint>
#include <string>

namespace eva {

// y (M x N) = x (M x K) * W (K x N), W in the accelerator's weight format.
struct GemmDescriptor {
  std::string name = "gemm";
  std::uint64_t m = 1, n = 1, k = 1;
  std::uint64_t act_addr = 0;       // x, row-major, formats.act_bits per element
  std::uint64_t weight_addr = 0;    // W (or its VQ indices) in the accelerator's layout
  std::uint64_t codebook_addr = 0;  // VQ codebooks, for accelerators that use them
  std::uint64_t out_addr = 0;       // y, row-major, formats.out_bits per element
  bool functional = false;          // move and compute data (else time only)
};

}  // namespace eva
