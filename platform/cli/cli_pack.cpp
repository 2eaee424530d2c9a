// eva-sim pack: .npy operands -> a memory image and its JSON manifest
// (docs/MEMORY-LAYOUT.md, "The packing tool"), with eva_pack's layouts.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "cli/cli_common.hpp"
#include "common/error.hpp"
#include "common/fp16.hpp"
#include "common/vq_math.hpp"
#include "config/input_file.hpp"
#include "config/load_arch.hpp"
#include "config/npy.hpp"
#include "pack/image.hpp"

namespace eva {

namespace {

// Float elements of a float16/32/64 array.
std::vector<double> npy_floats(const NpyArray& a, const std::string& path) {
  std::vector<double> v(a.count());
  if (a.dtype == "<f2") {
    for (std::uint64_t i = 0; i < a.count(); ++i) v[i] = static_cast<double>(half_to_float(a.half(i)));
  } else if (a.dtype == "<f4") {
    for (std::uint64_t i = 0; i < a.count(); ++i) {
      float f;
      std::memcpy(&f, a.data.data() + i * 4, 4);
      v[i] = static_cast<double>(f);
    }
  } else if (a.dtype == "<f8") {
    for (std::uint64_t i = 0; i < a.count(); ++i) std::memcpy(&v[i], a.data.data() + i * 8, 8);
  } else {
    throw InputError(fmt::format("{}: dtype '{}': expected float16, float32 or float64", path, a.dtype));
  }
  for (std::uint64_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) throw InputError(fmt::format("{}: element {} is not finite", path, i));
  return v;
}

std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

struct SpecReader {
  std::string file;
  [[noreturn]] void fail(const YAML::Node& n, const std::string& where, const std::string& what) const {
    const YAML::Mark m = n.Mark();
    throw InputError(m.line >= 0 ? fmt::format("{}:{}: {}: {}", file, m.line + 1, where, what)
                                 : fmt::format("{}: {}: {}", file, where, what));
  }
  std::uint64_t number(const YAML::Node& n, const std::string& where, std::uint64_t max) const {
    std::uint64_t v = 0;
    try {
      const std::string text = n.as<std::string>();
      std::size_t used = 0;
      v = std::stoull(text, &used, 0);
      if (used != text.size() || text[0] == '-') throw std::invalid_argument(text);
    } catch (const std::exception&) {
      fail(n, where, "expected a non-negative integer");
    }
    if (v > max) fail(n, where, fmt::format("{} is above {}", v, max));
    return v;
  }
  std::string text(const YAML::Node& n, const std::string& where) const {
    if (!n || !n.IsScalar()) fail(n, where, "missing (a string)");
    return n.as<std::string>();
  }
};

// The VQ weights of a spec op from its codebooks (C, 2^n, d) and indices (C, K/d, N).
VqMatrix vq_from_npy(const NpyArray& cb, const std::string& cp, const NpyArray& idx, const std::string& ip,
                     std::uint64_t k, std::uint64_t n, const ArchConfig& arch) {
  if (cb.shape.size() != 3)
    throw InputError(fmt::format("{}: shape of rank {}: expected (C, 2^n, d)", cp, cb.shape.size()));
  const std::uint64_t c = cb.shape[0], e = cb.shape[1], dv = cb.shape[2];
  const VqFormat& f = arch.vq;
  if (f.group_k || f.group_n)
    throw InputError(fmt::format("{}: grouped codebooks (vq.group_k, vq.group_n) are not packed yet", arch.name));
  if (c != static_cast<std::uint64_t>(f.codebooks) || e != (1ull << f.index_bits) ||
      dv != static_cast<std::uint64_t>(f.vector_dim))
    throw InputError(
        fmt::format("{}: shape ({}): expected ({}, {}, {}), the architecture's vq.codebooks, "
                    "2^vq.index_bits and vq.vector_dim",
                    cp, fmt::join(cb.shape, ", "), f.codebooks, 1ull << f.index_bits, f.vector_dim));
  if (k % dv) throw InputError(fmt::format("{}: K = {} is not a multiple of d = {}", cp, k, dv));
  if (!idx.is_integer()) throw InputError(fmt::format("{}: dtype '{}': expected an integer type", ip, idx.dtype));
  if (idx.shape != std::vector<std::uint64_t>{c, k / dv, n})
    throw InputError(
        fmt::format("{}: shape ({}): expected ({}, {}, {})", ip, fmt::join(idx.shape, ", "), c, k / dv, n));
  VqMatrix w;
  w.k = k;
  w.n = n;
  w.codebooks = f.codebooks;
  w.index_bits = f.index_bits;
  w.d = f.vector_dim;
  for (double v : npy_floats(cb, cp)) w.centroids.push_back(float_to_half(static_cast<float>(v)));
  w.index.resize(idx.count());
  for (std::uint64_t i = 0; i < idx.count(); ++i) {
    const std::int64_t v = idx.integer(i);
    if (v < 0 || static_cast<std::uint64_t>(v) >= e)
      throw InputError(fmt::format("{}: element {}: index {} is out of range [0, {})", ip, i, v, e));
    w.index[i] = static_cast<std::uint32_t>(v);
  }
  return w;
}

std::string hex(std::uint64_t v) { return fmt::format("{:#x}", v); }

// --example DIR: seeded random operands of one small transformer block.
int write_example(const std::string& dir, std::uint64_t seed) {
  // d_model 64, d_ff 128, 4 tokens: Q, K, V, O on eva (AQLM 2x8, d = 8, the
  // built-in eva's format), the MLP's up and down projections on figlut.
  const std::uint64_t tokens = 4, d_model = 64, d_ff = 128;
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const auto randoms = [&](std::uint64_t count, float scale) {
    std::vector<float> v(count);
    for (float& e : v) e = scale * normal(rng);
    return v;
  };
  std::string spec = fmt::format(
      "# One small transformer block (d_model {}, d_ff {}, {} tokens), seed {}: eva-sim pack --example\n"
      "# Placed where the example SoC's DRAM starts (docs/SOC.md), so eva-soc --image runs it.\n"
      "base: 0x80000000\nops:\n",
      d_model, d_ff, tokens, seed);
  for (const char* name : {"q_proj", "k_proj", "v_proj", "o_proj"}) {
    const VqProblem p = random_vq_problem(tokens, d_model, d_model, 2, 8, 8, 0, 0, 0.0, rng());
    std::vector<float> x;
    for (half_bits h : p.x) x.push_back(half_to_float(h));
    std::vector<float> cb;
    for (half_bits h : p.w.centroids) cb.push_back(half_to_float(h));
    std::vector<std::int32_t> idx(p.w.index.begin(), p.w.index.end());
    write_file_atomic(dir + "/" + name + "_x.npy", npy_float32({tokens, d_model}, x));
    write_file_atomic(dir + "/" + name + "_codebooks.npy", npy_float32({2, 256, 8}, cb));
    write_file_atomic(dir + "/" + name + "_indices.npy",
                      npy_bytes("<i4", {2, d_model / 8, d_model}, idx.data(), idx.size() * 4));
    spec += fmt::format(
        "  - {{name: {0}, arch: eva, m: {1}, n: {2}, k: {2}, x: {0}_x.npy, codebooks: {0}_codebooks.npy, "
        "indices: {0}_indices.npy}}\n",
        name, tokens, d_model);
  }
  for (const auto& [name, k, n] : {std::tuple{"mlp_up", d_model, d_ff}, std::tuple{"mlp_down", d_ff, d_model}}) {
    write_file_atomic(dir + "/" + name + "_x.npy", npy_float32({tokens, k}, randoms(tokens * k, 1.0f)));
    write_file_atomic(dir + "/" + name + "_w.npy", npy_float32({k, n}, randoms(k * n, 0.05f)));
    spec += fmt::format("  - {{name: {0}, arch: figlut, m: {1}, n: {2}, k: {3}, x: {0}_x.npy, w: {0}_w.npy}}\n", name,
                        tokens, n, k);
  }
  write_file_atomic(dir + "/block.yaml", spec);
  std::cout << fmt::format("wrote {}/block.yaml and its .npy operands (6 ops: 4 on eva, 2 on figlut)\n", dir);
  return 0;
}

}  // namespace

int cmd_pack(const std::string& command, const std::vector<std::string>& args) {
  po::options_description d("pack options");
  d.add_options()("spec", po::value<std::string>(), "pack spec (YAML, docs/MEMORY-LAYOUT.md)")(
      "out,o", po::value<std::string>(), "the memory image to write")(
      "manifest", po::value<std::string>(), "its JSON manifest (default: the image's path + .json)")(
      "example", po::value<std::string>(), "instead: write a small transformer block's spec and .npy files here")(
      "seed", po::value<std::string>()->default_value("1"), "--example: the random seed");
  add_sim_options(d);
  po::positional_options_description pos;
  pos.add("spec", 1);
  const auto vm = parse(command, args, d, pos);
  const SimOptions s = sim_options(vm);
  if (vm.count("example"))
    return write_example(vm["example"].as<std::string>(), positive("--seed", vm["seed"].as<std::string>(), ~0ull));
  const std::string spec_path = required(vm, command, "spec");
  const std::string out = required(vm, command, "out");
  const std::string manifest = vm.count("manifest") ? vm["manifest"].as<std::string>() : out + ".json";
  check_output(std::optional<std::string>(out), "--out");
  check_output(std::optional<std::string>(manifest), "--manifest");

  SpecReader r{spec_path};
  YAML::Node root;
  try {
    root = YAML::Load(read_input_file(spec_path));
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}: {}", spec_path, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) throw InputError(fmt::format("{}: expected a mapping with 'ops'", spec_path));
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (key != "base" && key != "table_addr" && key != "ops")
      r.fail(kv.first, key, "unknown key (base, table_addr, ops)");
  }
  const std::uint64_t base = root["base"] ? r.number(root["base"], "base", 1ull << 48) : 0;
  const std::uint64_t table_addr = root["table_addr"] ? r.number(root["table_addr"], "table_addr", 1ull << 48) : base;
  const YAML::Node ops_node = root["ops"];
  if (!ops_node || !ops_node.IsSequence() || ops_node.size() == 0)
    throw InputError(fmt::format("{}: ops: expected a non-empty list of operations", spec_path));
  const std::filesystem::path spec_dir = std::filesystem::path(spec_path).parent_path();
  const auto file_of = [&](const std::string& name) { return (spec_dir / name).string(); };

  std::vector<PackedOp> packed;
  std::vector<std::string> names, archs;
  for (std::size_t i = 0; i < ops_node.size(); ++i) {
    const YAML::Node op = ops_node[i];
    const std::string where = fmt::format("ops[{}]", i);
    if (!op.IsMap()) r.fail(op, where, "expected a mapping");
    for (const auto& kv : op) {
      const std::string key = kv.first.as<std::string>();
      if (key != "name" && key != "arch" && key != "m" && key != "n" && key != "k" && key != "x" && key != "w" &&
          key != "codebooks" && key != "indices")
        r.fail(kv.first, where + "." + key, "unknown key (name, arch, m, n, k, x, w, codebooks, indices)");
    }
    const std::string name = op["name"] ? r.text(op["name"], where + ".name") : fmt::format("op{}", i);
    const std::string arch_name = r.text(op["arch"], where + ".arch");
    const std::uint64_t m = r.number(op["m"], where + ".m", 1u << 20), n = r.number(op["n"], where + ".n", 1u << 20),
                        k = r.number(op["k"], where + ".k", 1u << 20);
    if (!op["m"] || !op["n"] || !op["k"] || m == 0 || n == 0 || k == 0)
      r.fail(op, where, "m, n and k must be given and positive");
    ArchRequest req;
    req.arch = arch_name;
    req.dram = s.dram;
    req.sets = s.arch_sets();
    const YAML::Mark mark = op["arch"].Mark();
    req.origin = fmt::format("{}:{}: {} ({}): arch", spec_path, mark.line + 1, where, name);
    const ArchConfig arch = load_arch(req);
    try {
      const std::string xp = file_of(r.text(op["x"], where + ".x"));
      const NpyArray x = read_npy(xp);
      if (x.shape != std::vector<std::uint64_t>{m, k})
        throw InputError(fmt::format("{}: shape ({}): expected (M, K) = ({}, {})", xp, fmt::join(x.shape, ", "), m, k));
      const std::vector<double> xv = npy_floats(x, xp);
      if (arch.kind == ArchKind::eva || arch.kind == ArchKind::vq_conflict) {
        if (op["w"])
          throw InputError(
              fmt::format("{}: VQ weights are given as codebooks and indices, not w (no quantiser "
                          "from float weights)",
                          arch.name));
        const std::string cp = file_of(r.text(op["codebooks"], where + ".codebooks"));
        const std::string ip = file_of(r.text(op["indices"], where + ".indices"));
        const NpyArray cb = read_npy(cp), idx = read_npy(ip);
        const VqMatrix w = vq_from_npy(cb, cp, idx, ip, k, n, arch);
        std::vector<half_bits> xh;
        for (double v : xv) xh.push_back(float_to_half(static_cast<float>(v)));
        packed.push_back(pack_vq_op(arch, w, xh, m));
      } else {
        if (op["codebooks"] || op["indices"])
          throw InputError(fmt::format("{}: dense weights are given as w, not codebooks and indices", arch.name));
        const std::string wp = file_of(r.text(op["w"], where + ".w"));
        const NpyArray w = read_npy(wp);
        if (w.shape != std::vector<std::uint64_t>{k, n})
          throw InputError(
              fmt::format("{}: shape ({}): expected (K, N) = ({}, {})", wp, fmt::join(w.shape, ", "), k, n));
        packed.push_back(pack_dense_op(arch, to_float(xv), to_float(npy_floats(w, wp)), m, n, k));
      }
      archs.push_back(arch.name);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {} ({}): {}", spec_path, where, name, e.what()));
    }
    names.push_back(name);
  }

  std::vector<eva_image_op_t> ops;
  const std::vector<ImageSegment> segments = layout_image(packed, ops, base, table_addr);
  const std::vector<std::uint8_t> image = encode_image(segments);
  nlohmann::json j;
  j["format"] = "EVAIMG01";
  j["version"] = EVA_IMAGE_FILE_VERSION;
  j["image"] = std::filesystem::path(out).filename().string();
  j["table_addr"] = hex(table_addr);
  j["segments"] = nlohmann::json::array();
  for (const ImageSegment& seg : segments)
    j["segments"].push_back({{"address", hex(seg.address)}, {"length", seg.bytes.size()}});
  j["ops"] = nlohmann::json::array();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const eva_image_op_t& o = ops[i];
    const PackedOp& p = packed[i];
    j["ops"].push_back({{"name", names[i]},
                        {"arch", archs[i]},
                        {"arch_code", o.arch},
                        {"m", o.m},
                        {"n", o.n},
                        {"k", o.k},
                        {"format", p.format},
                        {"act_addr", hex(o.act_addr)},
                        {"act_bytes", p.activations.size()},
                        {"weight_addr", hex(o.weight_addr)},
                        {"weight_bytes", p.weights.size()},
                        {"codebook_addr", hex(o.codebook_addr)},
                        {"codebook_bytes", p.codebooks.size()},
                        {"out_addr", hex(o.out_addr)},
                        {"out_bytes", p.out_bytes},
                        {"ref_addr", hex(o.ref_addr)},
                        {"ref_checksum", fmt::format("{:#018x}", o.ref_checksum)},
                        {"tolerance_q24", o.tolerance_q24},
                        {"tolerance", std::ldexp(static_cast<double>(o.tolerance_q24), -24)}});
  }
  write_file_atomic(out, std::string(image.begin(), image.end()));
  write_file_atomic(manifest, j.dump(2) + "\n");
  std::cout << fmt::format("packed {} ops into {} ({} segments, {} bytes); manifest {}\n", ops.size(), out,
                           segments.size(), image.size(), manifest);
  return 0;
}

}  // namespace eva
