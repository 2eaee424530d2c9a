#pragma once
// Blocking queue and counting slots for SystemC threads that run inside one
// accelerator (fetch, compute, store). Built on sc_event only, so they may be
// created while the simulation runs, unlike sc_fifo.
#include <deque>

#include <systemc>

namespace eva {

template <class T>
class EventQueue {
 public:
  void push(T value) {
    m_items.push_back(std::move(value));
    m_changed.notify(sc_core::SC_ZERO_TIME);
  }
  T pop() {
    while (m_items.empty()) sc_core::wait(m_changed);
    T value = std::move(m_items.front());
    m_items.pop_front();
    return value;
  }

 private:
  std::deque<T> m_items;
  sc_core::sc_event m_changed;
};

class Slots {
 public:
  explicit Slots(std::uint64_t count) : m_free(count) {}
  void acquire() {
    while (m_free == 0) sc_core::wait(m_released);
    --m_free;
  }
  void release() {
    ++m_free;
    m_released.notify(sc_core::SC_ZERO_TIME);
  }

 private:
  std::uint64_t m_free;
  sc_core::sc_event m_released;
};

}  // namespace eva
