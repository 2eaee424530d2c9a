#pragma once
// An ignorable TLM extension marking a transaction that carries time but no
// data: timing-mode runs move bursts through the interconnect and the DRAM
// controller exactly as functional runs do, but targets skip the copy into or
// out of storage. A target that does not know the extension simply copies.
#include <cstdint>

#include <tlm>

namespace eva {

// `repeat`: an on-chip buffer access presented that many times over (a
// unit's traffic larger than the buffer window, streamed through it); the
// buffer counts and times every repeat. Memory targets see only 1.
struct TimingOnly : tlm::tlm_extension<TimingOnly> {
  std::uint64_t repeat = 1;
  tlm::tlm_extension_base* clone() const override { return new TimingOnly(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    repeat = static_cast<const TimingOnly&>(other).repeat;
  }
};

inline bool is_timing_only(const tlm::tlm_generic_payload& trans) {
  return trans.get_extension<TimingOnly>() != nullptr;
}

}  // namespace eva
