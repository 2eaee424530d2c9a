#pragma once
// An architecture configuration: every section of every unit, read from a
// built-in preset or a user's YAML file, with the DRAM preset and --set
// overrides applied, then validated. Immutable once loaded.
#include <optional>
#include <string>
#include <vector>

#include "baselines/figlut/figlut_config.hpp"
#include "baselines/figna/figna_config.hpp"
#include "baselines/vq_conflict/vq_conflict_config.hpp"
#include "common/accel_config.hpp"
#include "common/config.hpp"
#include "common/energy.hpp"
#include "common/vq_format.hpp"
#include "dma/dma_config.hpp"
#include "dram/dram_config.hpp"
#include "epilogue/epilogue_config.hpp"
#include "sram/sram_config.hpp"
#include "systolic/systolic_config.hpp"
#include "vector/vector_config.hpp"

namespace eva {

// Which accelerator model an architecture instantiates.
enum class ArchKind { eva, sa, ant, figna, figlut, vq_conflict };
template <>
struct EnumNames<ArchKind> {
  static const std::vector<std::pair<std::string_view, ArchKind>>& list() {
    static const std::vector<std::pair<std::string_view, ArchKind>> names = {
        {"eva", ArchKind::eva},     {"sa", ArchKind::sa},         {"ant", ArchKind::ant},
        {"figna", ArchKind::figna}, {"figlut", ArchKind::figlut}, {"vq-conflict", ArchKind::vq_conflict}};
    return names;
  }
};

struct SimConfig {
  // Global quantum of the loosely-timed initiators: how far an initiator may run
  // ahead of the kernel. 1 us keeps context switches rare (one per ~64 KiB moved
  // at 64 GB/s) while bounding the skew between concurrent initiators.
  double quantum_ns = 1000.0;
  // run --trace: unit spans kept per platform (operation spans always are).
  // 500,000 spans make a trace file of about 50 MB, which the Perfetto UI
  // still opens comfortably.
  int trace_max_spans = 500000;

  template <class V>
  void visit(V& v) {
    v.field("quantum_ns", quantum_ns, positive_up_to(1e9), "global TLM quantum, ns");
    v.field("trace_max_spans", trace_max_spans, between(0, 100000000),
            "run --trace: unit spans kept (operations are always kept)");
  }
};

struct ArchConfig {
  std::string name = "sa";
  ArchKind kind = ArchKind::sa;
  std::string description;
  double clock_mhz = 500.0;  // EVA paper, 28 nm; artifact FREQ_HZ (BRIEF section 3)
  SystolicConfig systolic;
  EpilogueConfig epilogue;
  VqFormat vq;
  DmaConfig dma;
  BufferConfig buffers;
  FormatConfig formats;
  TilingConfig tiling;
  SramConfig oc;        // EVA's output-codebook SRAM (both halves)
  LookupConfig lookup;  // vq-conflict's lookup lanes and codebook SRAM
  FiglutConfig figlut;  // FIGLUT's LUT array
  FignaConfig figna;    // FIGNA's pre-alignment
  VectorConfig vector;  // the vector/special-function unit
  EnergyConfig energy;  // per-event energies and block powers
  AreaConfig area;      // per-module areas
  DramConfig dram;
  SimConfig sim;

  template <class V>
  void visit(V& v) {
    v.field("name", name, "architecture name");
    v.field("kind", kind, "accelerator model");
    v.field("description", description, "one line for eva-sim list");
    v.field("clock_mhz", clock_mhz, positive_up_to(1e5), "accelerator clock, MHz");
    v.section("systolic", systolic);
    v.section("epilogue", epilogue);
    v.section("vq", vq);
    v.section("dma", dma);
    v.section("buffers", buffers);
    v.section("formats", formats);
    v.section("tiling", tiling);
    v.section("oc", oc);
    v.section("lookup", lookup);
    v.section("figlut", figlut);
    v.section("figna", figna);
    v.section("vector", vector);
    v.section("energy", energy);
    v.section("area", area);
    v.section("dram", dram);
    v.section("sim", sim);
  }
};

// What the command line says about the architecture to load.
struct ArchRequest {
  std::string arch;                 // built-in name or path to a YAML file
  std::optional<std::string> dram;  // --dram
  std::vector<std::string> sets;    // --set key=value, in order
};

ArchConfig load_arch(const ArchRequest& request);
// A DRAM configuration alone (dram-bench): the preset (default `ideal`) and
// --set overrides, which must all be dram.* keys.
DramConfig load_dram(const std::optional<std::string>& preset, const std::vector<std::string>& sets);
// Prints the effective configuration as YAML (eva-sim config).
std::string to_yaml(ArchConfig config);

std::vector<std::string> builtin_arch_names();
std::vector<std::string> builtin_dram_names();

}  // namespace eva
