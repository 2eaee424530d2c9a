#pragma once
// The plain weight-stationary systolic-array accelerator (`sa`): the shared
// weight-stationary skeleton with dense two's complement weights (A8W8 by
// default) and an exact integer datapath. Conventions: models/baselines/sa/README.md.
#include <systemc>

#include "systolic/ws_accelerator.hpp"

namespace eva {

class SaAccelerator : public WsAccelerator {
 public:
  SaAccelerator(const sc_core::sc_module_name& name, const WsAcceleratorConfig& config);

  EncodedGemm encode_gemm(const std::vector<float>& x, const std::vector<float>& w, std::uint64_t m, std::uint64_t n,
                          std::uint64_t k) const override;
};

}  // namespace eva
