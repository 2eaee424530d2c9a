// eva-soc: the example SoC (docs/SOC.md). A RISC-V core runs the firmware,
// which drives EVA and FIGLUT through their registers and descriptor rings
// and prints on the UART. Exit: the firmware's exit code (0: its checks
// passed), 1 if the run failed, 2 for bad input.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "arch/presets.hpp"
#include "common/error.hpp"
#include "common/report_handler.hpp"
#include "soc.hpp"
#include "vp/platform.hpp"

namespace {

const char* usage =
    "usage: eva-soc [--image FILE] [--firmware FILE] [--dram PRESET] [--cpu-mhz MHZ] [--uart FILE]\n"
    "               [--max-ms MS] [--check-protocol] [--inject-fault]\n"
    "  --image FILE     memory image (eva-sim pack) copied into the DRAM; its op table is what the\n"
    "                   firmware runs (without one, one timing-only GEMM per accelerator)\n"
    "  --firmware FILE  flat RV64 binary loaded at the SRAM (default: the firmware built with eva-soc)\n"
    "  --dram PRESET    the shared DRAM (default ddr4-3200)\n"
    "  --cpu-mhz MHZ    the core's clock (default 1000)\n"
    "  --uart FILE      UART output to FILE instead of stdout\n"
    "  --max-ms MS      simulated-time limit (default 1000)\n"
    "  --check-protocol a TLM-2.0 base-protocol checker on every router port and inside the accelerators\n"
    "  --inject-fault   the first access to a DRAM window the firmware reads from system control gets\n"
    "                   an error response; the firmware puts an operand there, checks the report and\n"
    "                   goes on\n";

double number(const std::string& opt, const std::string& v, double lo, double hi) {
  std::size_t used = 0;
  double d = 0;
  try {
    d = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || !(d >= lo && d <= hi))
    throw eva::InputError(opt + " " + v + ": expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                          "]");
  return d;
}

std::vector<std::uint8_t> read_file(const std::string& what, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw eva::InputError(what + " " + path + ": cannot be read");
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string default_firmware() {
  for (const char* p : {EVA_SOC_FIRMWARE_INSTALLED, EVA_SOC_FIRMWARE_BUILT})
    if (std::ifstream(p)) return p;
  throw eva::InputError("no firmware: give --firmware (looked for " EVA_SOC_FIRMWARE_INSTALLED ")");
}

int run(int argc, char* argv[]) {
  std::string image_path, firmware_path, dram = "ddr4-3200", uart_path;
  double cpu_mhz = 1000, max_ms = 1000;
  bool check_protocol = false, inject_fault = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << usage;
      return 0;
    }
    if (a == "--check-protocol" || a == "--inject-fault") {
      (a == "--check-protocol" ? check_protocol : inject_fault) = true;
      continue;
    }
    if (i + 1 >= argc) throw eva::InputError("unknown option or missing value: " + a + " (see --help)");
    const std::string v = argv[++i];
    if (a == "--image")
      image_path = v;
    else if (a == "--firmware")
      firmware_path = v;
    else if (a == "--dram")
      dram = v;
    else if (a == "--uart")
      uart_path = v;
    else if (a == "--cpu-mhz")
      cpu_mhz = number(a, v, 1, 100000);
    else if (a == "--max-ms")
      max_ms = number(a, v, 1e-3, 1e9);
    else
      throw eva::InputError("unknown option " + a + " (see --help)");
  }
  eva::soc::SocConfig config;
  config.eva = eva::presets::arch("eva", dram);
  config.figlut = eva::presets::arch("figlut", dram);
  config.eva.sim.check_protocol = config.figlut.sim.check_protocol = check_protocol;
  config.cpu_mhz = cpu_mhz;
  config.inject_fault = inject_fault;
  config.firmware = read_file("firmware", firmware_path.empty() ? default_firmware() : firmware_path);
  eva::soc::MemoryImage image;
  if (!image_path.empty()) {
    image = eva::soc::read_image(image_path);
    config.image = &image;
  }
  std::ofstream uart_file;
  if (!uart_path.empty()) {
    uart_file.open(uart_path, std::ios::binary | std::ios::trunc);
    if (!uart_file) throw eva::InputError("--uart " + uart_path + ": cannot be written");
    config.uart_out = &uart_file;
  } else {
    config.uart_out = &std::cout;
  }

  eva::set_global_quantum(config.eva.sim);
  eva::soc::Soc soc("soc", config);
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start(sc_core::sc_time(max_ms, sc_core::SC_MS));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout.flush();
  eva::soc::RiscvCore& core = soc.core();
  std::cerr << "eva-soc: " << core.instructions() << " instructions, " << core.bus_accesses() << " bus accesses, "
            << sc_core::sc_time_stamp().to_seconds() * 1e6 << " us simulated, " << wall << " s wall\n";
  for (eva::Peripheral* p : {&soc.eva_periph(), &soc.figlut_periph()})
    if (!p->error_message().empty()) std::cerr << "eva-soc: " << p->name() << ": " << p->error_message() << "\n";
  if (!core.finished()) {
    std::cerr << "eva-soc: the firmware did not finish within " << max_ms << " ms of simulated time\n";
    return 1;
  }
  if (!core.error().empty()) {
    std::cerr << "eva-soc: " << core.error() << "\n";
    return 1;
  }
  return static_cast<int>(core.exit_code() & 0xff);
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  eva::SystemcReports::install();
  try {
    return run(argc, argv);
  } catch (const eva::InputError& e) {
    std::cerr << "eva-soc: " << e.what() << "\n";
    return 2;
  }
}

int main(int argc, char* argv[]) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
