#pragma once
// Memory images (docs/MEMORY-LAYOUT.md, "Memory image"; eva_image.h): the
// segments a loader copies into system memory. The first segment is the op
// table.
#include <cstdint>
#include <string>
#include <vector>

namespace eva::soc {

struct ImageSegment {
  std::uint64_t address = 0;
  std::vector<std::uint8_t> bytes;
};

struct MemoryImage {
  std::vector<ImageSegment> segments;
  std::uint64_t table_address() const { return segments.empty() ? 0 : segments.front().address; }
};

// Reads an image file; InputError (one line, naming the file) if it is not one.
MemoryImage read_image(const std::string& path);

}  // namespace eva::soc
