// libFuzzer harness: a model file (`--model FILE`, workloads/model_config.*).
// A model that loads is compiled into a decode step and a short prefill
// (workloads/workload.*), as `eva-sim run` would.
#include <cstddef>
#include <cstdint>

#include "common/error.hpp"
#include "fuzz_common.hpp"
#include "model_config.hpp"
#include "workload.hpp"

using namespace eva;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::input_file(data, size, "model.yaml");
  try {
    const ModelConfig model = load_model(path);
    WorkloadRequest request;
    request.phase = Phase::decode;
    request.seq_len = 16;
    (void)compile_workload(model, request);
    request.phase = Phase::prefill;
    request.seq_len = 4;
    (void)compile_workload(model, request);
  } catch (const InputError&) {
  }
  return 0;
}
