#pragma once
// NumPy .npy files (format versions 1 to 3, little-endian, C order): the
// arrays of `eva-sim vq-gemv`. Every problem is an InputError naming the file.
#include <cstdint>
#include <string>
#include <vector>

namespace eva {

struct NpyArray {
  std::string dtype;  // as in the header: "<f2", "<i4", "|u1", ...
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> data;  // raw, little-endian

  std::uint64_t count() const {
    std::uint64_t n = 1;
    for (auto s : shape) n *= s;
    return n;
  }
  std::size_t item_bytes() const;
  bool is_float16() const { return dtype == "<f2"; }
  bool is_integer() const;
  // Element i of an integer array (any width, signed or not).
  std::int64_t integer(std::uint64_t i) const;
  std::uint16_t half(std::uint64_t i) const;
};

NpyArray read_npy(const std::string& path);
// float32 data of the given shape.
std::string npy_float32(const std::vector<std::uint64_t>& shape, const std::vector<float>& values);
std::string npy_bytes(const std::string& dtype, const std::vector<std::uint64_t>& shape, const void* data,
                      std::size_t bytes);

}  // namespace eva
