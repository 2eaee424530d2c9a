// libFuzzer harness: the descriptor decoder (models/periph/descriptor_codec.*),
// which reads descriptors from system memory for the peripheral. It never
// throws: a malformed descriptor is an error code. A descriptor it accepts
// must encode back to the same bytes (reserved fields are zero, so the format
// has one encoding per descriptor).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <variant>

#include "fuzz_common.hpp"
#include "periph/descriptor_codec.hpp"

using namespace eva;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const DecodedDescriptor d = decode_descriptor(data, size);
  if (std::string(error_name(d.error)) == "UNKNOWN") fuzz::violated("the decoder returned an unnamed error code");
  if (!d.ok()) {
    if (d.message.empty()) fuzz::violated("an error code without a message");
    return 0;
  }
  const DescriptorBytes again = std::visit([&](const auto& op) { return encode_descriptor(op, d.next, d.tag); }, d.op);
  if (size < again.size() || std::memcmp(again.data(), data, again.size()) != 0)
    fuzz::violated("a decoded descriptor encodes to other bytes");
  return 0;
}
