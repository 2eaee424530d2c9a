#include "systolic/ws_gemm.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/sync.hpp"

namespace eva {

// The state of one GEMM in flight, shared by its fetch, compute and store
// threads.
struct GemmPlan {
  GemmPlan(const GemmDescriptor& d, const WsTiler& t, std::uint64_t weight_slots, std::uint64_t output_slots,
           bool whole_input)
      : op(d),
        tiler(t),
        whole_block_input(whole_input),
        weight_slots(weight_slots),
        input_block(1),
        output_slots(output_slots) {}
  const GemmDescriptor& op;
  const WsTiler& tiler;
  WeightSource* weights = nullptr;
  // Whole input-row blocks fit in the input buffer: read each block once.
  // Otherwise each tile's input slice travels with its weights.
  bool whole_block_input;
  Slots weight_slots;  // weight (and input-slice) buffer slots
  Slots input_block;   // the input buffer, when it holds whole blocks
  Slots output_slots;  // the output buffer (accumulators)
  struct Fetched {
    std::uint64_t tile;
    Dma::Transfer input, weights;
  };
  EventQueue<Fetched> ready;                                    // tiles whose fetch has started
  EventQueue<std::pair<std::uint64_t, sc_core::sc_time>> done;  // finished output tiles
};

namespace {

struct Sizing {
  std::uint64_t m_tile, weight_slots, output_slots;
  bool whole_block_input;
};

Sizing size_buffers(const WsGemmConfig& c, const GemmDescriptor& op, const WeightSource& weights) {
  const auto rows = static_cast<std::uint64_t>(c.systolic.rows), cols = static_cast<std::uint64_t>(c.systolic.cols);
  const std::uint64_t out_buf = static_cast<std::uint64_t>(c.buffers.output_kib) * 1024;
  const std::uint64_t in_buf = static_cast<std::uint64_t>(c.buffers.input_kib) * 1024;
  const std::uint64_t w_buf = static_cast<std::uint64_t>(c.buffers.weight_kib) * 1024;
  Sizing s{};
  // A block's accumulators (rows x C) must fit the output buffer. The
  // overlapped array double-buffers its accumulators as well as its weights
  // (the next output tile fills while the last one drains), so its blocks are
  // sized for two; paper and scalesim keep tiling.m_tile as the artifact does.
  const std::uint64_t acc_row = packed_bytes(cols, c.formats.acc_bits);
  const std::uint64_t acc_copies = c.systolic.weight_load == WeightLoad::overlapped ? 2 : 1;
  s.m_tile = std::min<std::uint64_t>(static_cast<std::uint64_t>(c.tiling.m_tile), out_buf / (acc_copies * acc_row));
  if (s.m_tile == 0)
    throw InputError(
        fmt::format("buffers.output_kib: {} KiB cannot hold one row of {} accumulators", c.buffers.output_kib, cols));
  const std::uint64_t m_block = std::min(op.m, s.m_tile);
  s.output_slots = out_buf / (m_block * acc_row);  // >= 1 by the choice of m_tile
  s.whole_block_input = packed_bytes(m_block * op.k, c.formats.act_bits) <= in_buf;
  const std::uint64_t w_tile = std::max<std::uint64_t>(1, weights.tile_buffer_bytes(rows, cols));
  std::uint64_t slots = w_buf / w_tile;
  if (!s.whole_block_input) slots = std::min(slots, in_buf / packed_bytes(m_block * rows, c.formats.act_bits));
  if (slots < 2)
    throw InputError(
        fmt::format("buffers: weight ({} KiB) and input ({} KiB) buffers cannot double-buffer a "
                    "{}x{} weight tile with {} input rows",
                    c.buffers.weight_kib, c.buffers.input_kib, rows, cols, m_block));
  s.weight_slots = slots;
  return s;
}

}  // namespace

void WsGemm::check(const GemmDescriptor& op, const WeightSource& weights) const { size_buffers(m_config, op, weights); }

std::uint64_t WsGemm::run(const GemmDescriptor& op, WeightSource& weights) {
  const Sizing s = size_buffers(m_config, op, weights);
  const auto rows = static_cast<std::uint64_t>(m_config.systolic.rows);
  const auto cols = static_cast<std::uint64_t>(m_config.systolic.cols);
  const WsTiler tiler(op.m, op.k, op.n, rows, cols, s.m_tile);
  GemmPlan plan(op, tiler, s.weight_slots, s.output_slots, s.whole_block_input);
  plan.weights = &weights;

  sc_core::sc_process_handle workers[] = {
      sc_core::sc_spawn([this, &plan] { fetch(plan); }, sc_core::sc_gen_unique_name("fetch")),
      sc_core::sc_spawn([this, &plan] { compute(plan); }, sc_core::sc_gen_unique_name("compute")),
      sc_core::sc_spawn([this, &plan] { store(plan); }, sc_core::sc_gen_unique_name("store")),
  };
  for (auto& w : workers)
    if (!w.terminated()) sc_core::wait(w.terminated_event());
  return m_array.timing().gemm_cycles_blocks(tiler.timing_blocks());
}

void WsGemm::fetch(GemmPlan& plan) {
  const FormatConfig& f = m_config.formats;
  const GemmDescriptor& op = plan.op;
  Dma::Transfer input;  // the block's input rows, or the tile's input slice
  for (std::uint64_t i = 0; i < plan.tiler.size(); ++i) {
    const WsTile t = plan.tiler.at(i);
    plan.weight_slots.acquire();
    if (plan.whole_block_input) {
      if (t.first_in_block) {
        plan.input_block.acquire();
        const std::uint64_t row = packed_bytes(op.k, f.act_bits);
        input = m_dma.start_read(op.act_addr + packed_bytes(t.m0 * op.k, f.act_bits), row, t.m, row, nullptr);
      }
    } else {
      input = m_dma.start_read(op.act_addr + packed_bytes(t.m0 * op.k + t.k0, f.act_bits),
                               packed_bytes(t.k, f.act_bits), t.m, packed_bytes(op.k, f.act_bits), nullptr);
    }
    plan.ready.push({i, input, plan.weights->fetch(m_dma, op, t)});
  }
}

void WsGemm::compute(GemmPlan& plan) {
  for (std::uint64_t done = 0; done < plan.tiler.size(); ++done) {
    const GemmPlan::Fetched f = plan.ready.pop();
    Dma::wait_for(f.input);
    Dma::wait_for(f.weights);
    const std::uint64_t i = f.tile;
    const WsTile t = plan.tiler.at(i);
    if (t.first_k) plan.output_slots.acquire();
    const sc_core::sc_time outputs_at = m_array.run_tile(t.m);
    plan.weight_slots.release();
    if (plan.whole_block_input && t.last_in_block) plan.input_block.release();
    if (t.last_k) plan.done.push({i, outputs_at});
  }
}

void WsGemm::store(GemmPlan& plan) {
  const FormatConfig& f = m_config.formats;
  const GemmDescriptor& op = plan.op;
  const std::uint64_t stores = plan.tiler.blocks() * plan.tiler.n_tiles();
  for (std::uint64_t s = 0; s < stores; ++s) {
    const auto [i, outputs_at] = plan.done.pop();
    if (outputs_at > sc_core::sc_time_stamp()) sc_core::wait(outputs_at - sc_core::sc_time_stamp());
    const WsTile t = plan.tiler.at(i);
    m_dma.write_2d(op.out_addr + packed_bytes(t.m0 * op.n + t.n0, f.out_bits), packed_bytes(t.n, f.out_bits), t.m,
                   packed_bytes(op.n, f.out_bits), nullptr);
    plan.output_slots.release();
  }
}

}  // namespace eva
