#pragma once
// What a FaultInjector does to the traffic through it (the `fault:` section of
// an architecture). Every default injects nothing: faults are a test setting,
// not a property of any published design.
#include <cstdint>

#include "common/config.hpp"

namespace eva {

struct FaultConfig {
  // Error responses (TLM_GENERIC_ERROR_RESPONSE) for every transaction that
  // touches [error_base, error_base + error_size), in the addresses the
  // injector sees (0 bytes: no window) ...
  std::uint64_t error_base = 0;
  std::uint64_t error_size = 0;
  // ... and for any other transaction with this probability.
  double error_rate = 0.0;
  // At most this many error responses in all (0: no limit); 1 injects one fault.
  std::uint64_t error_limit = 0;
  // Responses to transactions that touch [delay_base, delay_base + delay_size)
  // come delay_ns late (beyond an initiator's timeout, to test it).
  std::uint64_t delay_base = 0;
  std::uint64_t delay_size = 0;
  double delay_ns = 0.0;
  std::uint64_t seed = 1;  // of error_rate's draws

  bool enabled() const { return error_size > 0 || error_rate > 0.0 || (delay_size > 0 && delay_ns > 0.0); }

  template <class V>
  void visit(V& v) {
    v.field("error_base", error_base, at_least<std::uint64_t>(0), "error window: first address");
    v.field("error_size", error_size, at_least<std::uint64_t>(0), "error window: bytes (0: none)");
    v.field("error_rate", error_rate, between(0.0, 1.0), "error probability of any other transaction");
    v.field("error_limit", error_limit, at_least<std::uint64_t>(0), "errors injected at most (0: no limit)");
    v.field("delay_base", delay_base, at_least<std::uint64_t>(0), "delay window: first address");
    v.field("delay_size", delay_size, at_least<std::uint64_t>(0), "delay window: bytes (0: none)");
    v.field("delay_ns", delay_ns, between(0.0, 1e12), "extra response delay in the delay window, ns");
    v.field("seed", seed, at_least<std::uint64_t>(0), "seed of error_rate's draws");
  }
};

}  // namespace eva
