#pragma once
// Timeline spans for `run --trace`: modules say what they did and when, the
// platform that owns them collects it and writes Chrome trace-event JSON
// (opens in ui.perfetto.dev and chrome://tracing). Off unless a Timeline is
// attached to a module's top-level parent; then a module's report costs one
// lookup, and off it costs one test.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <systemc>

namespace eva {

class Timeline {
 public:
  // Keeps at most `max_spans` unit spans (operation spans are always kept);
  // later ones are counted as dropped.
  explicit Timeline(std::uint64_t max_spans) : m_max(max_spans) {}

  // A span on `track`; spans of one track follow each other.
  void span(std::string_view track, std::string name, const sc_core::sc_time& start, const sc_core::sc_time& end);
  // An interval that may overlap others of its track (DMA transfers).
  void interval(std::string_view track, std::string name, const sc_core::sc_time& start, const sc_core::sc_time& end);
  // An operation of the platform: on the "ops" track, never dropped.
  void op(std::string name, const sc_core::sc_time& start, const sc_core::sc_time& end);

  std::uint64_t spans() const { return m_events.size(); }
  std::uint64_t dropped() const { return m_dropped; }
  // This timeline's trace events as process `pid` named `process`: a thread
  // per track (ops first), times in microseconds; comma-separated, for
  // trace_json.
  std::string events_json(int pid, const std::string& process) const;

  // Makes `t` the timeline of every module under `root` (nullptr: none).
  static void attach(const sc_core::sc_object& root, Timeline* t);
  // The timeline of the tree `obj` belongs to, or nullptr.
  static Timeline* of(const sc_core::sc_object& obj);

 private:
  struct Event {
    std::uint32_t track;
    bool overlapping;
    std::string name;
    std::uint64_t start_ps, end_ps;
  };
  std::uint32_t track_id(std::string_view track, bool overlapping);
  void add(std::string_view track, bool overlapping, std::string name, const sc_core::sc_time& start,
           const sc_core::sc_time& end, bool capped);

  std::uint64_t m_max;
  std::uint64_t m_units = 0;  // unit spans kept
  std::uint64_t m_dropped = 0;
  std::vector<std::string> m_tracks;
  std::vector<bool> m_overlapping;  // per track: intervals (no thread of their own)
  std::vector<Event> m_events;
};

// A whole trace-event JSON file of several timelines, one process each;
// the metadata counts their spans and dropped spans.
std::string trace_json(const std::vector<std::pair<std::string, const Timeline*>>& processes);

}  // namespace eva
