#include "run_eva_sim.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace eva::test {

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

Scratch::Scratch() {
  std::string tmpl = (fs::temp_directory_path() / "eva-e2e-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  m_dir = tmpl;
}
Scratch::~Scratch() {
  std::error_code ec;
  fs::remove_all(m_dir, ec);
}
bool Scratch::exists(const std::string& name) const { return fs::exists(path(name)); }
std::vector<std::string> Scratch::files() const {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(m_dir)) out.push_back(e.path().filename().string());
  return out;
}
void Scratch::write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }
nlohmann::json Scratch::json(const std::string& name) const { return nlohmann::json::parse(slurp(path(name))); }

// Every simulating test runs with the base-protocol checker on (sim.check_protocol),
// which must not change a report: these commands get it appended unless they
// are asked for help.
std::vector<std::string> with_checker(std::vector<std::string> args) {
  static const std::set<std::string> simulating = {"gemm", "run", "compare", "e2e", "vq-gemv", "dram-bench"};
  if (args.empty() || !simulating.count(args[0])) return args;
  for (const auto& a : args)
    if (a == "--help" || a == "-h") return args;
  args.insert(args.end(), {"--set", "sim.check_protocol=true"});
  return args;
}

Run eva_sim(const Scratch& dir, const std::vector<std::string>& args, bool check_protocol) {
  std::string cmd = "cd " + quote(dir.path("")) + " && " + quote(EVA_SIM);
  for (const auto& a : check_protocol ? with_checker(args) : args) cmd += " " + quote(a);
  const std::string out = dir.path(".stdout"), err = dir.path(".stderr");
  cmd += " >" + quote(out) + " 2>" + quote(err);
  const int status = std::system(cmd.c_str());
  Run r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

}  // namespace eva::test
