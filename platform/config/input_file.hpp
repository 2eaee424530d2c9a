#pragma once
// Reading an input file (a YAML config, a model, a sweep, a dataset, a pack
// spec) whole, with a size limit: a device such as /dev/zero, or a pipe that
// never ends, is refused once it passes the limit instead of filling memory.
#include <cstdint>
#include <string>

namespace eva {

// 64 MiB: far above any config, model or dataset file (the largest built-in
// is under 1 MiB), far below this machine's memory.
constexpr std::uint64_t max_input_file_bytes = 64ull << 20;

// The file's bytes. InputError, naming the file, when it cannot be opened or
// read, is a directory, or holds more than `max_bytes`.
std::string read_input_file(const std::string& path, std::uint64_t max_bytes = max_input_file_bytes);

}  // namespace eva
