#pragma once
// Byte storage for a large address space: pages are allocated on first write,
// unwritten bytes read as zero, so a 70B model's address space costs nothing
// until it is written.
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>

namespace eva {

class SparseStorage {
 public:
  // 1 MiB pages: a DMI grant covers a page, so an initiator with DMI (a CPU)
  // asks again only once per MiB it touches.
  static constexpr std::uint64_t page_bytes = 1ull << 20;

  void read(std::uint64_t addr, std::uint8_t* dst, std::uint64_t len) const {
    while (len > 0) {
      const std::uint64_t off = addr % page_bytes;
      const std::uint64_t n = std::min(len, page_bytes - off);
      const auto it = m_pages.find(addr / page_bytes);
      if (it == m_pages.end())
        std::memset(dst, 0, n);
      else
        std::memcpy(dst, it->second->data() + off, n);
      addr += n;
      dst += n;
      len -= n;
    }
  }

  void write(std::uint64_t addr, const std::uint8_t* src, std::uint64_t len) {
    while (len > 0) {
      const std::uint64_t off = addr % page_bytes;
      const std::uint64_t n = std::min(len, page_bytes - off);
      std::memcpy(page(addr / page_bytes).data() + off, src, n);
      addr += n;
      src += n;
      len -= n;
    }
  }

  std::size_t pages_allocated() const { return m_pages.size(); }
  // The page's bytes (allocated if needed), for DMI.
  std::uint8_t* page_data(std::uint64_t index) { return page(index).data(); }

 private:
  using Page = std::array<std::uint8_t, page_bytes>;
  Page& page(std::uint64_t index) {
    auto& slot = m_pages[index];
    if (!slot) slot = std::make_unique<Page>();  // value-initialised: zeros, built on the heap
    return *slot;
  }
  std::unordered_map<std::uint64_t, std::unique_ptr<Page>> m_pages;
};

}  // namespace eva
