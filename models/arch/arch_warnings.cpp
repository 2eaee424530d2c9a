#include "arch/arch_warnings.hpp"

#include <fmt/format.h>

#include "eva/eva_sizes.hpp"

namespace eva {

std::vector<std::string> arch_warnings(const ArchConfig& c) {
  std::vector<std::string> out;
  // FIGLUT's PE is priced as published (figlut_4: mu 4, 8 RACs per LUT); the
  // cost of another LUT size or RAC count is not modelled.
  const FiglutConfig published;
  if (c.kind == ArchKind::figlut && (c.figlut.mu != published.mu || c.figlut.racs_per_pe != published.racs_per_pe))
    out.push_back(fmt::format(
        "figlut: mu = {} and racs_per_pe = {} change the timing, but each PE's area and power stay the published "
        "ones for mu = {} and racs_per_pe = {} (energy.pe_w, area.pe_mm2)",
        c.figlut.mu, c.figlut.racs_per_pe, published.mu, published.racs_per_pe));
  // vq-conflict in the artifact's convention: the output-stationary array
  // does the arithmetic, so the lanes and the bank width time nothing (they
  // still size the datapath's and the codebook SRAM's cost).
  const LookupConfig lookup_defaults;
  if (c.kind == ArchKind::vq_conflict && c.lookup.model == LookupModel::artifact &&
      (c.lookup.lanes != lookup_defaults.lanes || c.lookup.bank_width_bytes != lookup_defaults.bank_width_bytes))
    out.push_back(fmt::format(
        "lookup.lanes = {} and lookup.bank_width_bytes = {} change the cost, but not the timing under "
        "lookup.model=artifact (its {} x {} array and {}-bank conflicts); set lookup.model=lanes to time them",
        c.lookup.lanes, c.lookup.bank_width_bytes, c.lookup.os_rows, c.lookup.os_cols, c.lookup.banks));
  // A power-down timeout with power-down off times nothing.
  const DramConfig dram_defaults;
  if (c.dram.kind == DramKind::timed && !c.dram.power_down &&
      c.dram.power_down_idle_tck != dram_defaults.power_down_idle_tck)
    out.push_back(fmt::format("dram.power_down_idle_tck = {} has no effect with dram.power_down=false",
                              c.dram.power_down_idle_tck));
  if (c.kind != ArchKind::eva) return out;
  // EVA's epilogue: a pass takes a power of two of sub-vector rows, as many as
  // the units add in a cycle; lookups beyond it are never used.
  const std::uint64_t lookups = eva_lookups(c.epilogue), used = eva_pass_lookups(c.epilogue);
  if (used < lookups)
    out.push_back(fmt::format(
        "epilogue: {} units x {} adder inputs = {} lookups a cycle, but a pass uses a power of two of them ({}): "
        "{} are never used",
        c.epilogue.units, c.epilogue.adder_inputs, lookups, used, lookups - used));
  // OC banks beyond the lookups a cycle are never read in one cycle together;
  // they only make each bank shallower.
  if (static_cast<std::uint64_t>(c.oc.banks) > used)
    out.push_back(fmt::format(
        "oc.banks: {} banks, but the epilogue reads {} a cycle: {} are idle in every cycle (fewer banks of the same "
        "size would each be deeper)",
        c.oc.banks, used, static_cast<std::uint64_t>(c.oc.banks) - used));
  // A codebook that does not fit a bank's depth: entry tiles, each pass
  // reloading its slice and the epilogue sweeping the columns once per tile.
  const std::uint64_t depth = eva_oc_depth(c.oc), entries = 1ull << c.vq.index_bits;
  if (depth > 0 && depth < entries) {
    const std::uint64_t tiles = (entries + depth - 1) / depth;
    out.push_back(fmt::format(
        "oc.size_kib: {} KiB holds {} entries per bank and region, less than a codebook's {}: codebooks are "
        "re-read for every pass and the epilogue sweeps the columns {} times per codebook ({} KiB would hold them)",
        c.oc.size_kib, depth, entries, tiles, c.oc.size_kib * tiles));
  }
  return out;
}

}  // namespace eva
