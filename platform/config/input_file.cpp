#include "config/input_file.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common/error.hpp"

namespace eva {

std::string read_input_file(const std::string& path, std::uint64_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(fmt::format("{}: is a directory, not a file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open file", path));
  // In chunks, so that a file without an end (a device, a pipe) stops at the
  // limit rather than at the end of memory.
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw InputError(fmt::format("{}: larger than {} MiB, the limit for an input file", path, max_bytes >> 20));
  }
  if (in.bad()) throw InputError(fmt::format("{}: cannot read file", path));
  return text;
}

}  // namespace eva
