#include "fuzz_common.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace eva::fuzz {

namespace {

class TempDir {
 public:
  // $TMPDIR, else /dev/shm: memory, where rewriting a file per input costs
  // little (on a disk it can cost milliseconds), else /tmp.
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::error_code ec;
    const std::string parent = tmp && *tmp ? tmp : std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : "/tmp";
    std::string pattern = parent + "/eva-fuzz-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
      std::perror("fuzz: cannot create a temporary directory");
      std::abort();
    }
    m_path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

}  // namespace

std::string input_file(const std::uint8_t* data, std::size_t size, const std::string& name) {
  static const TempDir dir;
  const std::string path = dir.path() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

void violated(const std::string& what) {
  std::fprintf(stderr, "fuzz: %s\n", what.c_str());
  std::abort();
}

}  // namespace eva::fuzz
