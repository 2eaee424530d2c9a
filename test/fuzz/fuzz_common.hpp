#pragma once
// Shared by the libFuzzer harnesses (docs/TESTING.md). The project's parsers
// read files by path, as eva-sim does, so each input is first written to a
// file in a temporary directory private to the process (removed at exit).
//
// A harness returns normally when the parser accepts its input or refuses it
// with the project's input error (eva::InputError); anything else escapes to
// libFuzzer, which reports it: a crash, a sanitizer's report, a leak, a hang
// or an exception of another type.
#include <cstddef>
#include <cstdint>
#include <string>

namespace eva::fuzz {

// Writes the input to `name` in the process's temporary directory and returns
// the file's path.
std::string input_file(const std::uint8_t* data, std::size_t size, const std::string& name);

// A finding that no sanitizer reports (a parser's result that breaks its
// contract): prints `what` and aborts, so that libFuzzer saves the input.
[[noreturn]] void violated(const std::string& what);

}  // namespace eva::fuzz
