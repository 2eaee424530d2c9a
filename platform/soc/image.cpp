#include "image.hpp"

#include <fstream>
#include <iterator>

#include "common/error.hpp"
#include "eva_image.h"

namespace eva::soc {

MemoryImage read_image(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("image " + path + ": cannot be read");
  const std::vector<std::uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  MemoryImage image;
  try {
    image.segments = decode_image(b);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what() + " (not a memory image)");
  }
  const auto bad = [&](const std::string& why) { return InputError("image " + path + ": " + why); };
  if (image.segments.empty()) throw bad("no segments (the first one is the op table)");
  try {
    decode_op_table(image.segments.front().bytes);
  } catch (const InputError& e) {
    throw bad(std::string("the first segment is not an op table: ") + e.what());
  }
  return image;
}

}  // namespace eva::soc
