// libFuzzer harness: a request trace (`eva-sim e2e --dataset FILE`,
// workloads/dataset.*): a JSON array of {"input_length", "output_length"}.
#include <cstddef>
#include <cstdint>

#include "common/error.hpp"
#include "dataset.hpp"
#include "fuzz_common.hpp"

using namespace eva;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::input_file(data, size, "dataset.json");
  try {
    for (const Request& r : load_dataset(path))
      if (r.input == 0 || r.output == 0) fuzz::violated("a request with a zero length was accepted");
  } catch (const InputError&) {
  }
  return 0;
}
