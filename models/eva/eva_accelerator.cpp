#include "eva/eva_accelerator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/fp16.hpp"
#include "common/sync.hpp"
#include "common/timeline.hpp"
#include "common/vq_math.hpp"
#include "eva/vq_weights.hpp"
#include "pack/operand_layout.hpp"
#include "vector/vector_op.hpp"

namespace eva {

// The state of one VQ layer in flight, shared by its threads.
struct EvaPlan {
  EvaPlan(const GemmDescriptor& d, EvaTiler t, std::uint64_t index_slots, std::uint64_t oc_regions)
      : op(d), tiler(std::move(t)), idx_at(index_slots), oc_slots(oc_regions), idx_slots(index_slots) {}
  const GemmDescriptor& op;
  const EvaTiler tiler;
  // Local addresses of the double-buffered activations, codebooks and index
  // chunks; the FP32 column accumulators (functional runs).
  std::uint64_t act_at[2] = {}, cb_at[2] = {};
  std::vector<std::uint64_t> idx_at;
  std::vector<float> y[2];
  Slots act_slots{2}, cb_slots{2}, oc_slots, y_slots{2}, idx_slots;
  std::vector<std::uint64_t> idx_free;  // free index-buffer slots
  struct OcInput {
    std::uint64_t pass;
    Dma::Transfer act, cb;
    int act_slot, cb_slot;
  };
  EventQueue<OcInput> to_array;
  EventQueue<std::pair<std::uint64_t, int>> oc_ready;  // pass, OC region
  struct Chunk {
    std::uint64_t pass, j0, cols, bytes, slot;  // the slot holds [column tile][sub-vector][run]
    Dma::Transfer t;
  };
  EventQueue<Chunk> chunks;
  EventQueue<std::pair<std::uint64_t, int>> rows_done;  // last pass of a row tile, its y buffer
  std::uint64_t chunk_cols = 1;
};

EvaAccelerator::EvaAccelerator(const sc_core::sc_module_name& name, const EvaConfig& config)
    : Accelerator(name),
      dma("dma", config.dma),
      array("array", config.systolic, config.clock_mhz,
            array_power(
                config.energy, config.area,
                static_cast<std::uint64_t>(config.systolic.rows) * static_cast<std::uint64_t>(config.systolic.cols))),
      oc("oc", oc_sram(config), config.clock_mhz),
      epilogue_units("epilogue", static_cast<std::size_t>(config.epilogue.units),
                     [&config](const char* name, std::size_t i) {
                       return new EpilogueUnit(
                           name, config.epilogue, static_cast<int>(i), static_cast<std::uint64_t>(config.oc.banks),
                           config.clock_mhz,
                           epilogue_unit_power(config.energy, config.area,
                                               static_cast<std::uint64_t>(config.epilogue.adder_inputs)));
                     }),
      vector("vector", config.vector, config.clock_mhz,
             vector_power(config.energy, config.area, static_cast<std::uint64_t>(config.vector.lanes))),
      input_buffer("input_buffer", buffer_sram(config, config.buffers.input_kib, config.energy.input),
                   config.clock_mhz),
      codebook_buffer("codebook_buffer", buffer_sram(config, config.buffers.codebook_kib, config.energy.codebook),
                      config.clock_mhz),
      index_buffer("index_buffer", buffer_sram(config, config.buffers.weight_kib, config.energy.weight),
                   config.clock_mhz),
      output_buffer("output_buffer", buffer_sram(config, config.buffers.output_kib, config.energy.output),
                    config.clock_mhz),
      bus("bus", config.check_protocol),
      buffer_port("buffer_port"),
      m_config(config),
      m_clock(config.clock_mhz),
      m_lookups(eva_lookups(config.epilogue)),
      m_depth(eva_oc_depth(config.oc)),
      m_pipeline(static_cast<std::uint64_t>(std::ceil(std::log2(std::max(2, config.epilogue.adder_inputs)))) + 1),
      m_input_base(buffer_bases(config.buffers)[0]),
      m_codebook_base(buffer_bases(config.buffers)[1]),
      m_index_base(buffer_bases(config.buffers)[2]),
      m_output_base(buffer_bases(config.buffers)[3]),
      // Prefill: A8 activations and outputs, INT32 accumulators (the EVA
      // artifact's vqarray_2_prefill, as its dense baselines).
      m_gemm(dma, array, WsBuffers{m_input_base, m_index_base, m_output_base},
             WsGemmConfig{config.systolic, config.buffers, FormatConfig{8, 8, 8, 32, 16}, config.tiling}),
      // Attention: the array's weight-stationary mode over the KV cache,
      // FP16 activations and outputs (as the artifact runs attention on the
      // prefill array; here the KV cache keeps formats.kv_bits), an FP16
      // cache in the array's FP16 mode (systolic.fp16_ratio: 32x32 INT8 as
      // 32x8 FP16). Dense FP16 weights (an FP16 LM head) likewise.
      m_attention(dma, array, WsBuffers{m_input_base, m_index_base, m_output_base},
                  dense_gemm_config(config.systolic, config.buffers, config.formats.kv_formats(), config.tiling)),
      m_fp16_gemm(dma, array, WsBuffers{m_input_base, m_index_base, m_output_base},
                  dense_gemm_config(config.systolic, config.buffers, config.formats.fp16_formats(), config.tiling)),
      m_kv(DenseWeights::kv_cache(config.formats)),
      m_fp16(16) {
  array.lane_socket.bind(oc.lookup_socket);
  for (EpilogueUnit& u : epilogue_units) u.lookup_socket.bind(oc.lookup_socket);
  bus.attach(input_buffer.target_socket, m_input_base, input_buffer.size());
  bus.attach(codebook_buffer.target_socket, m_codebook_base, codebook_buffer.size());
  bus.attach(index_buffer.target_socket, m_index_base, index_buffer.size());
  bus.attach(output_buffer.target_socket, m_output_base, output_buffer.size());
  dma.sram_socket.bind(bus.target_socket);
  array.buffer_port.bind(bus.target_socket);
  vector.buffer_port.bind(bus.target_socket);
  buffer_port.bind(bus.target_socket);
}

std::vector<std::uint64_t> EvaAccelerator::buffer_bases(const BufferConfig& b) {
  std::vector<std::uint64_t> bases;
  std::uint64_t at = 0;
  for (int kib : {b.input_kib, b.codebook_kib, b.weight_kib, b.output_kib}) {
    bases.push_back(at);
    at += static_cast<std::uint64_t>(kib) * 1024;
  }
  return bases;
}

std::vector<const StatGroup*> EvaAccelerator::stat_groups() {
  oc.flush_stats();
  std::vector<const StatGroup*> g = {&dma.stats(), &array.stats()};
  for (const EpilogueUnit& u : epilogue_units) g.push_back(&u.stats());
  for (Sram* b : {&input_buffer, &codebook_buffer, &index_buffer, &output_buffer}) {
    b->flush_stats();
    g.push_back(&b->stats());
  }
  for (const StatGroup* s : {&oc.stats(), &vector.stats()}) g.push_back(s);
  return g;
}

SramConfig EvaAccelerator::oc_sram(const EvaConfig& c) {
  SramConfig s = c.oc;
  s.cost = sram_cost(c.area, c.energy);
  return s;
}

EvaTiler EvaAccelerator::tiler(std::uint64_t m, std::uint64_t k, std::uint64_t n) const {
  return EvaTiler(m, k, n, m_config.vq, m_lookups, m_depth);
}

std::vector<std::uint8_t> EvaAccelerator::vq_index_image(const VqMatrix& w, std::uint64_t m) const {
  return eva_index_image(tiler(m, w.k, w.n), w);
}

std::uint64_t EvaAccelerator::column_cycles(std::uint64_t rows) const {
  return std::max<std::uint64_t>(1, (rows + m_lookups - 1) / m_lookups);
}

OperandBytes EvaAccelerator::operand_bytes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const {
  const EvaTiler t = tiler(m, k, n);
  OperandBytes b;
  // INT8 in INT8 mode, FP16 in VQ-lookup mode: sized for FP16 unless the
  // layer runs in INT8 mode both in timing and functional runs.
  const std::uint64_t element = above_threshold(m) && int8_mode(m, k, n) ? 1 : 2;
  b.activations = m * k * element;
  b.weights = t.index_bytes();
  b.codebooks = codebook_bytes(k, n);
  b.outputs = m * n * element;
  return b;
}

std::uint64_t EvaAccelerator::codebook_bytes(std::uint64_t k, std::uint64_t n) const {
  const VqFormat& f = m_config.vq;
  const std::uint64_t groups =
      (f.group_k ? (k + f.group_k - 1) / f.group_k : 1) * (f.group_n ? (n + f.group_n - 1) / f.group_n : 1);
  return groups * static_cast<std::uint64_t>(f.codebooks) * (1ull << f.index_bits) *
         static_cast<std::uint64_t>(f.vector_dim) * 2;
}

void EvaAccelerator::check(const GemmDescriptor& op) const {
  if (op.operand == GemmOperand::kv_cache) {
    if (op.functional) throw InputError("eva: attention is modelled in timing mode only");
    m_attention.check(op, m_kv);
    return;
  }
  if (op.operand == GemmOperand::fp16_weights) {
    if (op.functional) throw InputError("eva: FP16 weights are modelled in timing mode only");
    m_fp16_gemm.check(op, m_fp16);
    return;
  }
  const VqFormat& f = m_config.vq;
  if (op.k % static_cast<std::uint64_t>(f.vector_dim) != 0)
    throw InputError(
        fmt::format("K = {} is not a multiple of the VQ vector size d = {} (vq.vector_dim)", op.k, f.vector_dim));
  if (static_cast<std::uint64_t>(m_config.oc.banks) < tiler(op.m, op.k, op.n).block_rows())
    throw InputError(fmt::format("oc.banks ({}) must be at least the epilogue's lookups per cycle ({})",
                                 m_config.oc.banks, tiler(op.m, op.k, op.n).block_rows()));
  if (m_depth == 0)
    throw InputError(fmt::format("oc.size_kib: too small for {} region(s) of one entry per bank", m_config.oc.buffers));
  const bool int8 = int8_mode(op.m, op.k, op.n, op.functional);
  // VQ-lookup mode's double-buffered operands must fit their buffers' halves.
  if (!int8) {
    const EvaTiler t = tiler(op.m, op.k, op.n);
    const std::string misfit = vq_misfit(t, vq_totals(t, op.n));
    if (!misfit.empty()) throw InputError(misfit);
  } else {
    if (op.functional)
      throw InputError(
          fmt::format("M = {} is above vq.prefill_above_m ({}): INT8 prefill mode is modelled in timing "
                      "only",
                      op.m, m_config.vq.prefill_above_m));
    m_gemm.check(op, VqWeights(m_config.vq, tiler(op.m, op.k, op.n)));
  }
}

EvaAccelerator::VqTotals EvaAccelerator::vq_totals(const EvaTiler& t, std::uint64_t n) const {
  const VqFormat& f = m_config.vq;
  const auto d = static_cast<std::uint64_t>(f.vector_dim);
  const std::uint64_t tc = EvaTiler::tile_cols;
  const std::uint64_t resident = static_cast<std::uint64_t>(f.codebooks) << f.index_bits;
  const bool overlap = m_config.oc.buffers > 1;
  VqTotals out;
  for (std::uint64_t i = 0; i < t.size(); ++i) {
    const EvaPass p = t.at(i);
    const std::uint64_t act = p.m * p.v * d * 2, cb = (t.codebooks_resident() ? resident : p.e) * d * 2;
    out.activation_bytes = std::max(out.activation_bytes, act);
    out.codebook_bytes = std::max(out.codebook_bytes, cb);
    // Each pass takes the longer of its OC computation and its epilogue pass
    // with a double-buffered OC (their sum with a single one), plus the adder
    // trees' pipeline once per input-row tile.
    const std::uint64_t gemm = array.oc_cycles(p.v * p.m, d, p.e), epilogue = p.n * column_cycles(p.v * p.m);
    out.cycles += overlap ? std::max(gemm, epilogue) : gemm + epilogue;
    if (p.last_of_rows) out.cycles += m_pipeline;
    // What fetch, fetch_indices and store move.
    if (p.first_of_tile) out.dram_bytes += act;
    if (p.new_codebook) out.dram_bytes += cb;
    out.dram_bytes += p.n / tc * p.v * t.column_bytes(tc) + (p.n % tc ? p.v * t.column_bytes(p.n % tc) : 0);
    if (p.last_of_rows) out.dram_bytes += p.m * n * 2;
  }
  return out;
}

std::string EvaAccelerator::vq_misfit(const EvaTiler& t, const VqTotals& totals) const {
  const auto half = [](int kib) { return static_cast<std::uint64_t>(kib) * 1024 / 2; };
  if (totals.activation_bytes > half(m_config.buffers.input_kib))
    return fmt::format("buffers.input_kib: {} KiB cannot double-buffer {} B of activations", m_config.buffers.input_kib,
                       totals.activation_bytes);
  if (totals.codebook_bytes > half(m_config.buffers.codebook_kib))
    return fmt::format("buffers.codebook_kib: {} KiB cannot double-buffer {} B of codebooks",
                       m_config.buffers.codebook_kib, totals.codebook_bytes);
  if (EvaTiler::tile_cols * t.column_bytes(t.block_rows()) > half(m_config.buffers.weight_kib))
    return fmt::format("buffers.weight_kib: {} KiB (the index buffer) cannot double-buffer one tile of index columns",
                       m_config.buffers.weight_kib);
  return "";
}

ModeCost EvaAccelerator::vq_cost(std::uint64_t m, std::uint64_t k, std::uint64_t n) const {
  const EvaTiler t = tiler(m, k, n);
  const VqTotals totals = vq_totals(t, n);
  ModeCost c;
  c.fits = vq_misfit(t, totals).empty();
  c.cycles = static_cast<double>(totals.cycles);
  c.bytes = static_cast<double>(totals.dram_bytes);
  return c;
}

ModeCost EvaAccelerator::int8_cost(std::uint64_t m, std::uint64_t k, std::uint64_t n) const {
  ModeCost c;
  GemmDescriptor op;
  op.m = m;
  op.k = k;
  op.n = n;
  const EvaTiler t = tiler(m, k, n);
  WsGemm::Schedule s;
  try {
    s = m_gemm.schedule(op, VqWeights(m_config.vq, t));
  } catch (const InputError&) {
    c.fits = false;
    return c;
  }
  c.cycles = static_cast<double>(s.cycles);
  // Each input-row block reads every index and the codebooks (VqWeights); A8
  // activations once per input read, A8 outputs once.
  c.bytes =
      static_cast<double>(s.weight_reads * (t.index_bytes() + codebook_bytes(k, n)) + s.input_reads * m * k + m * n);
  return c;
}

bool EvaAccelerator::int8_mode(std::uint64_t m, std::uint64_t k, std::uint64_t n, bool functional) const {
  if (functional || m_config.mode.mode_policy == ModePolicy::thresholds) return above_threshold(m);
  // A layer check() refuses in any mode: no estimate to make.
  if (m_depth == 0 || static_cast<std::uint64_t>(m_config.oc.banks) < tiler(m, k, n).block_rows())
    return above_threshold(m);
  // operand_bytes, check and execute ask in turn for the same layer.
  ModeMemo& memo = m_mode_memo;
  if (!memo.valid || memo.m != m || memo.k != k || memo.n != n)
    memo = {true, m, k, n, int8_is_faster(vq_cost(m, k, n), int8_cost(m, k, n), m_config.tiling.dram_bytes_per_cycle)};
  return memo.int8;
}

std::uint64_t EvaAccelerator::execute(const GemmDescriptor& op) {
  if (op.operand == GemmOperand::kv_cache) return m_attention.run(op, m_kv);
  if (op.operand == GemmOperand::fp16_weights) return m_fp16_gemm.run(op, m_fp16);
  const EvaTiler t = tiler(op.m, op.k, op.n);
  if (int8_mode(op.m, op.k, op.n, op.functional)) {
    VqWeights weights(m_config.vq, t, BufferSlot{m_codebook_base, codebook_buffer.size(), false});
    return m_gemm.run(op, weights);
  }
  // Index chunks: as many whole column tiles as fit half the index buffer
  // for a whole block of sub-vectors.
  const std::uint64_t index_bytes = index_buffer.size();
  const std::uint64_t col_bytes = t.column_bytes(t.block_rows());
  const std::uint64_t tc = EvaTiler::tile_cols;
  EvaPlan plan(op, t, 2, static_cast<std::uint64_t>(m_config.oc.buffers));
  plan.chunk_cols = std::max<std::uint64_t>(tc, index_bytes / 2 / col_bytes / tc * tc);
  for (std::uint64_t s = 0; s < 2; ++s) plan.idx_free.push_back(s);
  for (int h = 0; h < 2; ++h) {
    plan.act_at[h] = m_input_base + static_cast<std::uint64_t>(h) * (input_buffer.size() / 2);
    plan.cb_at[h] = m_codebook_base + static_cast<std::uint64_t>(h) * (codebook_buffer.size() / 2);
    plan.idx_at[static_cast<std::size_t>(h)] = m_index_base + static_cast<std::uint64_t>(h) * (index_buffer.size() / 2);
  }
  WorkerPool::Group stages;
  m_workers.start(
      stages, [this, &plan] { fetch(plan); }, "fetch");
  m_workers.start(
      stages, [this, &plan] { fetch_indices(plan); }, "indices");
  m_workers.start(
      stages, [this, &plan] { compute_oc(plan); }, "array");
  m_workers.start(
      stages, [this, &plan] { epilogue(plan); }, "epilogue");
  m_workers.start(
      stages, [this, &plan] { store(plan); }, "store");
  stages.wait();
  return vq_totals(t, op.n).cycles;
}

std::uint64_t EvaAccelerator::execute_vector(const VectorDescriptor& op) {
  return run_vector_op(dma, vector,
                       VectorBuffers{m_input_base, input_buffer.size(), m_output_base, output_buffer.size()}, op);
}

void EvaAccelerator::fetch(EvaPlan& plan) {
  const GemmDescriptor& op = plan.op;
  const VqFormat& f = m_config.vq;
  const auto d = static_cast<std::uint64_t>(f.vector_dim);
  const std::uint64_t entries = 1ull << f.index_bits;
  int act_slot = 1, cb_slot = 1;
  Dma::Transfer act, cb;
  for (std::uint64_t i = 0; i < plan.tiler.size(); ++i) {
    const EvaPass p = plan.tiler.at(i);
    if (p.first_of_tile) {
      plan.act_slots.acquire();
      act_slot ^= 1;
      const std::uint64_t row = p.v * d * 2;
      act = dma.start_load(op.act_addr + (p.m0 * op.k + p.v0 * d) * 2, row, p.m, op.k * 2, plan.act_at[act_slot],
                           !op.functional);
    }
    if (p.new_codebook) {
      plan.cb_slots.acquire();
      cb_slot ^= 1;
      // Resident codebooks: all of group 0 at once; otherwise this pass's slice.
      const bool all = plan.tiler.codebooks_resident();
      const std::uint64_t first =
          all ? 0
              : ((p.group * static_cast<std::uint64_t>(f.codebooks) + static_cast<std::uint64_t>(p.codebook)) *
                     entries +
                 p.e0) *
                    d;
      const std::uint64_t count = all ? static_cast<std::uint64_t>(f.codebooks) * entries * d : p.e * d;
      cb = dma.start_load(op.codebook_addr + first * 2, count * 2, 1, count * 2, plan.cb_at[cb_slot], !op.functional);
    }
    plan.to_array.push({i, act, cb, act_slot, cb_slot});
  }
}

void EvaAccelerator::fetch_indices(EvaPlan& plan) {
  const GemmDescriptor& op = plan.op;
  const std::uint64_t tc = EvaTiler::tile_cols;
  for (std::uint64_t i = 0; i < plan.tiler.size(); ++i) {
    const EvaPass p = plan.tiler.at(i);
    for (std::uint64_t j0 = 0; j0 < p.n; j0 += plan.chunk_cols) {
      const std::uint64_t cols = std::min(plan.chunk_cols, p.n - j0);
      plan.idx_slots.acquire();
      const std::uint64_t slot = plan.idx_free.back();
      plan.idx_free.pop_back();
      // The pass's sub-vectors in this chunk's column tiles: one run per tile
      // (the full tiles as one 2-D transfer, a narrower last tile apart).
      const EvaTiler& tl = plan.tiler;
      const std::uint64_t t0 = (p.n0 + j0) / tc, tiles = (cols + tc - 1) / tc;
      const std::uint64_t full = cols / tc, run = p.v * tl.column_bytes(tc);
      const std::uint64_t stride = tl.block_size(p.v0 / tl.block_rows()) * tl.column_bytes(tc);
      const std::uint64_t at = plan.idx_at[slot];
      Dma::Transfer last;
      std::uint64_t bytes = 0;
      if (full) {
        last =
            dma.start_load(op.weight_addr + tl.run_offset(p.codebook, p.v0, t0), run, full, stride, at, !op.functional);
        bytes += run * full;
      }
      if (tiles > full) {
        const std::uint64_t narrow = p.v * tl.column_bytes(tl.tile_width(t0 + full));
        last = dma.start_load(op.weight_addr + tl.run_offset(p.codebook, p.v0, t0 + full), narrow, 1, narrow,
                              at + full * run, !op.functional);
        bytes += narrow;
      }
      plan.chunks.push({i, j0, cols, bytes, slot, last});
    }
  }
}

void EvaAccelerator::compute_oc(EvaPlan& plan) {
  const GemmDescriptor& op = plan.op;
  const VqFormat& f = m_config.vq;
  const auto d = static_cast<std::uint64_t>(f.vector_dim);
  const std::uint64_t entries = 1ull << f.index_bits;
  const std::uint64_t banks = static_cast<std::uint64_t>(m_config.oc.banks);
  const auto regions = static_cast<int>(m_config.oc.buffers);
  const std::uint64_t region_bytes = oc.size() / static_cast<std::uint64_t>(regions);
  int region = regions - 1, last_act = -1, last_cb = -1;
  std::vector<half_bits> row(entries), values;
  for (std::uint64_t n = 0; n < plan.tiler.size(); ++n) {
    const EvaPlan::OcInput in = plan.to_array.pop();
    const EvaPass p = plan.tiler.at(in.pass);
    if (last_act >= 0 && in.act_slot != last_act) plan.act_slots.release();  // the previous tile is done
    if (last_cb >= 0 && in.cb_slot != last_cb) plan.cb_slots.release();
    last_act = in.act_slot;
    last_cb = in.cb_slot;
    Dma::wait_for(in.act);
    Dma::wait_for(in.cb);
    plan.oc_slots.acquire();
    region = (region + 1) % regions;
    const std::uint64_t rows = p.v * p.m;  // OC row r = vv x m + mm, in bank r
    SystolicArray::OcOutput out{static_cast<std::uint64_t>(region) * region_bytes, banks, nullptr};
    // The array streams the pass's activations and codebook entries in from
    // their buffers and writes its OC entries (FP16) into the OC SRAM.
    const std::uint64_t cb_at =
        plan.cb_at[in.cb_slot] +
        (plan.tiler.codebooks_resident() ? (static_cast<std::uint64_t>(p.codebook) * entries + p.e0) * d * 2 : 0);
    array.buffer_port.touch(tlm::TLM_READ_COMMAND, plan.act_at[in.act_slot], rows * d * 2);
    array.buffer_port.touch(tlm::TLM_READ_COMMAND, cb_at, p.e * d * 2);
    if (op.functional) {
      const auto* cb = reinterpret_cast<const half_bits*>(array.buffer_port.direct(cb_at, p.e * d * 2));
      const auto* act =
          reinterpret_cast<const half_bits*>(array.buffer_port.direct(plan.act_at[in.act_slot], rows * d * 2));
      values.resize(p.e * rows);
      for (std::uint64_t vv = 0; vv < p.v; ++vv)
        for (std::uint64_t mm = 0; mm < p.m; ++mm) {
          const std::uint64_t r = vv * p.m + mm;
          oc_row(act + mm * p.v * d + vv * d, cb, static_cast<int>(p.e), static_cast<int>(d), row.data());
          for (std::uint64_t e = 0; e < p.e; ++e) values[e * rows + r] = row[e];
        }
      out.values = values.data();
    }
    array.run_oc(rows, d, p.e, out);
    plan.oc_ready.push({in.pass, region});
  }
  plan.act_slots.release();
  plan.cb_slots.release();
}

void EvaAccelerator::epilogue(EvaPlan& plan) {
  const GemmDescriptor& op = plan.op;
  const std::uint64_t tc = EvaTiler::tile_cols;
  const VqFormat& f = m_config.vq;
  const std::uint64_t region_bytes = oc.size() / static_cast<std::uint64_t>(m_config.oc.buffers);
  const std::size_t units = epilogue_units.size();
  int ybuf = 1;
  std::vector<std::uint32_t> indices;
  std::vector<std::vector<float>> partial(units);
  for (std::uint64_t n = 0; n < plan.tiler.size(); ++n) {
    const auto [pass, region] = plan.oc_ready.pop();
    const EvaPass p = plan.tiler.at(pass);
    const std::uint64_t rows = p.v * p.m;
    if (p.first_of_rows) {
      plan.y_slots.acquire();
      ybuf ^= 1;
      if (op.functional) plan.y[ybuf].assign(p.m * op.n, 0.0f);
    }
    for (std::uint64_t done = 0; done < p.n;) {
      const EvaPlan::Chunk c = plan.chunks.pop();
      Dma::wait_for(c.t);
      EpilogueUnit::Job job;
      job.cols = c.cols;
      job.rows = rows;
      job.m = p.m;
      job.oc_base = static_cast<std::uint64_t>(region) * region_bytes;
      job.entry0 = p.e0;
      job.entries = p.e;
      // The chunk's indices leave the index buffer for the units.
      buffer_port.touch(tlm::TLM_READ_COMMAND, plan.idx_at[c.slot], c.bytes);
      if (op.functional) {
        const std::uint8_t* idx = buffer_port.direct(plan.idx_at[c.slot], c.bytes);
        indices.resize(c.cols * p.v);
        for (std::uint64_t j = 0; j < c.cols; ++j) {
          const std::uint64_t ti = j / tc, width = std::min(tc, c.cols - ti * tc);
          for (std::uint64_t vv = 0; vv < p.v; ++vv)
            indices[j * p.v + vv] =
                unpack_index(idx + ti * p.v * plan.tiler.column_bytes(tc) + vv * plan.tiler.column_bytes(width), j % tc,
                             f.index_bits);
        }
        job.indices = indices.data();
      }
      const sc_core::sc_time start = sc_core::sc_time_stamp();
      for (std::size_t u = 0; u < units; ++u) {
        if (op.functional) {
          partial[u].assign(p.m * c.cols, 0.0f);
          job.partial = partial[u].data();
        }
        epilogue_units[u].start(job);
      }
      for (EpilogueUnit& u : epilogue_units)
        while (u.busy()) wait(u.done());
      // The columns' sums: every unit's adder-tree output into the FP32 accumulators.
      if (op.functional)
        for (std::size_t u = 0; u < units; ++u)
          for (std::uint64_t mm = 0; mm < p.m; ++mm)
            for (std::uint64_t j = 0; j < c.cols; ++j)
              plan.y[ybuf][mm * op.n + p.n0 + c.j0 + j] += partial[u][mm * c.cols + j];
      if (Timeline* t = Timeline::of(*this))
        t->span("epilogue", fmt::format("{} columns", c.cols), start, sc_core::sc_time_stamp());
      plan.idx_free.push_back(c.slot);
      plan.idx_slots.release();
      done += c.cols;
      // The last chunk is through the units: the index, codebook and input
      // buffers are free for the next descriptor while the sums drain.
      if (n + 1 == plan.tiler.size() && done >= p.n) dma.operands_consumed();
    }
    // The columns' FP32 accumulators: read and written by every pass after
    // the first of the row tile.
    const std::uint64_t acc_bytes = p.m * p.n * 4;
    if (!p.first_of_rows) buffer_port.stream(tlm::TLM_READ_COMMAND, m_output_base, output_buffer.size(), acc_bytes);
    buffer_port.stream(tlm::TLM_WRITE_COMMAND, m_output_base, output_buffer.size(), acc_bytes);
    plan.oc_slots.release();
    if (p.last_of_rows) {
      wait(m_clock.cycles(m_pipeline));  // the adder trees drain
      plan.rows_done.push({pass, ybuf});
    }
  }
}

void EvaAccelerator::store(EvaPlan& plan) {
  const GemmDescriptor& op = plan.op;
  std::vector<half_bits> out;
  for (std::uint64_t r = 0; r < plan.tiler.rows_tiles(); ++r) {
    const auto [pass, ybuf] = plan.rows_done.pop();
    const EvaPass p = plan.tiler.at(pass);
    if (op.functional) {
      out.resize(p.m * op.n);
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = float_to_half(plan.y[ybuf][i]);
    }
    buffer_port.stream(tlm::TLM_READ_COMMAND, m_output_base, output_buffer.size(), p.m * op.n * 4);
    dma.write(op.out_addr + p.m0 * op.n * 2, p.m * op.n * 2,
              op.functional ? reinterpret_cast<const std::uint8_t*>(out.data()) : nullptr);
    plan.y_slots.release();
  }
}

}  // namespace eva
