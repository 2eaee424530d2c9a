#pragma once
// Built-in presets compiled into the binary (see cmake/embed_files.cmake):
// path relative to the source root -> file text.
#include <map>
#include <string>
#include <string_view>

namespace eva {

const std::map<std::string, std::string_view>& builtin_files();

}  // namespace eva
