#include "image.hpp"

#include <cstring>
#include <fstream>
#include <iterator>

#include "common/error.hpp"
#include "eva_image.h"

namespace eva::soc {

namespace {
std::uint64_t le(const std::vector<std::uint8_t>& b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(b[at + i]) << (8 * i);
  return v;
}
}  // namespace

MemoryImage read_image(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("image " + path + ": cannot be read");
  const std::vector<std::uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto bad = [&](const std::string& why) { return InputError("image " + path + ": " + why); };
  if (b.size() < EVA_IMAGE_FILE_HEADER_BYTES || std::memcmp(b.data(), EVA_IMAGE_FILE_MAGIC, 8) != 0)
    throw bad("not a memory image (no EVAIMG01 magic)");
  if (le(b, 8, 4) != EVA_IMAGE_FILE_VERSION) throw bad("version " + std::to_string(le(b, 8, 4)) + ", expected 1");
  const std::uint64_t count = le(b, 12, 4);
  MemoryImage image;
  std::size_t at = EVA_IMAGE_FILE_HEADER_BYTES;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (b.size() - at < EVA_IMAGE_SEGMENT_HEADER_BYTES) throw bad("segment " + std::to_string(i) + " is cut short");
    ImageSegment s;
    s.address = le(b, at, 8);
    const std::uint64_t length = le(b, at + 8, 8);
    at += EVA_IMAGE_SEGMENT_HEADER_BYTES;
    const std::uint64_t padded =
        (length + EVA_IMAGE_SEGMENT_ALIGN - 1) / EVA_IMAGE_SEGMENT_ALIGN * EVA_IMAGE_SEGMENT_ALIGN;
    if (length > b.size() || padded > b.size() - at) throw bad("segment " + std::to_string(i) + " is cut short");
    s.bytes.assign(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + length));
    at += padded;
    image.segments.push_back(std::move(s));
  }
  if (at != b.size()) throw bad(std::to_string(b.size() - at) + " bytes after the last segment");
  if (image.segments.empty()) throw bad("no segments (the first one is the op table)");
  if (image.segments.front().bytes.size() < EVA_IMAGE_TABLE_BYTES ||
      le(image.segments.front().bytes, 0, 4) != EVA_IMAGE_TABLE_MAGIC)
    throw bad("the first segment is not an op table (no EVAT magic)");
  return image;
}

}  // namespace eva::soc
