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
#include "pack/operand_layout.hpp"

namespace eva {

namespace {

// A uniform draw u in [0, 1) skewed towards low entries: u^(1 + skew). The
// unskewed draw skips pow (pow(u, 1) is u exactly, so results are the same).
double skewed(double u, double skew) { return skew == 0.0 ? u : std::pow(u, 1.0 + skew); }

std::uint64_t words_per_entry(const VqConflictConfig& c) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(c.vq.vector_dim) * 2;
  const auto w = static_cast<std::uint64_t>(c.lookup.bank_width_bytes);
  return (bytes + w - 1) / w;
}

}  // namespace

SramConfig VqConflictAccelerator::codebook_sram(const VqConflictConfig& c) {
  SramConfig s = buffer_sram(c, c.buffers.codebook_kib, c.energy.codebook);
  s.banks = c.lookup.banks * c.lookup.replicas;  // each copy in its own banks
  s.bank_width_bytes = c.lookup.bank_width_bytes;
  return s;
}

EnergyConfig VqConflictAccelerator::codebook_energy(const VqConflictConfig& c) {
  EnergyConfig e = c.energy;
  const double scale = codebook_sram(c).bit_energy_scale();
  e.codebook.read_pj_per_bit *= scale;
  e.codebook.write_pj_per_bit *= scale;
  return e;
}

VqConflictAccelerator::Map VqConflictAccelerator::buffer_map(const VqConflictConfig& c) {
  const auto kib = [](int k) { return static_cast<std::uint64_t>(k) * 1024; };
  const BufferConfig& b = c.buffers;
  return Map{0, kib(b.input_kib), kib(b.input_kib) + kib(b.output_kib),
             kib(b.input_kib) + kib(b.output_kib) + kib(b.weight_kib)};
}

VqConflictAccelerator::VqConflictAccelerator(const sc_core::sc_module_name& name, const VqConflictConfig& config)
    : Accelerator(name),
      lookup_socket("lookup_socket"),
      buffer_port("buffer_port"),
      dma("dma", config.dma),
      // Its bits are priced by BufferTraffic, which counts every lookup,
      // sampled ones included.
      codebook("codebook", codebook_sram(config), config.clock_mhz, false),
      vector("vector", config.vector, config.clock_mhz,
             vector_power(config.energy, config.area, static_cast<std::uint64_t>(config.vector.lanes))),
      input_buffer("input_buffer", buffer_sram(config, config.buffers.input_kib, config.energy.input),
                   config.clock_mhz),
      output_buffer("output_buffer", buffer_sram(config, config.buffers.output_kib, config.energy.output),
                    config.clock_mhz),
      index_buffer("index_buffer", buffer_sram(config, config.buffers.weight_kib, config.energy.weight),
                   config.clock_mhz),
      bus("bus", config.check_protocol),
      m_config(config),
      m_clock(config.clock_mhz),
      m_words_per_entry(words_per_entry(config)),
      m_map(buffer_map(config)),
      m_lookups(m_stats.add("lookups", "lookups", "centroids looked up")),
      m_cycles(m_stats.add("cycles", "cycles", "cycles of lookups, conflicts included")),
      m_conflicts(m_stats.add("conflict_cycles", "cycles",
                              "cycles of lookups beyond one per lane group: bank conflicts (sampled chunks scaled)")),
      m_buffers(m_traffic, codebook_energy(config)),
      m_lanes("array", array_power(config.energy, config.area, static_cast<std::uint64_t>(config.lookup.lanes)),
              m_stats, m_cycles, m_clock.cycles(1).to_seconds()) {
  lookup_socket.bind(codebook.lookup_socket);
  bus.attach(input_buffer.target_socket, m_map.input, input_buffer.size());
  bus.attach(output_buffer.target_socket, m_map.output, output_buffer.size());
  bus.attach(index_buffer.target_socket, m_map.index, index_buffer.size());
  bus.attach(codebook.target_socket, m_map.codebook, codebook.size());
  dma.sram_socket.bind(bus.target_socket);
  buffer_port.bind(bus.target_socket);
  vector.buffer_port.bind(bus.target_socket);
  m_lane_access.lane_bytes = static_cast<std::uint64_t>(config.lookup.bank_width_bytes);
  add_priced_part(m_buffers);
  add_priced_part(m_lanes);
}

std::vector<const StatGroup*> VqConflictAccelerator::stat_groups() {
  std::vector<const StatGroup*> g = {&dma.stats(), &m_stats};
  for (Sram* b : {&codebook, &input_buffer, &output_buffer, &index_buffer}) {
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

std::uint64_t VqConflictAccelerator::codebook_groups(const GemmDescriptor& op) const {
  const VqFormat& f = m_config.vq;
  const std::uint64_t gn = f.group_n ? (op.n + f.group_n - 1) / static_cast<std::uint64_t>(f.group_n) : 1;
  return (f.group_k ? (op.k + f.group_k - 1) / static_cast<std::uint64_t>(f.group_k) : 1) * gn;
}

void VqConflictAccelerator::check(const GemmDescriptor& op) const {
  if (op.operand != GemmOperand::weights) {
    if (op.functional) throw InputError("vq-conflict: attention and FP16 weights are modelled in timing mode only");
    return;
  }
  const VqFormat& f = m_config.vq;
  const LookupConfig& l = m_config.lookup;
  if (op.k % static_cast<std::uint64_t>(f.vector_dim) != 0)
    throw InputError(
        fmt::format("K = {} is not a multiple of the VQ vector size d = {} (vq.vector_dim)", op.k, f.vector_dim));
  const auto banks = static_cast<std::uint64_t>(l.banks), width = static_cast<std::uint64_t>(l.bank_width_bytes);
  const std::uint64_t groups = codebook_groups(op);
  const std::uint64_t words =
      groups * static_cast<std::uint64_t>(f.codebooks) * (1ull << f.index_bits) * m_words_per_entry;
  const std::uint64_t bytes = (words + banks - 1) / banks * banks * width * static_cast<std::uint64_t>(l.replicas);
  if (bytes > codebook.size())
    throw InputError(fmt::format(
        "buffers.codebook_kib: {} KiB cannot hold {} codebook group(s) of {} codebooks in {} cop{} ({} B)",
        m_config.buffers.codebook_kib, groups, f.codebooks, l.replicas, l.replicas == 1 ? "y" : "ies", bytes));
  if (l.replicas > 1 && static_cast<std::uint64_t>(f.vector_dim) * 2 != m_words_per_entry * width)
    throw InputError(
        fmt::format("lookup.replicas: copies of the codebooks need centroids of whole bank words "
                    "(vq.vector_dim x 2 = {} B, lookup.bank_width_bytes = {})",
                    f.vector_dim * 2, l.bank_width_bytes));
  const std::uint64_t v_count = op.k / static_cast<std::uint64_t>(f.vector_dim);
  const std::uint64_t least = static_cast<std::uint64_t>(f.codebooks) * v_count * packed_index_bytes(8, f.index_bits);
  if (least > index_buffer.size() / 2)
    throw InputError(
        fmt::format("buffers.weight_kib: {} KiB cannot double-buffer the indices of 8 columns of K = {} "
                    "({} B each)",
                    m_config.buffers.weight_kib, op.k, least));
  if (op.functional && op.m * op.k * 2 > input_buffer.size())
    throw InputError(
        fmt::format("buffers.input_kib: {} KiB cannot hold the {} x {} FP16 activations of a "
                    "functional run",
                    m_config.buffers.input_kib, op.m, op.k));
}

std::uint64_t VqConflictAccelerator::execute_vector(const VectorDescriptor& op) {
  return run_vector_op(dma, vector, VectorBuffers{0, input_buffer.size(), input_buffer.size(), output_buffer.size()},
                       op);
}

// Attention, or dense FP16 weights: x (FP16) and the K x N cache slice (or
// weights) stream through the input buffer, then the FP16 multiply-add
// datapath takes lanes x d MACs per cycle, then y goes out.
std::uint64_t VqConflictAccelerator::attention(const GemmDescriptor& op) {
  const std::uint64_t x_bytes = op.m * op.k * 2;
  const std::uint64_t kv_bytes =
      op.operand == GemmOperand::kv_cache ? m_config.formats.kv_bytes(op.k * op.n) : op.k * op.n * 2;
  const Dma::Transfer x = dma.start_read(op.act_addr, x_bytes, 1, x_bytes, nullptr);
  dma.read(op.weight_addr, kv_bytes, nullptr);
  Dma::wait_for(x);
  const std::uint64_t per_cycle =
      static_cast<std::uint64_t>(m_config.lookup.lanes) * static_cast<std::uint64_t>(m_config.vq.vector_dim);
  const std::uint64_t cycles = (op.m * op.k * op.n + per_cycle - 1) / per_cycle;
  buffer_port.stream(tlm::TLM_WRITE_COMMAND, m_map.input, input_buffer.size(), x_bytes + kv_bytes);
  buffer_port.stream(tlm::TLM_READ_COMMAND, m_map.input, input_buffer.size(), x_bytes + kv_bytes);
  m_stats.inc(m_cycles, static_cast<double>(cycles));
  if (Timeline* t = Timeline::of(*this))
    t->span("lookup", "attention", sc_core::sc_time_stamp(), sc_core::sc_time_stamp() + m_clock.cycles(cycles));
  wait(m_clock.cycles(cycles));
  dma.operands_consumed();
  dma.write(op.out_addr, op.m * op.n * 2, nullptr);
  return cycles;
}

std::vector<Dma::Transfer> VqConflictAccelerator::load_codebooks(const GemmDescriptor& op, std::uint64_t groups) {
  const VqFormat& f = m_config.vq;
  const auto banks = static_cast<std::uint64_t>(m_config.lookup.banks);
  const auto width = static_cast<std::uint64_t>(m_config.lookup.bank_width_bytes);
  const auto copies = static_cast<std::uint64_t>(m_config.lookup.replicas);
  const std::uint64_t entries = groups * static_cast<std::uint64_t>(f.codebooks) * (1ull << f.index_bits);
  const std::uint64_t entry_bytes = static_cast<std::uint64_t>(f.vector_dim) * 2;
  const bool timing = !op.functional;
  std::vector<Dma::Transfer> loads;
  if (entry_bytes != m_words_per_entry * width) {  // each centroid padded to whole words, one copy (check)
    loads.push_back(dma.start_load(op.codebook_addr, entry_bytes, entries, entry_bytes, m_map.codebook, timing,
                                   m_words_per_entry * width));
    return loads;
  }
  // Whole words: bank row after bank row, copy r's rows in its own banks
  // (word_address); each copy is read from DRAM.
  const std::uint64_t words = entries * m_words_per_entry, row = banks * width;
  const std::uint64_t full = words / banks, rest = words % banks * width;
  for (std::uint64_t r = 0; r < copies; ++r) {
    if (full > 0)
      loads.push_back(dma.start_load(op.codebook_addr, row, full, row, m_map.codebook + r * row, timing, row * copies));
    if (rest > 0)
      loads.push_back(dma.start_load(op.codebook_addr + full * row, rest, 1, rest,
                                     m_map.codebook + full * row * copies + r * row, timing));
  }
  return loads;
}

std::uint64_t VqConflictAccelerator::artifact_cycles(const GemmDescriptor& op, std::uint64_t cols, std::mt19937_64& rng,
                                                     ArtifactSample& sample, std::uint64_t& stall) const {
  const LookupConfig& l = m_config.lookup;
  const VqFormat& f = m_config.vq;
  const auto d = static_cast<std::uint64_t>(f.vector_dim);
  const std::uint64_t entries = 1ull << f.index_bits, v_count = op.k / d;
  const auto C = static_cast<std::uint64_t>(f.codebooks);
  const auto banks = static_cast<std::uint64_t>(l.banks), copies = static_cast<std::uint64_t>(l.replicas);
  const std::uint64_t per_bank = (entries + banks - 1) / banks;  // entry e sits in bank e / per_bank
  const auto os_rows = static_cast<std::uint64_t>(l.os_rows), os_cols = static_cast<std::uint64_t>(l.os_cols);
  const std::uint64_t k_tiles =
      (op.k + static_cast<std::uint64_t>(l.tile_k) - 1) / static_cast<std::uint64_t>(l.tile_k);
  const std::uint64_t k_tile = (op.k + k_tiles - 1) / k_tiles;
  // Index groups: `banks` sub-vector rows of one column, one lookup per bank
  // (BASELINES.md 4.5: 4 banks, 4 rows).
  const std::uint64_t group_rows = banks;
  const auto limit = static_cast<std::uint64_t>(l.sample_groups);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<std::uint64_t> counts(banks * copies);
  std::uint64_t total = 0;
  for (std::uint64_t j = 0; j < cols; j += os_cols) {
    const std::uint64_t width = std::min(os_cols, cols - j);
    for (std::uint64_t k0 = 0; k0 < op.k; k0 += k_tile) {
      const std::uint64_t kk = std::min(k_tile, op.k - k0);
      const std::uint64_t v0 = k0 / d, rows = std::min(v_count, (k0 + kk + d - 1) / d) - v0;
      // OS compute: ceil(M / os_rows) x ceil(tile_n / os_cols) x K_tile + fill and drain.
      const std::uint64_t compute = (op.m + os_rows - 1) / os_rows * kk + op.m + os_cols - 1;
      std::uint64_t tile_stall = 0;
      if (limit > 0 && sample.groups >= limit) {
        // Past the sample: the drawn stream is stationary; charge its mean.
        tile_stall = static_cast<std::uint64_t>(std::llround(sample.stall / static_cast<double>(sample.tiles)));
      } else {
        std::uint64_t mem = 0;
        for (std::uint64_t g = 0; g < rows; g += group_rows) {
          const std::uint64_t n_rows = std::min(group_rows, rows - g);
          for (std::uint64_t col = 0; col < width; ++col) {
            // Codebooks in parallel, each its own SRAM: the column costs the worst.
            std::uint64_t worst = 0;
            for (std::uint64_t c = 0; c < C; ++c) {
              std::fill(counts.begin(), counts.end(), 0);
              for (std::uint64_t i = 0; i < n_rows; ++i) {
                const std::uint64_t e =
                    static_cast<std::uint64_t>(skewed(uniform(rng), l.index_skew) * static_cast<double>(entries)) %
                    entries;
                // Row i reads copy i mod replicas, each copy in banks of its own.
                worst = std::max(worst, ++counts[(i % copies) * banks + std::min(banks - 1, e / per_bank)]);
              }
            }
            mem += worst;
          }
          sample.groups += width;
        }
        tile_stall = mem > compute ? mem - compute : 0;
        sample.stall += static_cast<double>(tile_stall);
        ++sample.tiles;
      }
      total += compute + tile_stall;
      stall += tile_stall;
    }
  }
  return total;
}

std::vector<std::uint8_t> VqConflictAccelerator::vq_index_image(const VqMatrix& w, std::uint64_t) const {
  return vq_conflict_index_image(w);
}

std::uint64_t VqConflictAccelerator::execute(const GemmDescriptor& op) {
  if (op.operand != GemmOperand::weights) return attention(op);
  const VqFormat& f = m_config.vq;
  const auto d = static_cast<std::uint64_t>(f.vector_dim);
  const std::uint64_t entries = 1ull << f.index_bits, v_count = op.k / d;
  const auto lanes = static_cast<std::uint64_t>(m_config.lookup.lanes);
  const auto C = static_cast<std::uint64_t>(f.codebooks);
  const std::uint64_t row_stride = packed_index_bytes(op.n, f.index_bits), per_c = v_count * row_stride;
  const std::uint64_t width = static_cast<std::uint64_t>(m_config.lookup.bank_width_bytes);
  // Codebooks (every group's, in every copy) and activations first: they stay
  // on chip. The lanes read the centroids from the codebook SRAM, whose bank
  // model times the lookups from their addresses.
  const std::uint64_t gn = f.group_n ? (op.n + f.group_n - 1) / static_cast<std::uint64_t>(f.group_n) : 1;
  const std::uint64_t groups = codebook_groups(op);
  const auto group_of = [&](std::uint64_t v, std::uint64_t j) {
    return (f.group_k ? v * d / static_cast<std::uint64_t>(f.group_k) : 0) * gn +
           (f.group_n ? j / static_cast<std::uint64_t>(f.group_n) : 0);
  };
  const double lookups_before = m_stats.get(m_lookups);
  // Activations: loaded into the input buffer when they fit (always in
  // functional runs, check()), else streamed through it.
  const std::uint64_t x_bytes = op.m * op.k * 2;
  const bool x_fits = x_bytes <= input_buffer.size();
  const Dma::Transfer tx = x_fits ? dma.start_load(op.act_addr, x_bytes, 1, x_bytes, m_map.input, !op.functional)
                                  : dma.start_read(op.act_addr, x_bytes, 1, x_bytes, nullptr);
  if (!x_fits) buffer_port.stream(tlm::TLM_WRITE_COMMAND, m_map.input, input_buffer.size(), x_bytes);
  for (const Dma::Transfer& t : load_codebooks(op, groups)) Dma::wait_for(t);
  Dma::wait_for(tx);
  std::vector<half_bits> x(op.functional ? op.m * op.k : 0);
  if (op.functional) std::memcpy(x.data(), buffer_port.direct(m_map.input, x_bytes), x_bytes);

  // Index chunks of whole bytes: columns in multiples of 8, as many as fit
  // half the index buffer (a slot), loaded by the DMA into the slot.
  const std::uint64_t slot_bytes = index_buffer.size() / 2;
  std::uint64_t chunk =
      std::max<std::uint64_t>(8, slot_bytes * 8 / (C * v_count * static_cast<std::uint64_t>(f.index_bits)) / 8 * 8);
  chunk = std::min(chunk, (op.n + 7) / 8 * 8);
  // The artifact's convention times whole column tiles of lookup.os_cols.
  const bool artifact = !op.functional && m_config.lookup.model == LookupModel::artifact;
  const auto os_cols = static_cast<std::uint64_t>(m_config.lookup.os_cols);
  if (artifact && chunk > os_cols) chunk = chunk / os_cols * os_cols;
  struct Fetched {
    std::uint64_t j0, cols, bytes;
    std::vector<Dma::Transfer> t;
    int slot;
  };
  EventQueue<Fetched> fetched;
  Slots slots(2);
  std::vector<float> y(op.functional ? op.m * op.n : 0, 0.0f);
  WorkerPool::Group fetcher;
  m_workers.start(
      fetcher,
      [&] {
        int slot = 1;
        for (std::uint64_t j0 = 0; j0 < op.n; j0 += chunk) {
          const std::uint64_t cols = std::min(chunk, op.n - j0);
          const std::uint64_t row_bytes = packed_index_bytes(cols, f.index_bits);
          slots.acquire();
          slot ^= 1;
          std::vector<Dma::Transfer> loads;
          const std::uint64_t at = m_map.index + static_cast<std::uint64_t>(slot) * slot_bytes;
          for (std::uint64_t c = 0; c < C; ++c)
            loads.push_back(
                dma.start_load(op.weight_addr + c * per_c + j0 * static_cast<std::uint64_t>(f.index_bits) / 8,
                               row_bytes, v_count, row_stride, at + c * v_count * row_bytes, !op.functional));
          fetched.push({j0, cols, row_bytes, std::move(loads), slot});
        }
      },
      "indices");
  std::uint64_t total = 0;
  std::vector<std::uint64_t> addrs;
  std::vector<std::uint8_t> words;  // functional: the centroids the lanes read
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  // Timing mode: the drawn index stream depends on the layer's shape only
  // (seeded by lookup.seed, N and K), so a shape's lookup cycles per chunk are
  // counted once and reused, whatever M.
  std::mt19937_64 rng(static_cast<std::uint64_t>(m_config.lookup.seed) * 0x9e3779b97f4a7c15ull ^ (op.n << 24) ^ op.k);
  const ShapeLookups* known = nullptr;
  if (!op.functional) {
    const auto it = m_chunk_cycles.find({op.n, op.k});
    if (it != m_chunk_cycles.end()) known = &it->second;
  }
  const Sram::LaneCounts lanes_before = codebook.lane_counts();
  std::vector<std::uint64_t> counted;
  const auto sample = static_cast<std::uint64_t>(m_config.lookup.sample_groups);
  std::uint64_t sampled_groups = 0, sampled_cycles = 0;
  ArtifactSample artifact_sample;
  std::uint64_t chunk_index = 0;
  for (std::uint64_t j0 = 0; j0 < op.n; j0 += chunk, ++chunk_index) {
    const Fetched fch = fetched.pop();
    for (const Dma::Transfer& t : fch.t) Dma::wait_for(t);
    // The lanes read the chunk's indices from its slot once.
    const std::uint64_t slot_at = m_map.index + static_cast<std::uint64_t>(fch.slot) * slot_bytes;
    buffer_port.touch(tlm::TLM_READ_COMMAND, slot_at, C * v_count * fch.bytes);
    const std::uint8_t* indices = op.functional ? buffer_port.direct(slot_at, C * v_count * fch.bytes) : nullptr;
    std::uint64_t cycles = 0;
    const std::uint64_t groups_here = v_count * C * ((fch.cols + lanes - 1) / lanes);
    std::uint64_t conflicts = 0;  // the stall beyond compute (artifact), or beyond one cycle per lane group
    if (artifact) {
      cycles = artifact_cycles(op, fch.cols, rng, artifact_sample, conflicts);
      m_stats.inc(m_lookups, static_cast<double>(v_count * C * fch.cols));
    } else if (known) {
      cycles = known->chunk_cycles[chunk_index];
      m_stats.inc(m_lookups, static_cast<double>(v_count * C * fch.cols));
    } else if (!op.functional && sample > 0 && sampled_groups >= sample) {
      // Past the sample: the stream is stationary, so charge its mean.
      cycles = static_cast<std::uint64_t>(
          std::llround(static_cast<double>(sampled_cycles) / static_cast<double>(sampled_groups) *
                       static_cast<double>(groups_here)));
      m_stats.inc(m_lookups, static_cast<double>(v_count * C * fch.cols));
    } else
      for (std::uint64_t v = 0; v < v_count; ++v)
        for (std::uint64_t g = 0; g < fch.cols; g += lanes) {
          const std::uint64_t lane_count = std::min(lanes, fch.cols - g);
          for (std::uint64_t c = 0; c < C; ++c) {
            addrs.clear();
            for (std::uint64_t l = 0; l < lane_count; ++l) {
              std::uint64_t e;
              if (op.functional) {
                e = unpack_index(indices + (c * v_count + v) * fch.bytes, g + l, f.index_bits);
              } else {
                e = static_cast<std::uint64_t>(skewed(uniform(rng), m_config.lookup.index_skew) *
                                               static_cast<double>(entries)) %
                    entries;
              }
              for (std::uint64_t wd = 0; wd < m_words_per_entry; ++wd)
                addrs.push_back(word_address(group_of(v, fch.j0 + g + l), static_cast<int>(c), e, wd, l));
            }
            m_lane_access.addrs = addrs;
            if (op.functional) words.assign(addrs.size() * width, 0);
            sc_core::sc_time ignored = sc_core::SC_ZERO_TIME;  // the chunk's cycles are waited below
            cycles += lane_transport(lookup_socket, m_lane_trans, m_lane_access, false,
                                     op.functional ? words.data() : nullptr, ignored);
            if (m_lane_trans.is_response_error())
              throw std::logic_error(std::string(name()) + ": a lookup outside the codebook SRAM");
            m_stats.inc(m_lookups, static_cast<double>(lane_count));
            if (op.functional)  // each lane's centroid multiplies d activations of every input row
              for (std::uint64_t l = 0; l < lane_count; ++l) {
                std::vector<half_bits> centroid(d);
                std::memcpy(centroid.data(), words.data() + l * m_words_per_entry * width, d * 2);
                const std::uint64_t j = fch.j0 + g + l;
                for (std::uint64_t mm = 0; mm < op.m; ++mm) {
                  float acc = 0.0f;
                  for (std::uint64_t t = 0; t < d; ++t)
                    acc += half_to_float(x[mm * op.k + v * d + t]) * half_to_float(centroid[t]);
                  y[mm * op.n + j] += acc;
                }
              }
          }
        }
    if (!artifact) {
      if (!known) counted.push_back(cycles);
      if (!known && (sample == 0 || sampled_groups < sample)) {
        sampled_groups += groups_here;
        sampled_cycles += cycles;
      }
      // Each lane group's access takes one cycle without conflicts.
      conflicts = cycles > groups_here ? cycles - groups_here : 0;
    }
    m_stats.inc(m_cycles, static_cast<double>(cycles));
    m_stats.inc(m_conflicts, static_cast<double>(conflicts));
    total += cycles;
    if (Timeline* t = Timeline::of(*this))
      t->span("lookup", fmt::format("{} columns", fch.cols), sc_core::sc_time_stamp(),
              sc_core::sc_time_stamp() + m_clock.cycles(cycles));
    wait(m_clock.cycles(cycles));
    slots.release();
  }
  fetcher.wait();
  // Every lookup is done: the codebook and index buffers are free for the
  // next descriptor while the outputs leave.
  dma.operands_consumed();
  if (!op.functional && !known && !artifact)
    m_chunk_cycles[{op.n, op.k}] = ShapeLookups{counted, lanes_before, codebook.lane_counts()};
  if (known) codebook.add_lane_counts(known->before, known->after);  // the same lanes as the first time
  // Buffer traffic: each lookup reads its centroid (counted here, as sampled
  // lookups present no lanes), broadcasts d activations of every input row
  // and updates every row's FP32 accumulator.
  const double looked = m_stats.get(m_lookups) - lookups_before;
  const auto looked_bytes = static_cast<std::uint64_t>(looked);
  m_traffic.write(BufferTraffic::codebook, static_cast<double>(groups * C * entries * d * 16));
  m_traffic.read(BufferTraffic::codebook, looked * static_cast<double>(d * 16));
  buffer_port.stream(tlm::TLM_READ_COMMAND, m_map.input, input_buffer.size(), looked_bytes * op.m * d * 2);
  buffer_port.stream(tlm::TLM_READ_COMMAND, m_map.output, output_buffer.size(), looked_bytes * op.m * 4);
  buffer_port.stream(tlm::TLM_WRITE_COMMAND, m_map.output, output_buffer.size(), looked_bytes * op.m * 4);
  // The outputs leave as FP16.
  std::vector<half_bits> out(op.functional ? y.size() : 0);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = float_to_half(y[i]);
  dma.write(op.out_addr, op.m * op.n * 2, op.functional ? reinterpret_cast<const std::uint8_t*>(out.data()) : nullptr);
  return total;
}

}  // namespace eva
