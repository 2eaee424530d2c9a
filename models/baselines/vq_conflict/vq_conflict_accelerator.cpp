#include "baselines/vq_conflict/vq_conflict_accelerator.hpp"
#include "vector/vector_op.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/fp16.hpp"
#include "common/sync.hpp"
#include "common/timeline.hpp"

namespace eva {

namespace {

std::uint64_t words_per_entry(const VqConflictConfig& c) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(c.vq.vector_dim) * 2;
  const auto w = static_cast<std::uint64_t>(c.lookup.bank_width_bytes);
  return (bytes + w - 1) / w;
}

// Words of one copy of all codebooks, rounded up to whole bank rows so that
// copies keep their bank alignment.
std::uint64_t copy_words(const VqConflictConfig& c) {
  const auto banks = static_cast<std::uint64_t>(c.lookup.banks);
  const std::uint64_t words =
      static_cast<std::uint64_t>(c.vq.codebooks) * (1ull << c.vq.index_bits) * words_per_entry(c);
  return (words + banks - 1) / banks * banks;
}

}  // namespace

SramConfig VqConflictAccelerator::codebook_sram(const VqConflictConfig& c) {
  SramConfig s;
  s.banks = c.lookup.banks * c.lookup.replicas;  // each copy in its own banks
  s.bank_width_bytes = c.lookup.bank_width_bytes;
  // Sized to hold every codebook in every copy (4 KB per 2^8 x 8 FP16 codebook).
  const std::uint64_t bytes = copy_words(c) * static_cast<std::uint64_t>(c.lookup.bank_width_bytes) *
                              static_cast<std::uint64_t>(c.lookup.replicas);
  s.size_kib = static_cast<int>((bytes + 1023) / 1024);
  return s;
}

VqConflictAccelerator::VqConflictAccelerator(const sc_core::sc_module_name& name, const VqConflictConfig& config)
    : Accelerator(name),
      lookup_socket("lookup_socket"),
      dma("dma", config.dma),
      // Its bits are priced with the other buffers' (BufferTraffic counts every
      // lookup, sampled ones included).
      codebook("codebook", codebook_sram(config), config.clock_mhz, false),
      vector("vector", config.vector, config.clock_mhz,
             UnitPower(config.energy.vector_w, config.energy, config.area.vector_mm2)),
      input_buffer("input_buffer", buffer_sram(config.buffers.input_kib, config.energy.input), config.clock_mhz),
      output_buffer("output_buffer", buffer_sram(config.buffers.output_kib, config.energy.output), config.clock_mhz),
      bus("bus"),
      m_config(config),
      m_clock(config.clock_mhz),
      m_words_per_entry(words_per_entry(config)),
      m_lookups(m_stats.add("lookups", "lookups", "centroids looked up")),
      m_cycles(m_stats.add("cycles", "cycles", "cycles of lookups, conflicts included")),
      m_buffers(m_traffic, config.energy, config.area.buffer_mm2),
      m_lanes("array", UnitPower(config.energy.array_w, config.energy, config.area.array_mm2), m_stats, m_cycles,
              m_clock.cycles(1).to_seconds()) {
  lookup_socket.bind(codebook.lookup_socket);
  bus.attach(input_buffer.target_socket, 0, input_buffer.size());
  bus.attach(output_buffer.target_socket, input_buffer.size(), output_buffer.size());
  dma.sram_socket.bind(bus.target_socket);
  vector.buffer_port.bind(bus.target_socket);
  m_lane_access.lane_bytes = static_cast<std::uint64_t>(config.lookup.bank_width_bytes);
  add_priced_part(m_buffers);
  add_priced_part(m_lanes);
}

std::vector<const StatGroup*> VqConflictAccelerator::stat_groups() {
  std::vector<const StatGroup*> g = {&dma.stats(), &m_stats};
  for (Sram* b : {&codebook, &input_buffer, &output_buffer}) {
    b->flush_stats();
    g.push_back(&b->stats());
  }
  for (const StatGroup* s : {&vector.stats(), &m_traffic.stats()}) g.push_back(s);
  return g;
}

std::uint64_t VqConflictAccelerator::word_address(std::uint64_t group, int c, std::uint64_t e, std::uint64_t word,
                                                  std::uint64_t lane) const {
  const auto banks = static_cast<std::uint64_t>(m_config.lookup.banks);
  const auto copies = static_cast<std::uint64_t>(m_config.lookup.replicas);
  const std::uint64_t copy = lane % copies;
  // Copy r sits in its own group of banks (BASELINES.md section 4.3): word w
  // of the codebooks goes to bank r x banks + w mod banks, row w / banks.
  const std::uint64_t entry =
      (group * static_cast<std::uint64_t>(m_config.vq.codebooks) + static_cast<std::uint64_t>(c)) *
          (1ull << m_config.vq.index_bits) +
      e;
  const std::uint64_t w = entry * m_words_per_entry + word;
  const std::uint64_t id = (w / banks) * banks * copies + copy * banks + w % banks;
  return id * static_cast<std::uint64_t>(m_config.lookup.bank_width_bytes);
}

OperandBytes VqConflictAccelerator::operand_bytes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const {
  const VqFormat& f = m_config.vq;
  OperandBytes b;
  b.activations = m * k * 2;
  // Per codebook, row v of the K/d x N indices, each row padded to a byte.
  b.weights = static_cast<std::uint64_t>(f.codebooks) * (k / static_cast<std::uint64_t>(f.vector_dim)) *
              packed_index_bytes(n, f.index_bits);
  b.codebooks =
      static_cast<std::uint64_t>(f.codebooks) * (1ull << f.index_bits) * static_cast<std::uint64_t>(f.vector_dim) * 2;
  b.outputs = m * n * 2;
  return b;
}

void VqConflictAccelerator::check(const GemmDescriptor& op) const {
  if (op.operand == GemmOperand::kv_cache) {
    if (op.functional) throw InputError("vq-conflict: attention is modelled in timing mode only");
    return;
  }
  const VqFormat& f = m_config.vq;
  if (op.k % static_cast<std::uint64_t>(f.vector_dim) != 0)
    throw InputError(
        fmt::format("K = {} is not a multiple of the VQ vector size d = {} (vq.vector_dim)", op.k, f.vector_dim));
}

std::uint64_t VqConflictAccelerator::execute_vector(const VectorDescriptor& op) {
  return run_vector_op(dma, vector, VectorBuffers{0, input_buffer.size(), input_buffer.size(), output_buffer.size()},
                       op);
}

// Attention: x (FP16) and the K x N cache slice come on chip, then the
// multiply-add datapath takes lanes x d MACs per cycle, then y goes out.
std::uint64_t VqConflictAccelerator::attention(const GemmDescriptor& op) {
  const std::uint64_t x_bytes = op.m * op.k * 2, kv_bytes = packed_bytes(op.k * op.n, m_config.formats.kv_bits);
  const Dma::Transfer x = dma.start_read(op.act_addr, x_bytes, 1, x_bytes, nullptr);
  dma.read(op.weight_addr, kv_bytes, nullptr);
  Dma::wait_for(x);
  const std::uint64_t per_cycle =
      static_cast<std::uint64_t>(m_config.lookup.lanes) * static_cast<std::uint64_t>(m_config.vq.vector_dim);
  const std::uint64_t cycles = (op.m * op.k * op.n + per_cycle - 1) / per_cycle;
  m_traffic.write(BufferTraffic::input, static_cast<double>((x_bytes + kv_bytes) * 8));
  m_traffic.read(BufferTraffic::input, static_cast<double>((x_bytes + kv_bytes) * 8));
  m_stats.inc(m_cycles, static_cast<double>(cycles));
  if (Timeline* t = Timeline::of(*this))
    t->span("lookup", "attention", sc_core::sc_time_stamp(), sc_core::sc_time_stamp() + m_clock.cycles(cycles));
  wait(m_clock.cycles(cycles));
  dma.write(op.out_addr, op.m * op.n * 2, nullptr);
  return cycles;
}

std::vector<std::uint8_t> VqConflictAccelerator::vq_index_image(const VqMatrix& w, std::uint64_t) const {
  const std::uint64_t row = packed_index_bytes(w.n, w.index_bits);
  std::vector<std::uint8_t> image(static_cast<std::uint64_t>(w.codebooks) * w.subvectors() * row, 0);
  for (int c = 0; c < w.codebooks; ++c)
    for (std::uint64_t v = 0; v < w.subvectors(); ++v)
      for (std::uint64_t j = 0; j < w.n; ++j)
        pack_index(image.data() + (static_cast<std::uint64_t>(c) * w.subvectors() + v) * row, j, w.index_bits,
                   w.at(c, v, j));
  return image;
}

std::uint64_t VqConflictAccelerator::execute(const GemmDescriptor& op) {
  if (op.operand == GemmOperand::kv_cache) return attention(op);
  const VqFormat& f = m_config.vq;
  const auto d = static_cast<std::uint64_t>(f.vector_dim);
  const std::uint64_t entries = 1ull << f.index_bits, v_count = op.k / d;
  const auto lanes = static_cast<std::uint64_t>(m_config.lookup.lanes);
  const auto C = static_cast<std::uint64_t>(f.codebooks);
  const std::uint64_t row_stride = packed_index_bytes(op.n, f.index_bits), per_c = v_count * row_stride;
  // Codebooks (every group's) and activations first: they stay on chip. The
  // codebook SRAM model times the lookups from their addresses; the values
  // come from the same codebook data.
  const std::uint64_t gn = f.group_n ? (op.n + f.group_n - 1) / static_cast<std::uint64_t>(f.group_n) : 1;
  const std::uint64_t groups = (f.group_k ? (op.k + f.group_k - 1) / static_cast<std::uint64_t>(f.group_k) : 1) * gn;
  const auto group_of = [&](std::uint64_t v, std::uint64_t j) {
    return (f.group_k ? v * d / static_cast<std::uint64_t>(f.group_k) : 0) * gn +
           (f.group_n ? j / static_cast<std::uint64_t>(f.group_n) : 0);
  };
  const double lookups_before = m_stats.get(m_lookups);
  std::vector<half_bits> x(op.functional ? op.m * op.k : 0), cbs(op.functional ? groups * C * entries * d : 0);
  const Dma::Transfer tx = dma.start_read(op.act_addr, op.m * op.k * 2, 1, op.m * op.k * 2,
                                          op.functional ? reinterpret_cast<std::uint8_t*>(x.data()) : nullptr);
  dma.read(op.codebook_addr, groups * C * entries * d * 2,
           op.functional ? reinterpret_cast<std::uint8_t*>(cbs.data()) : nullptr);
  Dma::wait_for(tx);

  // Index chunks of whole bytes: columns in multiples of 8, as many as fit
  // half the index buffer.
  const std::uint64_t index_buffer = static_cast<std::uint64_t>(m_config.buffers.weight_kib) * 1024;
  std::uint64_t chunk = std::max<std::uint64_t>(
      8, index_buffer / 2 * 8 / (C * v_count * static_cast<std::uint64_t>(f.index_bits)) / 8 * 8);
  chunk = std::min(chunk, (op.n + 7) / 8 * 8);
  struct Fetched {
    std::uint64_t j0, cols, bytes;
    Dma::Transfer t;
    int slot;
  };
  EventQueue<Fetched> fetched;
  Slots slots(2);
  std::vector<std::uint8_t> buf[2];
  std::vector<float> y(op.functional ? op.m * op.n : 0, 0.0f);
  sc_core::sc_process_handle fetcher = sc_core::sc_spawn(
      [&] {
        int slot = 1;
        for (std::uint64_t j0 = 0; j0 < op.n; j0 += chunk) {
          const std::uint64_t cols = std::min(chunk, op.n - j0);
          const std::uint64_t row_bytes = packed_index_bytes(cols, f.index_bits);
          slots.acquire();
          slot ^= 1;
          Dma::Transfer last;
          if (op.functional) buf[slot].assign(C * v_count * row_bytes, 0);
          for (std::uint64_t c = 0; c < C; ++c)
            last = dma.start_read(op.weight_addr + c * per_c + j0 * static_cast<std::uint64_t>(f.index_bits) / 8,
                                  row_bytes, v_count, row_stride,
                                  op.functional ? buf[slot].data() + c * v_count * row_bytes : nullptr);
          fetched.push({j0, cols, row_bytes, last, slot});
        }
      },
      sc_core::sc_gen_unique_name("indices"));
  std::uint64_t total = 0;
  std::vector<std::uint64_t> addrs;
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  // Timing mode: the drawn index stream depends on the layer's shape only
  // (seeded by lookup.seed, N and K), so a shape's lookup cycles per chunk are
  // counted once and reused, whatever M.
  std::mt19937_64 rng(static_cast<std::uint64_t>(m_config.lookup.seed) * 0x9e3779b97f4a7c15ull ^ (op.n << 24) ^ op.k);
  std::vector<std::uint64_t>* known = nullptr;
  if (!op.functional) {
    const auto it = m_chunk_cycles.find({op.n, op.k});
    if (it != m_chunk_cycles.end()) known = &it->second;
  }
  std::vector<std::uint64_t> counted;
  const auto sample = static_cast<std::uint64_t>(m_config.lookup.sample_groups);
  std::uint64_t sampled_groups = 0, sampled_cycles = 0;
  std::uint64_t chunk_index = 0;
  for (std::uint64_t j0 = 0; j0 < op.n; j0 += chunk, ++chunk_index) {
    const Fetched fch = fetched.pop();
    Dma::wait_for(fch.t);
    std::uint64_t cycles = 0;
    const std::uint64_t groups = v_count * C * ((fch.cols + lanes - 1) / lanes);
    if (known) {
      cycles = (*known)[chunk_index];
      m_stats.inc(m_lookups, static_cast<double>(v_count * C * fch.cols));
    } else if (!op.functional && sample > 0 && sampled_groups >= sample) {
      // Past the sample: the stream is stationary, so charge its mean.
      cycles = static_cast<std::uint64_t>(std::llround(
          static_cast<double>(sampled_cycles) / static_cast<double>(sampled_groups) * static_cast<double>(groups)));
      m_stats.inc(m_lookups, static_cast<double>(v_count * C * fch.cols));
    } else
      for (std::uint64_t v = 0; v < v_count; ++v)
        for (std::uint64_t g = 0; g < fch.cols; g += lanes) {
          const std::uint64_t width = std::min(lanes, fch.cols - g);
          for (std::uint64_t c = 0; c < C; ++c) {
            addrs.clear();
            for (std::uint64_t l = 0; l < width; ++l) {
              std::uint64_t e;
              if (op.functional) {
                e = unpack_index(buf[fch.slot].data() + (c * v_count + v) * fch.bytes, g + l, f.index_bits);
              } else {
                const double u = uniform(rng);
                e = static_cast<std::uint64_t>(std::pow(u, 1.0 + m_config.lookup.index_skew) *
                                               static_cast<double>(entries)) %
                    entries;
              }
              for (std::uint64_t wd = 0; wd < m_words_per_entry; ++wd)
                addrs.push_back(word_address(group_of(v, fch.j0 + g + l), static_cast<int>(c), e, wd, l));
              if (op.functional) {
                const half_bits* centroid = cbs.data() + ((group_of(v, fch.j0 + g + l) * C + c) * entries + e) * d;
                const std::uint64_t j = fch.j0 + g + l;
                for (std::uint64_t mm = 0; mm < op.m; ++mm) {
                  float acc = 0.0f;
                  for (std::uint64_t t = 0; t < d; ++t)
                    acc += half_to_float(x[mm * op.k + v * d + t]) * half_to_float(centroid[t]);
                  y[mm * op.n + j] += acc;
                }
              }
            }
            m_lane_access.addrs = addrs;
            sc_core::sc_time ignored = sc_core::SC_ZERO_TIME;  // the chunk's cycles are waited below
            cycles += lane_transport(lookup_socket, m_lane_trans, m_lane_access, false, nullptr, ignored);
            m_stats.inc(m_lookups, static_cast<double>(width));
          }
        }
    if (!known) counted.push_back(cycles);
    if (!known && (sample == 0 || sampled_groups < sample)) {
      sampled_groups += groups;
      sampled_cycles += cycles;
    }
    m_stats.inc(m_cycles, static_cast<double>(cycles));
    total += cycles;
    if (Timeline* t = Timeline::of(*this))
      t->span("lookup", fmt::format("{} columns", fch.cols), sc_core::sc_time_stamp(),
              sc_core::sc_time_stamp() + m_clock.cycles(cycles));
    wait(m_clock.cycles(cycles));
    slots.release();
  }
  if (!fetcher.terminated()) wait(fetcher.terminated_event());
  if (!op.functional && !known) m_chunk_cycles[{op.n, op.k}] = counted;
  // Buffer traffic: activations, codebooks and indices land once; each lookup
  // reads its centroid, broadcasts d activations of every input row and
  // updates every row's accumulator.
  const double looked = m_stats.get(m_lookups) - lookups_before;
  const double index_bits = static_cast<double>(C * per_c * 8);  // the whole index matrix, once
  m_traffic.write(BufferTraffic::input, static_cast<double>(op.m * op.k * 16));
  m_traffic.read(BufferTraffic::input, looked * static_cast<double>(op.m * d * 16));
  m_traffic.write(BufferTraffic::codebook, static_cast<double>(groups * C * entries * d * 16));
  m_traffic.read(BufferTraffic::codebook, looked * static_cast<double>(d * 16));
  m_traffic.write(BufferTraffic::weight, index_bits);
  m_traffic.read(BufferTraffic::weight, index_bits);
  m_traffic.read(BufferTraffic::output, looked * static_cast<double>(op.m * 32));
  m_traffic.write(BufferTraffic::output, looked * static_cast<double>(op.m * 32));
  std::vector<half_bits> out(op.functional ? y.size() : 0);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = float_to_half(y[i]);
  dma.write(op.out_addr, op.m * op.n * 2, op.functional ? reinterpret_cast<const std::uint8_t*>(out.data()) : nullptr);
  return total;
}

}  // namespace eva
