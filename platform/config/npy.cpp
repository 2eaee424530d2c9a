#include "config/npy.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "common/error.hpp"

namespace eva {

namespace {

// The bytes from the stream's position to its end, if it can seek.
std::optional<std::uint64_t> bytes_left(std::ifstream& in) {
  const std::streampos at = in.tellg();
  if (at == std::streampos(-1)) return std::nullopt;
  in.seekg(0, std::ios::end);
  const std::streampos end = in.tellg();
  in.clear();
  in.seekg(at);
  if (end == std::streampos(-1) || end < at) return std::nullopt;
  return static_cast<std::uint64_t>(end - at);
}

}  // namespace

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
  const auto bad = [&](const std::string& what) {
    return InputError(fmt::format("{}: not a valid .npy file: {}", path, what));
  };
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
  // The header is a Python dict literal: find each key's value after its colon.
  const auto value_of = [&](const std::string& key) {
    const auto at = header.find("'" + key + "'");
    if (at == std::string::npos) throw bad("no '" + key + "' in the header");
    auto v = header.find(':', at);
    if (v != std::string::npos) v = header.find_first_not_of(" \t", v + 1);
    if (v == std::string::npos) throw bad("no value for '" + key + "'");
    return v;
  };
  const auto descr = value_of("descr");
  const auto descr_end = header.find('\'', descr + 1);
  if (header[descr] != '\'' || descr_end == std::string::npos) throw bad("'descr' is not a string");
  a.dtype = header.substr(descr + 1, descr_end - descr - 1);
  const auto order = value_of("fortran_order");
  if (header.compare(order, 4, "True") == 0)
    throw InputError(fmt::format("{}: Fortran-ordered arrays are not supported (save with C order)", path));
  if (header.compare(order, 5, "False") != 0) throw bad("'fortran_order' is neither True nor False");
  const auto shape = value_of("shape");
  const auto shape_end = header.find(')', shape);
  if (header[shape] != '(' || shape_end == std::string::npos) throw bad("'shape' is not a tuple");
  const std::string tuple = header.substr(shape + 1, shape_end - shape - 1);
  std::stringstream dims(tuple);
  std::string dim;
  while (std::getline(dims, dim, ',')) {
    dim.erase(0, dim.find_first_not_of(" \t"));
    dim.erase(dim.find_last_not_of(" \tL") + 1);
    if (dim.empty()) continue;
    if (dim.find_first_not_of("0123456789") != std::string::npos) throw bad("shape (" + tuple + ")");
    std::uint64_t size = 0;
    if (std::from_chars(dim.data(), dim.data() + dim.size(), size).ec != std::errc())
      throw bad("shape: dimension " + dim + " is beyond 2^64 - 1");
    a.shape.push_back(size);
  }
  const bool supported =
      a.dtype.size() == 3 && (a.dtype[0] == '<' || a.dtype[0] == '|') &&
      (((a.dtype[1] == 'i' || a.dtype[1] == 'u') && std::string("1248").find(a.dtype[2]) != std::string::npos) ||
       (a.dtype[1] == 'f' && std::string("248").find(a.dtype[2]) != std::string::npos));
  if (!supported)
    throw InputError(fmt::format("{}: dtype '{}' is not supported (little-endian integers or floats)", path, a.dtype));
  // The size, refused beyond 2^34 bytes before the product can wrap around
  // (a zero dimension makes the array empty whatever the others are).
  constexpr std::uint64_t max_bytes = 1ull << 34;
  std::uint64_t bytes = a.item_bytes();
  if (std::find(a.shape.begin(), a.shape.end(), 0) != a.shape.end()) bytes = 0;
  for (const std::uint64_t s : a.shape) {
    if (bytes && s > max_bytes / bytes)
      throw InputError(fmt::format("{}: shape ({}) of {} is too large (at most 2^34 bytes)", path,
                                   fmt::join(a.shape, ", "), a.dtype));
    bytes *= s;
  }
  const auto truncated = [&] {
    return InputError(fmt::format("{}: truncated data: expected {} bytes for shape ({}) of {}", path, bytes,
                                  fmt::join(a.shape, ", "), a.dtype));
  };
  // A header may claim more than the file holds: check before allocating
  // (where the file can tell its size; a pipe cannot).
  if (const auto left = bytes_left(in); left && *left < bytes) throw truncated();
  a.data.resize(bytes);
  if (bytes && !in.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(bytes))) throw truncated();
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
