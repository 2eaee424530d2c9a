#include "arch/accelerators.hpp"

#include "baselines/ant/ant_accelerator.hpp"
#include "baselines/figlut/figlut_accelerator.hpp"
#include "baselines/figna/figna_accelerator.hpp"
#include "baselines/sa/sa_accelerator.hpp"
#include "baselines/vq_conflict/vq_conflict_accelerator.hpp"
#include "dram/dram_controller.hpp"
#include "dram/ideal_dram.hpp"
#include "eva/eva_accelerator.hpp"

namespace eva {

namespace {

// The parts every accelerator's config has, copied from the architecture.
template <class Config>
Config common_config(const ArchConfig& c) {
  Config s;
  s.clock_mhz = c.clock_mhz;
  s.dma = c.dma;
  s.buffers = c.buffers;
  s.formats = c.formats;
  s.vector = c.vector;
  s.energy = c.energy;
  s.area = c.area;
  s.check_protocol = c.sim.check_protocol;
  return s;
}

// ...plus the systolic array and its tiling, for the array-based ones; the
// tiler's bandwidth is the DRAM's peak, in bytes per accelerator cycle.
template <class Config>
Config array_config(const ArchConfig& c) {
  Config s = common_config<Config>(c);
  s.systolic = c.systolic;
  s.tiling = c.tiling;
  s.tiling.dram_bytes_per_cycle = c.dram.peak_bytes_per_second() / (c.clock_mhz * 1e6);
  return s;
}

EvaConfig eva_config(const ArchConfig& c) {
  auto e = array_config<EvaConfig>(c);
  e.epilogue = c.epilogue;
  e.vq = c.vq;
  e.mode = c.eva;
  e.oc = c.oc;
  return e;
}

VqConflictConfig vq_conflict_config(const ArchConfig& c) {
  auto v = common_config<VqConflictConfig>(c);
  v.vq = c.vq;
  v.lookup = c.lookup;
  return v;
}

}  // namespace

std::unique_ptr<Accelerator> make_accelerator(const ArchConfig& c) {
  if (c.kind == ArchKind::eva) return std::make_unique<EvaAccelerator>("eva", eva_config(c));
  if (c.kind == ArchKind::vq_conflict)
    return std::make_unique<VqConflictAccelerator>("vq_conflict", vq_conflict_config(c));
  const auto ws = array_config<WsAcceleratorConfig>(c);
  if (c.kind == ArchKind::figlut) return std::make_unique<FiglutAccelerator>("figlut", ws, c.figlut);
  if (c.kind == ArchKind::ant) return std::make_unique<AntAccelerator>("ant", ws);
  if (c.kind == ArchKind::figna) return std::make_unique<FignaAccelerator>("figna", ws, c.figna);
  return std::make_unique<SaAccelerator>("sa", ws);
}

std::unique_ptr<DramTarget> make_dram(const char* name, const DramConfig& c) {
  if (c.kind == DramKind::timed) return std::make_unique<DramController>(name, c);
  return std::make_unique<IdealDram>(name, c);
}

}  // namespace eva
