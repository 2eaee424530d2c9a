// libFuzzer harness: a sweep file (`eva-sim sweep FILE`,
// platform/study/sweep.*). A plan that loads gives the arguments, values and
// description of its first and last points, its identity, and the Slurm batch
// script for them, as the sweep would start them.
#include <cstddef>
#include <cstdint>

#include "common/error.hpp"
#include "fuzz_common.hpp"
#include "study/sweep.hpp"

using namespace eva;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::input_file(data, size, "sweep.yaml");
  try {
    const SweepPlan plan = load_sweep(path);
    const std::uint64_t points = plan.points();
    if (points == 0) fuzz::violated("a sweep plan with no points");
    for (const std::uint64_t i : {std::uint64_t{0}, points - 1}) {
      (void)plan.arguments(i);
      (void)plan.describe(i);
      (void)sweep_values(plan, i);
    }
    (void)plan.identity().dump();
    const std::string script = slurm_batch_script(plan, {0, points - 1}, 1, "/bin/eva-sim", "/out");
    if (script.find("run_point") == std::string::npos) fuzz::violated("a batch script that runs no point");
  } catch (const InputError&) {
  }
  return 0;
}
