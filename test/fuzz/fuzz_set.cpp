// libFuzzer harness: `--set key=value` overrides (platform/config/param_set.*)
// applied to a built-in architecture and to a DRAM preset alone (`dram-bench`),
// as load_arch and load_dram apply them. The input's first byte picks the
// architecture; each following non-empty line is one --set.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/load_arch.hpp"
#include "fuzz_common.hpp"

using namespace eva;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const std::vector<std::string> archs = builtin_arch_names();
  ArchRequest request;
  request.arch = archs[data[0] % archs.size()];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    if (end > at) request.sets.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  try {
    (void)load_arch(request);
  } catch (const InputError&) {
  }
  try {
    (void)load_dram(std::nullopt, request.sets);
  } catch (const InputError&) {
  }
  return 0;
}
