#pragma once
// Built-in presets compiled into the binary (see cmake/embed_files.cmake):
// path relative to the source root -> file text.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace eva {

const std::map<std::string, std::string_view>& builtin_files();

// The names of the built-in files in `dir` ending in `ext`, without either
// ("platform/configs/archs/", ".yaml" -> "eva", "sa", ...).
inline std::vector<std::string> builtin_names(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  for (const auto& [path, text] : builtin_files())
    if (path.compare(0, dir.size(), dir) == 0 && path.size() > dir.size() + ext.size() &&
        path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
      out.push_back(path.substr(dir.size(), path.size() - dir.size() - ext.size()));
  return out;
}

}  // namespace eva
