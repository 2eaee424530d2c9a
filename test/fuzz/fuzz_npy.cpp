// libFuzzer harness: the .npy reader (platform/config/npy.*, `eva-sim vq-gemv`
// and `eva-sim pack`). An array that loads must hold exactly its shape's
// elements, and its first and last elements must read.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/error.hpp"
#include "config/npy.hpp"
#include "fuzz_common.hpp"

using namespace eva;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::input_file(data, size, "array.npy");
  NpyArray a;
  try {
    a = read_npy(path);
  } catch (const InputError&) {
    return 0;
  }
  // The element count without wrapping around: a shape whose product
  // overflows must have been refused (a zero dimension makes any shape empty).
  unsigned __int128 elements = 1;
  if (std::find(a.shape.begin(), a.shape.end(), 0) != a.shape.end()) elements = 0;
  for (const std::uint64_t s : a.shape) {
    if (elements == 0) break;
    elements *= s;
    if (elements >> 64) fuzz::violated("read_npy accepted a shape whose element count overflows 64 bits");
  }
  if (elements * a.item_bytes() != a.data.size()) fuzz::violated("read_npy's data does not match its shape");
  if (elements == 0) return 0;
  for (const std::uint64_t i : {std::uint64_t{0}, static_cast<std::uint64_t>(elements - 1)}) {
    if (a.is_integer()) (void)a.integer(i);
    if (a.is_float16()) (void)a.half(i);
  }
  return 0;
}
