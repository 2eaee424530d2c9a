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
  if (const auto at = invalid_utf8_at(text))
    throw InputError(fmt::format("{}: not UTF-8 text (byte {} at offset {})", path,
                                 static_cast<unsigned>(static_cast<unsigned char>(text[*at])), *at));
  return text;
}

std::optional<std::size_t> invalid_utf8_at(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    std::size_t n = 0;  // continuation bytes
    std::uint32_t cp = 0, min = 0;
    if (b < 0x80) {
      ++i;
      continue;
    } else if ((b & 0xE0) == 0xC0) {
      n = 1, cp = b & 0x1F, min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
      n = 2, cp = b & 0x0F, min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
      n = 3, cp = b & 0x07, min = 0x10000;
    } else {
      return i;
    }
    if (i + n >= text.size()) return i;  // cut short
    for (std::size_t k = 1; k <= n; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n + 1;
  }
  return std::nullopt;
}

}  // namespace eva
