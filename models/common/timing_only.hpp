#pragma once
// An ignorable TLM extension marking a transaction that carries time but no
// data: timing-mode runs move bursts through the interconnect and the DRAM
// controller exactly as functional runs do, but targets skip the copy into or
// out of storage. A target that does not know the extension simply copies.
#include <tlm>

namespace eva {

struct TimingOnly : tlm::tlm_extension<TimingOnly> {
  tlm::tlm_extension_base* clone() const override { return new TimingOnly(*this); }
  void copy_from(const tlm::tlm_extension_base&) override {}
};

inline bool is_timing_only(const tlm::tlm_generic_payload& trans) {
  return trans.get_extension<TimingOnly>() != nullptr;
}

}  // namespace eva
