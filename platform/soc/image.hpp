#pragma once
// Memory images (docs/MEMORY-LAYOUT.md, "Memory image"; eva_image.h): the
// segments a loader copies into system memory, decoded by the packing
// library (pack/image.hpp). The first segment is the op table.
#include <cstdint>
#include <string>
#include <vector>

#include "pack/image.hpp"

namespace eva::soc {

struct MemoryImage {
  std::vector<ImageSegment> segments;
  std::uint64_t table_address() const { return segments.empty() ? 0 : segments.front().address; }
};

// Reads an image file; InputError (one line, naming the file) if it is not
// one, or if its first segment is not an op table.
MemoryImage read_image(const std::string& path);

}  // namespace eva::soc
