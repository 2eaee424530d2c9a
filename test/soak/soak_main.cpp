// eva-soak: random descriptors, valid and invalid, through one architecture's
// register interface, each checked (docs/ARCHITECTURE.md, "The soak").
//   eva-soak --arch A [--seed S] [--count N] [--dram P] [--set k=v ...] [--verbose]
//   eva-soak --list-archs
// Exit codes: 0 every check passed; 1 a mismatch (each printed with the seed
// and descriptor numbers to replay); 2 bad usage.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <systemc>

#include "common/error.hpp"
#include "common/report_handler.hpp"
#include "common/sanitizer_defaults.hpp"
#include "config/load_arch.hpp"
#include "soak_rig.hpp"

using namespace eva;

namespace {

constexpr const char* usage =
    "usage: eva-soak --arch A [--seed S] [--count N] [--dram P] [--set key=value ...] [--timeout-ms T] [--verbose]\n"
    "       eva-soak --list-archs";

std::uint64_t number(const std::string& option, const std::string& value, std::uint64_t lo) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(value, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || value.empty() || value[0] == '-' || v < lo)
    throw InputError(fmt::format("{} {}: expected an integer >= {}", option, value, lo));
  return v;
}

void summary(const std::string& arch, const soak::Options& o, const soak::Stats& s, double seconds) {
  using soak::Category;
  std::cout << fmt::format("soak {} seed {}: {} descriptors in {} batches, {:.1f} s\n", arch, o.seed, s.descriptors,
                           s.batches, seconds);
  std::string generated;
  std::uint64_t valid = 0;
  for (const auto& [c, n] : s.generated) {
    generated += fmt::format("{}{} {}", generated.empty() ? "" : ", ", soak::category_name(c), n);
    if (c != Category::invalid) valid += n;
  }
  const std::uint64_t invalid = s.generated.count(Category::invalid) ? s.generated.at(Category::invalid) : 0;
  std::cout << fmt::format("  generated: valid {}, invalid {} ({})\n", valid, invalid, generated);
  std::string failed;
  std::uint64_t failures = 0;
  for (const auto& [code, n] : s.failed) {
    failed += fmt::format("{}{} {}", failed.empty() ? "" : ", ", error_name(code), n);
    if (code != regs::ErrorCode::ring_config) failures += n;
  }
  std::cout << fmt::format("  completed runs (DESC_DONE): {}; failed (DESC_FAILED): {}; not reached: {}\n", s.completed,
                           failures, s.dropped);
  std::cout << fmt::format("  error codes: {}\n", failed.empty() ? "none" : failed);
  std::cout << fmt::format(
      "  outputs checked: {} functional GEMMs against the reference ({} also exactly), worst {:.3f} of the "
      "tolerance; {} outputs of timing-only operations untouched\n",
      s.outputs_checked, s.exact_checked, s.worst_of_tolerance, s.untouched_checked);
  std::string modes;
  for (const auto& [m, n] : s.modes) modes += fmt::format("{}{} {}", modes.empty() ? "" : ", ", soak::mode_name(m), n);
  std::cout << fmt::format("  batches: {}; soft resets {}, rings programmed {}\n", modes, s.soft_resets, s.ring_moves);
  std::cout << fmt::format("  mismatches: {}\n", s.mismatches.size());
}

int run(int argc, char* argv[]) {
  soak::Options options;
  ArchRequest request;
  // A small chain limit keeps a looping chain cheap (it runs the limit's
  // descriptors before the peripheral refuses it); --set may change it.
  request.sets = {"periph.chain_limit=8", "sim.check_protocol=true"};
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw InputError(fmt::format("{}: expects a value\n{}", a, usage));
      return args[++i];
    };
    if (a == "--arch")
      request.arch = value();
    else if (a == "--seed")
      options.seed = number(a, value(), 0);
    else if (a == "--count")
      options.count = number(a, value(), 1);
    else if (a == "--dram")
      request.dram = value();
    else if (a == "--set")
      request.sets.push_back(value());
    else if (a == "--timeout-ms")
      options.timeout_ms = static_cast<double>(number(a, value(), 1));
    else if (a == "--verbose")
      options.verbose = true;
    else if (a == "--list-archs") {
      for (const std::string& n : builtin_arch_names()) std::cout << n << "\n";
      return 0;
    } else if (a == "--help" || a == "-h") {
      std::cout << usage << "\n";
      return 0;
    } else {
      throw InputError(fmt::format("{}: unknown option\n{}", a, usage));
    }
  }
  if (request.arch.empty()) throw InputError(fmt::format("--arch is required\n{}", usage));
  const ArchConfig arch = load_arch(request);

  SystemcReports::install();
  soak::SoakRig rig("soak", arch, options);
  const auto start = std::chrono::steady_clock::now();
  std::string stopped;
  try {
    sc_core::sc_start();
  } catch (const std::exception& e) {
    stopped = e.what();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  soak::Stats stats = rig.stats();
  stats.descriptors = rig.generated();
  if (!stopped.empty())
    stats.mismatches.push_back(
        fmt::format("seed {}, {}: the simulation stopped: {}", options.seed, rig.where(), stopped));
  else if (!rig.finished())
    stats.mismatches.push_back(fmt::format("seed {}, {}: the simulation ran out of events", options.seed, rig.where()));
  summary(arch.name, options, stats, seconds);
  if (stats.mismatches.empty()) return 0;
  if (stats.mismatches.size() > 50) std::cerr << "(" << stats.mismatches.size() - 50 << " more mismatches not shown)\n";
  if (!stopped.empty() || !rig.finished()) std::cerr << "MISMATCH " << stats.mismatches.back() << "\n";
  // The plan does not depend on --count: a smaller count replays a prefix.
  const std::uint64_t replay = stats.replay_count ? stats.replay_count : rig.generated();
  std::cerr << fmt::format("replay: eva-soak --arch {} --seed {} --count {} --verbose\n", request.arch, options.seed,
                           replay);
  return 1;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  try {
    return run(argc, argv);
  } catch (const InputError& e) {
    std::cerr << "eva-soak: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "eva-soak: internal error: " << e.what() << "\n";
    return 1;
  }
}

// No SystemC banner (set before the kernel starts), as eva-sim.
int main(int argc, char* argv[]) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
