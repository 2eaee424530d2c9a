#pragma once
// Reading an input file (a YAML config, a model, a sweep, a dataset, a pack
// spec) whole, with a size limit: a device such as /dev/zero, or a pipe that
// never ends, is refused once it passes the limit instead of filling memory.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace eva {

// 64 MiB: far above any config, model or dataset file (the largest built-in
// is under 1 MiB), far below this machine's memory.
constexpr std::uint64_t max_input_file_bytes = 64ull << 20;

// The file's text. InputError, naming the file, when it cannot be opened or
// read, is a directory, holds more than `max_bytes`, or is not UTF-8 text.
std::string read_input_file(const std::string& path, std::uint64_t max_bytes = max_input_file_bytes);

// The offset of the first byte that is not well-formed UTF-8 (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), if any. Text that
// reaches a JSON report must be UTF-8, or the report cannot be written.
std::optional<std::size_t> invalid_utf8_at(std::string_view text);

}  // namespace eva
