#include "npy.hpp"

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "common/error.hpp"

namespace eva {

std::size_t NpyArray::item_bytes() const { return static_cast<std::size_t>(std::stoul(dtype.substr(2))); }

bool NpyArray::is_integer() const {
  return dtype.size() >= 3 && (dtype[1] == 'i' || dtype[1] == 'u') && (dtype[0] == '<' || dtype[0] == '|');
}

std::int64_t NpyArray::integer(std::uint64_t i) const {
  const std::size_t n = item_bytes();
  std::uint64_t raw = 0;
  std::memcpy(&raw, data.data() + i * n, n);  // little-endian host
  if (dtype[1] == 'u' || n == 8) return static_cast<std::int64_t>(raw);
  const std::uint64_t sign = 1ull << (8 * n - 1);
  return static_cast<std::int64_t>((raw ^ sign) - sign);
}

std::uint16_t NpyArray::half(std::uint64_t i) const {
  std::uint16_t h;
  std::memcpy(&h, data.data() + i * 2, 2);
  return h;
}

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open file", path));
  const auto bad = [&](const std::string& what) { return InputError(fmt::format("{}: not a valid .npy file: {}", path, what)); };
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw bad("missing the \\x93NUMPY magic");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t header_len = 0;
  if (major == 1) {
    unsigned char l[2];
    if (!in.read(reinterpret_cast<char*>(l), 2)) throw bad("truncated header");
    header_len = l[0] | (l[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char l[4];
    if (!in.read(reinterpret_cast<char*>(l), 4)) throw bad("truncated header");
    header_len = l[0] | (l[1] << 8) | (l[2] << 16) | (static_cast<std::uint32_t>(l[3]) << 24);
  } else {
    throw bad(fmt::format("format version {} (expected 1, 2 or 3)", major));
  }
  if (header_len > (1u << 20)) throw bad("header too long");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) throw bad("truncated header");

  NpyArray a;
  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([^']+)')"))) throw bad("no 'descr' in the header");
  a.dtype = m[1];
  if (!std::regex_search(header, m, std::regex(R"('fortran_order'\s*:\s*(True|False))")))
    throw bad("no 'fortran_order' in the header");
  if (m[1] == "True") throw InputError(fmt::format("{}: Fortran-ordered arrays are not supported (save with C order)", path));
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))"))) throw bad("no 'shape' in the header");
  std::stringstream dims(m[1].str());
  std::string dim;
  while (std::getline(dims, dim, ',')) {
    dim.erase(0, dim.find_first_not_of(" \t"));
    dim.erase(dim.find_last_not_of(" \tL") + 1);
    if (dim.empty()) continue;
    if (dim.find_first_not_of("0123456789") != std::string::npos) throw bad("shape '" + m[1].str() + "'");
    a.shape.push_back(std::stoull(dim));
  }
  static const std::regex supported(R"([<|]([iu][1248]|f2|f4|f8))");
  if (!std::regex_match(a.dtype, supported))
    throw InputError(fmt::format("{}: dtype '{}' is not supported (little-endian integers or floats)", path, a.dtype));
  const std::uint64_t bytes = a.count() * a.item_bytes();
  if (bytes > (1ull << 34)) throw InputError(fmt::format("{}: array of {} bytes is too large", path, bytes));
  a.data.resize(bytes);
  if (bytes && !in.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(bytes)))
    throw InputError(fmt::format("{}: truncated data: expected {} bytes for shape ({}) of {}", path, bytes,
                                 fmt::join(a.shape, ", "), a.dtype));
  return a;
}

std::string npy_bytes(const std::string& dtype, const std::vector<std::uint64_t>& shape, const void* data,
                      std::size_t bytes) {
  std::string dims;
  for (auto s : shape) dims += std::to_string(s) + ",";
  if (shape.size() > 1) dims.pop_back();
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", dtype, dims);
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(static_cast<const char*>(data), bytes);
  return out;
}

std::string npy_float32(const std::vector<std::uint64_t>& shape, const std::vector<float>& values) {
  return npy_bytes("<f4", shape, values.data(), values.size() * sizeof(float));
}

}  // namespace eva
