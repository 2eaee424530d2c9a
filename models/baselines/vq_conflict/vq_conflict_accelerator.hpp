#pragma once
// The conflicting-VQ baseline: lanes rebuild weight sub-vectors by looking up
// centroids in a small banked codebook SRAM, then multiply them with the
// activations (GEMV). Lookups of one cycle that fall in the same bank
// serialise, counted exactly from the index stream (BankModel via Sram).
//
// Order: for each chunk of columns, for each sub-vector row v and codebook c,
// the lanes take consecutive columns j (one lookup each) and rebuild
// W[v*d .. v*d+d)[j] = sum over c of WC_c[idx_c[v][j]]; every rebuilt
// sub-vector multiplies the d activations of all input rows. The lookups bound
// the time; the multiply-adds (lanes x d x M per cycle) keep pace.
// Indices sit in DRAM per codebook as [v][j], n bits each, packed. Timing mode
// draws indices from a seeded power law (lookup.index_skew). Grouped (GPTVQ)
// codebooks: each lookup reads its group's codebook.
//
// Attention (the KV cache, dense) runs on the same multiply-add datapath,
// lanes x d MACs per cycle, once its operands are on chip; non-FC operations
// on the vector unit.
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>

#include "baselines/vq_conflict/vq_conflict_config.hpp"
#include "bus/local_bus.hpp"
#include "common/accelerator.hpp"
#include "common/clock.hpp"
#include "common/worker_pool.hpp"
#include "dma/dma.hpp"
#include "sram/buffer_port.hpp"
#include "sram/lane_access.hpp"
#include "sram/sram.hpp"
#include "vector/vector_unit.hpp"

namespace eva {

class VqConflictAccelerator : public Accelerator {
 public:
  // The lookup lanes' port into the codebook SRAM's lookup_socket.
  tlm_utils::simple_initiator_socket<VqConflictAccelerator> lookup_socket;
  // The lookup datapath's port into the input, index and output buffers
  // (through the local bus): its activation, index and accumulator traffic.
  BufferPort buffer_port;
  Dma dma;
  // The codebooks (buffers.codebook_kib), banked, in lookup.replicas copies;
  // the DMA fills it through the local bus, the lanes read it.
  Sram codebook;
  VectorUnit vector;
  // Activations (and the vector unit's operands), the FP32 accumulators (and
  // the vector unit's results), the index chunks (buffers.weight_kib, two
  // slots); all filled by the DMA through the local bus.
  Sram input_buffer, output_buffer, index_buffer;
  LocalBus bus;

  VqConflictAccelerator(const sc_core::sc_module_name& name, const VqConflictConfig& config);

  tlm::tlm_initiator_socket<>& memory_socket() override { return dma.initiator_socket; }
  Dma& dma_engine() override { return dma; }
  OperandBytes operand_bytes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const override;
  void check(const GemmDescriptor& op) const override;
  std::uint64_t execute(const GemmDescriptor& op) override;
  std::uint64_t execute_vector(const VectorDescriptor& op) override;
  void check(const VectorDescriptor&) const override {}
  using Accelerator::check;
  std::vector<const StatGroup*> stat_groups() override;
  // Every chunk's, sampled and reused ones included (the codebook SRAM's own
  // count covers the lanes presented to it).
  std::uint64_t bank_conflict_cycles() const override { return static_cast<std::uint64_t>(m_stats.get(m_conflicts)); }
  std::vector<std::uint8_t> vq_index_image(const VqMatrix& w, std::uint64_t m) const override;

 private:
  WorkerPool m_workers;  // the index fetcher
  // The local bus's windows.
  struct Map {
    std::uint64_t input, output, index, codebook;
  };
  static Map buffer_map(const VqConflictConfig& c);
  static SramConfig codebook_sram(const VqConflictConfig& c);
  // The figures BufferTraffic prices the codebook's bits at: energy.codebook
  // scaled by the codebook SRAM's banks (SramConfig::bit_energy_scale).
  static EnergyConfig codebook_energy(const VqConflictConfig& c);
  std::uint64_t attention(const GemmDescriptor& op);
  // lookup.model=artifact, timing mode: the cycles of `cols` columns of a
  // layer, tile by tile (BASELINES.md 4.5), from indices drawn as the lanes'
  // are; `stall` gains the conflict cycles beyond compute. Past
  // lookup.sample_groups index groups, each tile is charged the mean stall.
  struct ArtifactSample {
    std::uint64_t groups = 0, tiles = 0;
    double stall = 0.0;
  };
  std::uint64_t artifact_cycles(const GemmDescriptor& op, std::uint64_t cols, std::mt19937_64& rng,
                                ArtifactSample& sample, std::uint64_t& stall) const;
  // The SRAM byte address of one word of entry e of codebook c of a group, as
  // lane l reads it.
  std::uint64_t word_address(std::uint64_t group, int c, std::uint64_t e, std::uint64_t word, std::uint64_t lane) const;
  // Codebook groups of a GEMM and the bytes they take in DRAM.
  std::uint64_t codebook_groups(const GemmDescriptor& op) const;
  // Starts the DMA loads of `groups` codebook groups into every copy.
  std::vector<Dma::Transfer> load_codebooks(const GemmDescriptor& op, std::uint64_t groups);

  const VqConflictConfig m_config;
  const ClockDomain m_clock;
  const std::uint64_t m_words_per_entry;
  const Map m_map;
  // Timing mode, per shape (N, K): each chunk's lookup cycles, and the codebook
  // SRAM's lane counts before and after the shape's lookups, counted again
  // when the shape recurs.
  struct ShapeLookups {
    std::vector<std::uint64_t> chunk_cycles;
    Sram::LaneCounts before, after;
  };
  std::map<std::pair<std::uint64_t, std::uint64_t>, ShapeLookups> m_chunk_cycles;
  StatGroup m_stats{"lookup"};
  BufferTraffic m_traffic;  // the codebook reads of the lanes (sampled lookups included)
  std::size_t m_lookups, m_cycles, m_conflicts;
  PricedBuffers m_buffers;
  PricedCounter m_lanes;  // the lookup lanes and their multiply-add datapath, at the array's figures
  tlm::tlm_generic_payload m_lane_trans;
  LaneAccess m_lane_access;
};

}  // namespace eva
