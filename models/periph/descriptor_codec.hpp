#pragma once
// The binary descriptor format of docs/DESCRIPTORS.md (its offsets and codes
// from the generated periph/regmap.hpp): bytes in system memory to the
// GemmDescriptor or VectorDescriptor the accelerators execute, and back.
// Plain C++: no SystemC.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "common/op_descriptor.hpp"
#include "periph/regmap.hpp"

namespace eva {

using DescriptorBytes = std::array<std::uint8_t, regs::desc_bytes>;

// A decoded descriptor, or why it was rejected (`error` is what the register
// file reports in ERROR_CODE; `message` says which field holds what).
struct DecodedDescriptor {
  regs::ErrorCode error = regs::ErrorCode::none;
  std::string message;
  std::variant<GemmDescriptor, VectorDescriptor> op;
  std::uint64_t next = 0;  // the chained descriptor's address, 0: none
  std::uint32_t tag = 0;
  bool ok() const { return error == regs::ErrorCode::none; }
};

// Never throws on malformed input: every problem is an error code.
DecodedDescriptor decode_descriptor(const std::uint8_t* bytes, std::size_t size);

// Host side (tests, firmware tools). Throws InputError when a field does not
// fit the format (a dimension or count above 2^32 - 1, or zero).
DescriptorBytes encode_descriptor(const GemmDescriptor& op, std::uint64_t next = 0, std::uint32_t tag = 0);
DescriptorBytes encode_descriptor(const VectorDescriptor& op, std::uint64_t next = 0, std::uint32_t tag = 0);

// "DESC_MAGIC" and the like: the code's name in docs/REGISTERS.md.
const char* error_name(regs::ErrorCode code);

}  // namespace eva
