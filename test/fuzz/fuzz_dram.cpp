// libFuzzer harness: a DRAM preset file (`--dram FILE`), flattened under
// `dram.` and validated (platform/config/load_arch.*: load_dram).
#include <cstddef>
#include <cstdint>

#include "common/error.hpp"
#include "config/load_arch.hpp"
#include "fuzz_common.hpp"

using namespace eva;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::input_file(data, size, "dram.yaml");
  try {
    (void)load_dram(path, {});
  } catch (const InputError&) {
  }
  return 0;
}
