#include "systolic/ws_gemm.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/sync.hpp"

namespace eva {

// The state of one GEMM in flight, shared by its fetch, compute and store
// threads. Functional runs also hold the bytes of each buffer slot; the free
// slot indices travel with the counting semaphores that guard them.
struct GemmPlan {
  GemmPlan(const GemmDescriptor& d, const WsTiler& t, std::uint64_t weight_slots, std::uint64_t output_slots,
           bool whole_input, std::uint64_t slice)
      : op(d),
        tiler(t),
        whole_block_input(whole_input),
        slice_tiles(slice),
        weight_slots(weight_slots),
        input_block(whole_input ? 1 : 2),
        output_slots(output_slots) {
    for (std::uint64_t i = weight_slots; i-- > 0;) free_weight.push_back(i);
    for (std::uint64_t i = output_slots; i-- > 0;) free_output.push_back(i);
  }
  const GemmDescriptor& op;
  const WsTiler& tiler;
  WeightSource* weights = nullptr;
  WsDatapath* datapath = nullptr;  // functional runs
  PeStorage* storage = nullptr;
  // Whole input-row blocks fit in the input buffer: read each block once.
  // Otherwise slices of `slice_tiles` reduction tiles, double-buffered.
  bool whole_block_input;
  std::uint64_t slice_tiles;
  Slots weight_slots;  // weight buffer slots
  Slots input_block;   // the input buffer: one whole block, or two slices
  Slots output_slots;  // the output buffer (accumulators)
  std::vector<std::uint64_t> free_weight, free_output;
  struct Fetched {
    std::uint64_t tile, slot;
    Dma::Transfer input, weights;
    int input_slot;             // slices: which half of the input buffer
    std::uint64_t k0, k_width;  // the input held there: reduction columns [k0, k0 + k_width)
  };
  struct Done {
    std::uint64_t tile, slot;
    sc_core::sc_time at;
  };
  EventQueue<Fetched> ready;  // tiles whose fetch has started
  EventQueue<Done> done;      // finished output tiles
  // Buffer slots: weight tiles, the input (a whole block at input_at[0], or
  // two slices), the output tiles' partial sums. Functional runs keep the
  // accumulators (doubles, exact) per output slot.
  std::uint64_t weight_slot_bytes = 0, output_slot_bytes = 0, input_at[2] = {};
  std::uint64_t weight_buffer_bytes = 0, input_buffer_bytes = 0, output_buffer_bytes = 0;
  std::vector<std::vector<double>> acc;
  std::vector<std::uint8_t> parameters;
  Dma::Transfer parameter_transfer;
};

namespace {

struct Sizing {
  std::uint64_t m_tile, weight_slots, output_slots;
  bool whole_block_input;
  std::uint64_t slice_tiles = 0;  // reduction tiles per input slice (not whole-block input)
  std::uint64_t group = 1;        // column tiles sharing each input slice
};

Sizing size_buffers(const WsGemmConfig& c, const GemmDescriptor& op, const WeightSource& weights) {
  const std::uint64_t rows = c.tile_k ? c.tile_k : static_cast<std::uint64_t>(c.systolic.rows);
  const std::uint64_t cols = c.tile_n ? c.tile_n : static_cast<std::uint64_t>(c.systolic.cols);
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
  std::uint64_t m_block = std::min(op.m, s.m_tile);
  s.whole_block_input = packed_bytes(m_block * op.k, c.formats.act_bits) <= in_buf;
  if (!s.whole_block_input) {
    // A block's input rows do not fit the input buffer. Two schedules: blocks
    // shrink to the rows that fit, and the weights are read once per block;
    // or the input comes in slices, re-read for every column tile. The
    // control takes the one it estimates faster (array cycles against bytes
    // at the DRAM's peak), or the one moving fewer bytes when it cannot tell.
    const std::uint64_t fit = in_buf / packed_bytes(op.k, c.formats.act_bits);
    if (fit > 0) {
      const WsTiming timing(c.systolic, weights.array_tile_bytes(rows, cols));
      const std::uint64_t tiles = ceil_div(op.k, rows) * ceil_div(op.n, cols);
      const double weight_bytes = static_cast<double>(tiles * weights.tile_buffer_bytes(rows, cols));
      const double act_bytes = static_cast<double>(packed_bytes(op.m * op.k, c.formats.act_bits));
      const auto estimate = [&](std::uint64_t m_tile, double bytes) {
        if (c.tiling.dram_bytes_per_cycle <= 0) return bytes;
        const WsTiler t(op.m, op.k, op.n, rows, cols, m_tile, c.passes);
        return std::max(static_cast<double>(timing.gemm_cycles_blocks(t.timing_blocks())),
                        bytes / c.tiling.dram_bytes_per_cycle);
      };
      const double shrink = estimate(fit, static_cast<double>(ceil_div(op.m, fit)) * weight_bytes + act_bytes);
      // Slices are re-read once per group of column tiles (below).
      const std::uint64_t group = std::max<std::uint64_t>(1, out_buf / (m_block * acc_row) / 2);
      const double slices =
          estimate(s.m_tile, static_cast<double>(ceil_div(op.m, s.m_tile)) * weight_bytes +
                                 static_cast<double>(ceil_div(ceil_div(op.n, cols), group)) * act_bytes);
      if (shrink < slices) {
        s.m_tile = fit;
        m_block = std::min(op.m, fit);
        s.whole_block_input = true;
      }
    }
  }
  if (!s.whole_block_input) {
    // Slices of as many reduction tiles as half the input buffer holds (the
    // other half takes the next slice).
    s.slice_tiles = in_buf / 2 / packed_bytes(m_block * rows, c.formats.act_bits);
    if (s.slice_tiles == 0)
      throw InputError(
          fmt::format("buffers.input_kib: {} KiB cannot double-buffer the input of one {}-row "
                      "reduction tile for {} input rows",
                      c.buffers.input_kib, rows, m_block));
  }
  s.output_slots = out_buf / (m_block * acc_row);  // >= 1 by the choice of m_tile
  // Slices serve a group of column tiles whose accumulators stay in half the
  // output buffer (the other half drains the previous group).
  if (!s.whole_block_input) s.group = std::max<std::uint64_t>(1, s.output_slots / 2);
  const std::uint64_t w_tile = std::max<std::uint64_t>(1, weights.tile_buffer_bytes(rows, cols));
  const std::uint64_t slots = w_buf / w_tile;
  if (slots < 2)
    throw InputError(fmt::format("buffers.weight_kib: {} KiB cannot double-buffer a {}x{} weight tile",
                                 c.buffers.weight_kib, rows, cols));
  s.weight_slots = slots;
  return s;
}

}  // namespace

void WsGemm::check(const GemmDescriptor& op, const WeightSource& weights) const { size_buffers(m_config, op, weights); }

WsGemm::Schedule WsGemm::schedule(const GemmDescriptor& op, const WeightSource& weights) const {
  const Sizing s = size_buffers(m_config, op, weights);
  const WsTiler t = tiler(op, s.m_tile, s.group);
  Schedule out;
  out.cycles =
      WsTiming(m_config.systolic, weights.array_tile_bytes(t.rows(), t.cols())).gemm_cycles_blocks(t.timing_blocks());
  out.weight_reads = ceil_div(op.m, s.m_tile);
  if (!s.whole_block_input) out.input_reads = ceil_div(ceil_div(op.n, t.cols()), s.group);
  return out;
}

WsTiler WsGemm::tiler(const GemmDescriptor& op, std::uint64_t m_tile, std::uint64_t group) const {
  const std::uint64_t rows = m_config.tile_k ? m_config.tile_k : static_cast<std::uint64_t>(m_config.systolic.rows);
  const std::uint64_t cols = m_config.tile_n ? m_config.tile_n : static_cast<std::uint64_t>(m_config.systolic.cols);
  return WsTiler(op.m, op.k, op.n, rows, cols, m_tile, m_config.passes, group);
}

std::uint64_t WsGemm::run(const GemmDescriptor& op, WeightSource& weights, WsDatapath* datapath, PeStorage* storage) {
  if (op.functional && datapath == nullptr) throw std::logic_error("WsGemm: functional run without a datapath");
  const Sizing s = size_buffers(m_config, op, weights);
  const WsTiler tiler = this->tiler(op, s.m_tile, s.group);
  m_array.set_mode(m_config.systolic, weights.array_tile_bytes(tiler.rows(), tiler.cols()));
  GemmPlan plan(op, tiler, s.weight_slots, s.output_slots, s.whole_block_input, s.slice_tiles);
  plan.weights = &weights;
  plan.datapath = datapath;
  plan.storage = storage;
  const std::uint64_t in_buf = static_cast<std::uint64_t>(m_config.buffers.input_kib) * 1024;
  plan.weight_slot_bytes = static_cast<std::uint64_t>(m_config.buffers.weight_kib) * 1024 / s.weight_slots;
  plan.output_slot_bytes = static_cast<std::uint64_t>(m_config.buffers.output_kib) * 1024 / s.output_slots;
  plan.weight_buffer_bytes = static_cast<std::uint64_t>(m_config.buffers.weight_kib) * 1024;
  plan.input_buffer_bytes = in_buf;
  plan.output_buffer_bytes = static_cast<std::uint64_t>(m_config.buffers.output_kib) * 1024;
  plan.input_at[0] = m_buffers.input;
  plan.input_at[1] = m_buffers.input + in_buf / 2;
  if (op.functional) plan.acc.resize(s.output_slots);
  // The datapath's parameters (scales) come first; the first tile waits for them.
  if (datapath != nullptr && datapath->parameter_bytes(op) > 0) {
    plan.parameters.assign(datapath->parameter_bytes(op), 0);
    plan.parameter_transfer = m_dma.start_read(op.codebook_addr, plan.parameters.size(), 1, plan.parameters.size(),
                                               op.functional ? plan.parameters.data() : nullptr);
  }

  WorkerPool::Group stages;
  m_workers.start(
      stages, [this, &plan] { fetch(plan); }, "fetch");
  m_workers.start(
      stages, [this, &plan] { compute(plan); }, "compute");
  m_workers.start(
      stages, [this, &plan] { store(plan); }, "store");
  stages.wait();
  if (storage != nullptr) storage->finish();
  return m_array.timing().gemm_cycles_blocks(tiler.timing_blocks());
}

void WsGemm::fetch(GemmPlan& plan) {
  const FormatConfig& f = m_config.formats;
  const GemmDescriptor& op = plan.op;
  const std::uint64_t rows = m_config.tile_k ? m_config.tile_k : static_cast<std::uint64_t>(m_config.systolic.rows);
  Dma::Transfer input;  // the block's input rows, or the current slice
  int input_slot = 1;
  std::uint64_t k0 = 0, k_width = op.k;
  for (std::uint64_t i = 0; i < plan.tiler.size(); ++i) {
    const WsTile t = plan.tiler.at(i);
    plan.weight_slots.acquire();
    const std::uint64_t slot = plan.free_weight.back();
    plan.free_weight.pop_back();
    if (plan.whole_block_input) {
      if (t.first_in_block) {
        plan.input_block.acquire();
        const std::uint64_t row = packed_bytes(op.k, f.act_bits);
        input = m_dma.start_load(op.act_addr + packed_bytes(t.m0 * op.k, f.act_bits), row, t.m, row, plan.input_at[0],
                                 !op.functional);
      }
    } else if (t.group_first && t.k0 % (plan.slice_tiles * rows) == 0) {  // a new slice
      plan.input_block.acquire();
      input_slot ^= 1;
      k0 = t.k0;
      k_width = std::min(plan.slice_tiles * rows, op.k - k0);
      const std::uint64_t row = packed_bytes(k_width, f.act_bits);
      input = m_dma.start_load(op.act_addr + packed_bytes(t.m0 * op.k + k0, f.act_bits), row, t.m,
                               packed_bytes(op.k, f.act_bits), plan.input_at[input_slot], !op.functional);
    }
    const BufferSlot wslot{m_buffers.weight + slot * plan.weight_slot_bytes, plan.weight_slot_bytes, op.functional};
    plan.ready.push({i, slot, input, plan.weights->fetch(m_dma, op, t, wslot), input_slot, k0, k_width});
  }
}

void WsGemm::compute(GemmPlan& plan) {
  const FormatConfig& f = m_config.formats;
  const GemmDescriptor& op = plan.op;
  // Output tiles in progress, by column tile: their output slot.
  std::vector<std::uint64_t> open(plan.tiler.n_tiles());
  // The array's buffer traffic, counted tile by tile and presented to the
  // buffers as each output tile completes (the bytes are exact; timing mode
  // moves no data, so the grouping changes nothing else).
  struct Traffic {
    std::uint64_t weight = 0, input = 0, partial = 0, partial_written = 0;
    void flush(BufferPort& port, const WsBuffers& b, const GemmPlan& plan) {
      port.stream(tlm::TLM_READ_COMMAND, b.weight, plan.weight_buffer_bytes, weight);
      port.stream(tlm::TLM_READ_COMMAND, b.input, plan.input_buffer_bytes, input);
      port.stream(tlm::TLM_READ_COMMAND, b.output, plan.output_buffer_bytes, partial);
      port.stream(tlm::TLM_WRITE_COMMAND, b.output, plan.output_buffer_bytes, partial_written);
      *this = Traffic{};
    }
  } reads;
  Dma::wait_for(plan.parameter_transfer);
  if (op.functional) plan.datapath->set_parameters(op, plan.parameters);
  for (std::uint64_t done = 0; done < plan.tiler.size(); ++done) {
    const GemmPlan::Fetched in = plan.ready.pop();
    Dma::wait_for(in.input);
    Dma::wait_for(in.weights);
    const WsTile t = plan.tiler.at(in.tile);
    std::uint64_t& out_slot = open[t.n0 / plan.tiler.cols()];
    if (t.first_k) {
      plan.output_slots.acquire();
      out_slot = plan.free_output.back();
      plan.free_output.pop_back();
      if (op.functional) plan.acc[out_slot].assign(t.m * t.n, 0.0);
    }
    // Each tile reads its weights and input rows from the buffers and reads
    // and writes its partial sums (the first reduction tile only writes).
    const std::uint64_t weight_at = m_buffers.weight + in.slot * plan.weight_slot_bytes;
    const std::uint64_t input_at = plan.input_at[plan.whole_block_input ? 0 : in.input_slot];
    const std::uint64_t input_first = plan.whole_block_input ? t.k0 : t.k0 - in.k0;
    const std::uint64_t input_row = plan.whole_block_input ? op.k : in.k_width;
    const std::uint64_t partial_bytes = packed_bytes(t.m * t.n, f.acc_bits);
    BufferPort& port = m_array.buffer_port;
    reads.weight += plan.weights->tile_bytes(t);
    reads.input += packed_bytes(t.m * t.k, f.act_bits);
    if (!t.first_k) reads.partial += partial_bytes;
    reads.partial_written += partial_bytes;
    if (plan.storage != nullptr) plan.storage->tile(t);
    if (op.functional) {
      const std::uint64_t input_bytes = t.m * packed_bytes(input_row, f.act_bits);
      plan.datapath->tile(t, port.direct(input_at, input_bytes), input_first, input_row,
                          port.direct(weight_at, plan.weights->tile_bytes(t)), plan.acc[out_slot].data());
    }
    const sc_core::sc_time outputs_at = m_array.run_tile(t.m, t.m * t.k * t.n);
    plan.free_weight.push_back(in.slot);
    plan.weight_slots.release();
    if (plan.whole_block_input ? t.last_in_block : t.group_last && t.k0 + t.k == in.k0 + in.k_width)
      plan.input_block.release();
    if (t.last_k) {
      reads.flush(port, m_buffers, plan);
      plan.done.push({in.tile, out_slot, outputs_at});
    }
  }
  // Every weight tile and input is in the array: the buffers are free for
  // the next descriptor's loads while the last outputs drain.
  m_dma.operands_consumed();
  reads.flush(m_array.buffer_port, m_buffers, plan);
}

void WsGemm::store(GemmPlan& plan) {
  const FormatConfig& f = m_config.formats;
  const GemmDescriptor& op = plan.op;
  const std::uint64_t stores = plan.tiler.blocks() * plan.tiler.n_tiles();
  std::vector<std::uint8_t> out;
  for (std::uint64_t s = 0; s < stores; ++s) {
    const GemmPlan::Done d = plan.done.pop();
    if (d.at > sc_core::sc_time_stamp()) sc_core::wait(d.at - sc_core::sc_time_stamp());
    const WsTile t = plan.tiler.at(d.tile);
    const std::uint64_t row = packed_bytes(t.n, f.out_bits);
    if (op.functional) {
      out.assign(row * t.m, 0);
      plan.datapath->finish(t, plan.acc[d.slot].data(), out.data());
    }
    m_array.buffer_port.touch(tlm::TLM_READ_COMMAND, m_buffers.output + d.slot * plan.output_slot_bytes,
                              packed_bytes(t.m * t.n, f.acc_bits));
    m_dma.write_2d(op.out_addr + packed_bytes(t.m0 * op.n + t.n0, f.out_bits), row, t.m, packed_bytes(op.n, f.out_bits),
                   op.functional ? out.data() : nullptr);
    plan.free_output.push_back(d.slot);
    plan.output_slots.release();
  }
}

}  // namespace eva
