// The soak's plan (test/soak/soak_plan.hpp), without the kernel: the same seed
// gives the same batches, every descriptor decodes as the plan says it will,
// and a few thousand descriptors reach every error code a ring can report.
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "arch/presets.hpp"
#include "soak_plan.hpp"

using namespace eva;
using namespace eva::soak;
using regs::ErrorCode;

namespace {

// Operand sizes as a stand-in for Accelerator::operand_bytes: the plan only
// places operands with them.
OperandSizes sizes(std::uint64_t m, std::uint64_t n, std::uint64_t k) { return {m * k * 2, k * n, 4096, m * n * 2}; }

ArchConfig arch(const std::string& name) {
  ArchConfig c = presets::arch(name);
  c.periph.chain_limit = 8;  // as eva-soak sets it
  return c;
}

std::vector<Batch> plan(const ArchConfig& c, std::uint64_t seed, std::uint64_t descriptors) {
  Generator g(c, seed, sizes);
  std::vector<Batch> batches;
  while (g.descriptors() < descriptors) batches.push_back(g.next());
  return batches;
}

}  // namespace

TEST_CASE("soak plan: the same seed and architecture give the same batches, another seed others") {
  const ArchConfig c = arch("sa");
  const std::vector<Batch> a = plan(c, 7, 300), b = plan(c, 7, 300), other = plan(c, 8, 300);
  REQUIRE(a.size() == b.size());
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].records.size() == b[i].records.size());
    for (std::size_t r = 0; r < a[i].records.size(); ++r) {
      CHECK(a[i].records[r].addr == b[i].records[r].addr);
      CHECK(a[i].records[r].bytes == b[i].records[r].bytes);
    }
    CHECK(a[i].failures.size() == b[i].failures.size());
    CHECK(a[i].done == b[i].done);
    if (i < other.size() && (other[i].records.size() != a[i].records.size() || other[i].mode != a[i].mode))
      differs = true;
  }
  CHECK(differs);
}

TEST_CASE("soak plan: each descriptor decodes as the plan expects, and every error code is generated") {
  std::map<ErrorCode, int> predicted;
  std::set<Category> categories;
  int misconfigured = 0, invalid = 0, total = 0;
  for (const char* name : {"eva", "sa", "figlut", "vq-conflict"}) {
    const ArchConfig c = arch(name);
    for (const Batch& b : plan(c, 3, 500)) {
      misconfigured += b.misconfig != Misconfig::none;
      for (const Failure& f : b.failures) ++predicted[f.code];
      // One failure at a time unless the host polls (it reads each as it comes).
      if (b.mode != Mode::poll) CHECK(b.failures.size() <= 1);
      std::uint64_t runs = 0;
      for (std::uint32_t r : b.runs) runs += r;
      CHECK(runs == b.done);
      for (const Record& r : b.records) {
        ++total;
        categories.insert(r.category);
        invalid += r.category == Category::invalid;
        if (!r.in_memory) {
          CHECK(r.error == ErrorCode::fetch_bus_error);
          continue;
        }
        const DecodedDescriptor d = decode_descriptor(r.bytes.data(), r.bytes.size());
        INFO(name << ": descriptor " << r.index << " (" << r.what << "): " << d.message);
        if (d.ok()) CHECK(d.next == r.next);
        const bool decoder_error = r.error != ErrorCode::none && r.error != ErrorCode::unsupported &&
                                   r.error != ErrorCode::data_bus_error && r.error != ErrorCode::fetch_bus_error &&
                                   r.error != ErrorCode::chain_limit;
        CHECK(d.error == (decoder_error ? r.error : ErrorCode::none));
      }
    }
  }
  for (ErrorCode code :
       {ErrorCode::desc_magic, ErrorCode::desc_version, ErrorCode::desc_opcode, ErrorCode::desc_reserved,
        ErrorCode::desc_operand, ErrorCode::desc_vector_op, ErrorCode::desc_shape, ErrorCode::unsupported,
        ErrorCode::fetch_bus_error, ErrorCode::data_bus_error, ErrorCode::chain_limit}) {
    INFO(error_name(code));
    CHECK(predicted[code] > 0);
  }
  CHECK(misconfigured > 0);  // RING_CONFIG doorbells
  CHECK(categories.size() == 6);
  CHECK(invalid > total / 5);
}
