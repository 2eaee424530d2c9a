#pragma once
// An architecture: the configuration of every unit of an accelerator and of
// its DRAM, as plain structs. Built from C++ (arch/presets.hpp) or read from
// YAML by the platform (platform/config/load_arch.hpp); immutable once built.
#include <string>
#include <string_view>
#include <utility>
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
#include "eva/eva_mode.hpp"
#include "fault/fault_config.hpp"
#include "periph/periph_config.hpp"
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
  // A base-protocol checker (models/checker) between each initiator and
  // target the platform binds: DMA <-> DRAM, the local bus <-> each buffer,
  // dram-bench's generator <-> DRAM, the example SoC's router ports. Off by default because it costs simulation speed
  // (a map lookup and a dozen checks per phase of every burst); every simulating test turns it on.
  bool check_protocol = false;
  // A platform's DMA times its transfers that move no data itself, against a
  // DRAM that times a burst on arrival (`ideal`), when nothing sits between
  // the two (no checker, no fault injector, no response timeout) and nothing
  // else reaches the DRAM; against a timed controller, the controller runs
  // itself and the DMA's issue loop ahead of the kernel while no other process
  // acts (common/run_ahead.hpp). The same results without SystemC events per
  // burst (docs/PERFORMANCE.md). false: every burst on the kernel's events.
  bool exclusive_dma = true;

  template <class V>
  void visit(V& v) {
    v.field("quantum_ns", quantum_ns, positive_up_to(1e9), "global TLM quantum, ns");
    v.field("trace_max_spans", trace_max_spans, between(0, 100000000),
            "run --trace: unit spans kept (operations are always kept)");
    v.field("check_protocol", check_protocol, "a TLM-2.0 base-protocol checker on every socket the platform binds");
    v.field("exclusive_dma", exclusive_dma,
            "the DMA times its data-less bursts against an ideal DRAM it alone reaches, and a timed "
            "controller runs itself and the DMA ahead of the kernel (same results, faster)");
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
  EvaModeConfig eva;  // EVA's choice of mode per layer
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
  PeriphConfig periph;  // the register interface (models/periph)
  FaultConfig fault;    // a fault injector in front of the DRAM (models/fault; off by default)
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
    v.section("eva", eva);
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
    v.section("periph", periph);
    v.section("fault", fault);
    v.section("sim", sim);
  }
};

}  // namespace eva
