// libFuzzer harness: an architecture file (`--arch FILE`), with `base:`
// naming a built-in or another file, and the DRAM preset it names
// (platform/config/load_arch.*). A file that loads must print as YAML that
// loads back to the same configuration (`eva-sim config`).
#include <cstddef>
#include <cstdint>

#include "common/error.hpp"
#include "config/load_arch.hpp"
#include "fuzz_common.hpp"

using namespace eva;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ArchRequest request;
  request.arch = fuzz::input_file(data, size, "arch.yaml");
  ArchConfig config;
  try {
    config = load_arch(request);
  } catch (const InputError&) {
    return 0;
  }
  const std::string printed = to_yaml(config);
  try {
    const ParamSet params = ParamSet::from_yaml(printed, "printed");
    ArchConfig back;
    ConfigReader reader(params, "printed");
    back.visit(reader);
    reader.finish();
    if (to_yaml(back) != printed) fuzz::violated("the printed configuration loads back differently:\n" + printed);
  } catch (const InputError& e) {
    fuzz::violated(std::string("the printed configuration does not load back: ") + e.what() + "\n" + printed);
  }
  return 0;
}
