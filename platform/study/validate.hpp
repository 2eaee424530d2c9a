#pragma once
// eva-sim validate: the seeds' headline claims beside the model's figures,
// each computed by the model (BRIEF section 6), in the paper's setting and in
// a realistic one.
#include <string>

#include <nlohmann/json.hpp>

namespace eva {

struct ValidateOptions {
  bool quiet = true;
  std::string realistic_dram = "lpddr5-6400";
  unsigned jobs = 1;  // processes that share the platforms (Runner::run_all)
};

// {"checks": [{"name", "paper", "ours", "ratio", ...}]} and a printable table.
nlohmann::json validate(const ValidateOptions& options, std::string& table);

}  // namespace eva
