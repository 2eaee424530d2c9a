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
#include "vector/vector_op.hpp"

namespace eva {

// The state of one VQ layer in flight, shared by its threads.
struct EvaPlan {
  EvaPlan(const GemmDescriptor& d, EvaTiler t, std::uint64_t index_slots)
      : op(d), tiler(std::move(t)), idx_slots(index_slots), idx_buf(index_slots) {}
  const GemmDescriptor& op;
  const EvaTiler tiler;
  // Functional data on its way through the on-chip buffers.
  std::vector<half_bits> act[2];
  std::vector<half_bits> cb[2];
  std::vector<float> y[2];
  Slots act_slots{2}, cb_slots{2}, oc_slots{2}, y_slots{2}, idx_slots;
  std::vector<std::vector<std::uint8_t>> idx_buf;
  std::vector<std::uint64_t> idx_free;  // free index-buffer slots
  struct OcInput {
    std::uint64_t pass;
    Dma::Transfer act, cb;
    int act_slot, cb_slot;
  };
  EventQueue<OcInput> to_array;
  EventQueue<std::pair<std::uint64_t, int>> oc_ready;  // pass, OC half
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
      array("array", config.systolic, config.clock_mhz),
      oc("oc", config.oc, config.clock_mhz),
      vector("vector", config.vector, config.clock_mhz),
      m_config(config),
      m_clock(config.clock_mhz),
      m_lookups(static_cast<std::uint64_t>(config.epilogue.units) *
                static_cast<std::uint64_t>(config.epilogue.adder_inputs)),
      m_depth(static_cast<std::uint64_t>(config.oc.size_kib) * 1024 / 2 /
              (static_cast<std::uint64_t>(config.oc.banks) * static_cast<std::uint64_t>(config.oc.bank_width_bytes))),
      m_pipeline(static_cast<std::uint64_t>(std::ceil(std::log2(std::max(2, config.epilogue.adder_inputs)))) + 1),
      // Prefill: A8 activations and outputs, INT32 accumulators (the EVA
      // artifact's vqarray_2_prefill, as its dense baselines).
      m_gemm(dma, array, m_traffic,
             WsGemmConfig{config.systolic, config.buffers, FormatConfig{8, 8, 8, 32, 16}, config.tiling}),
      // Attention: the INT8 array's weight-stationary mode over the KV cache,
      // FP16 activations and outputs (as the artifact runs attention on the
      // prefill array; here the KV cache keeps formats.kv_bits).
      m_attention(dma, array, m_traffic,
                  WsGemmConfig{config.systolic, config.buffers, config.formats.kv_formats(), config.tiling}),
      m_kv(config.formats.kv_bits) {
  m_columns = m_stats.add("columns", "columns", "output columns processed (per pass)");
  m_lookups_done = m_stats.add("lookups", "lookups", "OC entries looked up and added");
  m_busy = m_stats.add("busy_cycles", "cycles", "cycles the adder trees worked");
}

std::vector<const StatGroup*> EvaAccelerator::stat_groups() {
  oc.flush_stats();
  return {&dma.stats(), &array.stats(), &m_stats, &oc.stats(), &vector.stats(), &m_traffic.stats()};
}

Breakdown EvaAccelerator::energy_breakdown_j(double seconds) const {
  const EnergyConfig& e = m_config.energy;
  const double cycle_s = 1e-6 / m_config.clock_mhz;
  // The epilogue's busy cycles are those of all its units together.
  const double units = m_config.epilogue.units;
  Breakdown b;
  b["array"] = block_energy_j(e, e.array_w, array.stats().get("busy_cycles") * cycle_s, seconds);
  b["epilogue"] = block_energy_j(e, e.epilogue_unit_w * units, m_stats.get(m_busy) * cycle_s, seconds);
  b["vector"] = block_energy_j(e, e.vector_w, vector.stats().get("busy_cycles") * cycle_s, seconds);
  b["buffers"] = m_traffic.energy_j(e) + e.sram_leakage_w * seconds;
  return b;
}

Breakdown EvaAccelerator::area_breakdown_mm2() const {
  const AreaConfig& a = m_config.area;
  return {{"array", a.array_mm2},
          {"epilogue", a.epilogue_unit_mm2 * m_config.epilogue.units},
          {"vector", a.vector_mm2},
          {"buffers", a.buffer_mm2}};
}

EvaTiler EvaAccelerator::tiler(std::uint64_t m, std::uint64_t k, std::uint64_t n) const {
  return EvaTiler(m, k, n, m_config.vq, m_lookups, m_depth);
}

std::vector<std::uint8_t> EvaAccelerator::vq_index_image(const VqMatrix& w, std::uint64_t m) const {
  const EvaTiler t = tiler(m, w.k, w.n);
  std::vector<std::uint8_t> packed(t.index_bytes(), 0);
  for (int c = 0; c < w.codebooks; ++c)
    for (std::uint64_t v = 0; v < w.subvectors(); ++v)
      for (std::uint64_t j = 0; j < w.n; ++j)
        pack_index(packed.data() + t.run_offset(c, v, j / EvaTiler::tile_cols), j % EvaTiler::tile_cols, w.index_bits,
                   w.at(c, v, j));
  return packed;
}

std::uint64_t EvaAccelerator::column_cycles(std::uint64_t rows) const {
  return std::max<std::uint64_t>(1, (rows + m_lookups - 1) / m_lookups);
}

OperandBytes EvaAccelerator::operand_bytes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const {
  const VqFormat& f = m_config.vq;
  const EvaTiler t = tiler(m, k, n);
  OperandBytes b;
  const std::uint64_t element = prefill(m) ? 1 : 2;  // INT8 in prefill, FP16 in decode
  b.activations = m * k * element;
  b.weights = t.index_bytes();
  const std::uint64_t groups =
      (f.group_k ? (k + f.group_k - 1) / f.group_k : 1) * (f.group_n ? (n + f.group_n - 1) / f.group_n : 1);
  b.codebooks = groups * static_cast<std::uint64_t>(f.codebooks) * (1ull << f.index_bits) *
                static_cast<std::uint64_t>(f.vector_dim) * 2;
  b.outputs = m * n * element;
  return b;
}

void EvaAccelerator::check(const GemmDescriptor& op) const {
  if (op.operand == GemmOperand::kv_cache) {
    if (op.functional) throw InputError("eva: attention is modelled in timing mode only");
    m_attention.check(op, m_kv);
    return;
  }
  const VqFormat& f = m_config.vq;
  if (op.k % static_cast<std::uint64_t>(f.vector_dim) != 0)
    throw InputError(
        fmt::format("K = {} is not a multiple of the VQ vector size d = {} (vq.vector_dim)", op.k, f.vector_dim));
  if (static_cast<std::uint64_t>(m_config.oc.banks) < tiler(op.m, op.k, op.n).block_rows())
    throw InputError(fmt::format("oc.banks ({}) must be at least the epilogue's lookups per cycle ({})",
                                 m_config.oc.banks, tiler(op.m, op.k, op.n).block_rows()));
  if (m_depth == 0) throw InputError("oc.size_kib: too small for two halves of one entry per bank");
  if (prefill(op.m)) {
    if (op.functional)
      throw InputError(
          fmt::format("M = {} is above vq.prefill_above_m ({}): INT8 prefill mode is modelled in timing "
                      "only",
                      op.m, m_config.vq.prefill_above_m));
    m_gemm.check(op, VqWeights(m_config.vq, tiler(op.m, op.k, op.n)));
  }
}

std::uint64_t EvaAccelerator::execute(const GemmDescriptor& op) {
  if (op.operand == GemmOperand::kv_cache) return m_attention.run(op, m_kv);
  const EvaTiler t = tiler(op.m, op.k, op.n);
  if (prefill(op.m)) {
    VqWeights weights(m_config.vq, t);
    return m_gemm.run(op, weights);
  }
  // Index chunks: as many whole column tiles as fit half the index buffer
  // for a whole block of sub-vectors.
  const std::uint64_t index_buffer = static_cast<std::uint64_t>(m_config.buffers.weight_kib) * 1024;
  const std::uint64_t col_bytes = t.column_bytes(t.block_rows());
  const std::uint64_t tc = EvaTiler::tile_cols;
  EvaPlan plan(op, t, 2);
  plan.chunk_cols = std::max<std::uint64_t>(tc, index_buffer / 2 / col_bytes / tc * tc);
  for (std::uint64_t s = 0; s < 2; ++s) plan.idx_free.push_back(s);
  if (op.functional) {
    for (auto& b : plan.idx_buf) b.resize(t.block_rows() * t.column_bytes(plan.chunk_cols));
  }
  sc_core::sc_process_handle workers[] = {
      sc_core::sc_spawn([this, &plan] { fetch(plan); }, sc_core::sc_gen_unique_name("fetch")),
      sc_core::sc_spawn([this, &plan] { fetch_indices(plan); }, sc_core::sc_gen_unique_name("indices")),
      sc_core::sc_spawn([this, &plan] { compute_oc(plan); }, sc_core::sc_gen_unique_name("array")),
      sc_core::sc_spawn([this, &plan] { epilogue(plan); }, sc_core::sc_gen_unique_name("epilogue")),
      sc_core::sc_spawn([this, &plan] { store(plan); }, sc_core::sc_gen_unique_name("store")),
  };
  for (auto& w : workers)
    if (!w.terminated()) wait(w.terminated_event());
  // The closed form with memory never late: each pass takes the longer of its
  // OC computation and its epilogue pass (double-buffered OC), plus the adder
  // trees' pipeline once per input-row tile.
  std::uint64_t cycles = 0;
  const auto d = static_cast<std::uint64_t>(m_config.vq.vector_dim);
  for (std::uint64_t i = 0; i < t.size(); ++i) {
    const EvaPass p = t.at(i);
    cycles += std::max(array.oc_cycles(p.v * p.m, d, p.e), p.n * column_cycles(p.v * p.m));
    if (p.last_of_rows) cycles += m_pipeline;
  }
  return cycles;
}

std::uint64_t EvaAccelerator::execute_vector(const VectorDescriptor& op) {
  return run_vector_op(dma, vector, m_traffic, op);
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
      if (op.functional) plan.act[act_slot].assign(p.m * p.v * d, 0);
      act = dma.start_read(op.act_addr + (p.m0 * op.k + p.v0 * d) * 2, row, p.m, op.k * 2,
                           op.functional ? reinterpret_cast<std::uint8_t*>(plan.act[act_slot].data()) : nullptr);
      m_traffic.write(BufferTraffic::input, static_cast<double>(row * p.m * 8));
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
      if (op.functional) plan.cb[cb_slot].assign(count, 0);
      cb = dma.start_read(op.codebook_addr + first * 2, count * 2, 1, count * 2,
                          op.functional ? reinterpret_cast<std::uint8_t*>(plan.cb[cb_slot].data()) : nullptr);
      m_traffic.write(BufferTraffic::codebook, static_cast<double>(count * 2 * 8));
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
      std::uint8_t* buf = op.functional ? plan.idx_buf[slot].data() : nullptr;
      Dma::Transfer last;
      std::uint64_t bytes = 0;
      if (full) {
        last = dma.start_read(op.weight_addr + tl.run_offset(p.codebook, p.v0, t0), run, full, stride, buf);
        bytes += run * full;
      }
      if (tiles > full) {
        const std::uint64_t narrow = p.v * tl.column_bytes(tl.tile_width(t0 + full));
        last = dma.start_read(op.weight_addr + tl.run_offset(p.codebook, p.v0, t0 + full), narrow, 1, narrow,
                              buf ? buf + full * run : nullptr);
        bytes += narrow;
      }
      m_traffic.write(BufferTraffic::weight, static_cast<double>(bytes * 8));
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
  const std::uint64_t half_bytes = oc.size() / 2;
  int half = 1, last_act = -1, last_cb = -1;
  std::vector<half_bits> row(entries);
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
    half ^= 1;
    if (op.functional) {
      const half_bits* cb =
          plan.tiler.codebooks_resident()
              ? plan.cb[in.cb_slot].data() + (static_cast<std::uint64_t>(p.codebook) * entries + p.e0) * d
              : plan.cb[in.cb_slot].data();
      std::uint8_t* base = oc.data() + static_cast<std::uint64_t>(half) * half_bytes;
      for (std::uint64_t vv = 0; vv < p.v; ++vv)
        for (std::uint64_t mm = 0; mm < p.m; ++mm) {
          const std::uint64_t r = vv * p.m + mm;  // the OC row, and its bank
          oc_row(plan.act[in.act_slot].data() + mm * p.v * d + vv * d, cb, static_cast<int>(p.e), static_cast<int>(d),
                 row.data());
          for (std::uint64_t e = 0; e < p.e; ++e) std::memcpy(base + 2 * (e * banks + r), &row[e], 2);
        }
    }
    // The array streams the pass's activations and codebook entries in and
    // writes its OC entries (FP16) into the OC SRAM.
    m_traffic.read(BufferTraffic::input, static_cast<double>(p.v * p.m * d * 16));
    m_traffic.read(BufferTraffic::codebook, static_cast<double>(p.e * d * 16));
    m_traffic.write(BufferTraffic::oc, static_cast<double>(p.v * p.m * p.e * 16));
    array.run_oc(p.v * p.m, d, p.e);
    plan.oc_ready.push({in.pass, half});
  }
  plan.act_slots.release();
  plan.cb_slots.release();
}

void EvaAccelerator::epilogue(EvaPlan& plan) {
  const GemmDescriptor& op = plan.op;
  const std::uint64_t tc = EvaTiler::tile_cols;
  const VqFormat& f = m_config.vq;
  const std::uint64_t banks = static_cast<std::uint64_t>(m_config.oc.banks);
  const std::uint64_t half_bytes = oc.size() / 2;
  int ybuf = 1;
  std::vector<std::uint64_t> lanes;
  std::vector<float> sums;
  for (std::uint64_t n = 0; n < plan.tiler.size(); ++n) {
    const auto [pass, half] = plan.oc_ready.pop();
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
      std::uint64_t cycles = 0;
      if (op.functional) {
        const std::uint8_t* base = oc.data() + static_cast<std::uint64_t>(half) * half_bytes;
        for (std::uint64_t j = 0; j < c.cols; ++j) {
          lanes.clear();
          sums.assign(p.m, 0.0f);
          for (std::uint64_t vv = 0; vv < p.v; ++vv) {
            const std::uint64_t ti = j / tc, width = std::min(tc, c.cols - ti * tc);
            const std::uint32_t index =
                unpack_index(plan.idx_buf[c.slot].data() + ti * p.v * plan.tiler.column_bytes(tc) +
                                 vv * plan.tiler.column_bytes(width),
                             j % tc, f.index_bits);
            if (index < p.e0 || index >= p.e0 + p.e) continue;  // another entry tile's
            for (std::uint64_t mm = 0; mm < p.m; ++mm) {
              const std::uint64_t r = vv * p.m + mm;
              const std::uint64_t addr =
                  static_cast<std::uint64_t>(half) * half_bytes + 2 * ((index - p.e0) * banks + r);
              lanes.push_back(addr);
              half_bits h;
              std::memcpy(&h, base + (addr - static_cast<std::uint64_t>(half) * half_bytes), 2);
              sums[mm] += half_to_float(h);
            }
          }
          cycles += std::max<std::uint64_t>(1, oc.lanes(lanes, false));
          for (std::uint64_t mm = 0; mm < p.m; ++mm) plan.y[ybuf][mm * op.n + p.n0 + c.j0 + j] += sums[mm];
          m_stats.inc(m_lookups_done, static_cast<double>(lanes.size()));
          m_traffic.read(BufferTraffic::oc, static_cast<double>(lanes.size() * 16));
        }
      } else {
        cycles = c.cols * column_cycles(rows);
        m_stats.inc(m_lookups_done, static_cast<double>(c.cols * rows));
        m_traffic.read(BufferTraffic::oc, static_cast<double>(c.cols * rows * 16));
      }
      m_traffic.read(BufferTraffic::weight, static_cast<double>(c.bytes * 8));
      m_stats.inc(m_columns, static_cast<double>(c.cols));
      m_stats.inc(m_busy, static_cast<double>(cycles));
      if (Timeline* t = Timeline::of(*this))
        t->span("epilogue", fmt::format("{} columns", c.cols), sc_core::sc_time_stamp(),
                sc_core::sc_time_stamp() + m_clock.cycles(cycles));
      wait(m_clock.cycles(cycles));
      plan.idx_free.push_back(c.slot);
      plan.idx_slots.release();
      done += c.cols;
    }
    // The columns' FP32 accumulators: read and written by every pass after
    // the first of the row tile.
    const double acc_bits = static_cast<double>(p.m * p.n * 32);
    if (!p.first_of_rows) m_traffic.read(BufferTraffic::output, acc_bits);
    m_traffic.write(BufferTraffic::output, acc_bits);
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
    m_traffic.read(BufferTraffic::output, static_cast<double>(p.m * op.n * 32));
    dma.write(op.out_addr + p.m0 * op.n * 2, p.m * op.n * 2,
              op.functional ? reinterpret_cast<const std::uint8_t*>(out.data()) : nullptr);
    plan.y_slots.release();
  }
}

}  // namespace eva
