#include "common/timeline.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace eva {

namespace {

std::map<const sc_core::sc_object*, Timeline*>& attached() {
  static std::map<const sc_core::sc_object*, Timeline*> m;
  return m;
}

std::uint64_t to_ps(const sc_core::sc_time& t) { return static_cast<std::uint64_t>(t.to_seconds() * 1e12 + 0.5); }

// A JSON string literal.
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

void Timeline::attach(const sc_core::sc_object& root, Timeline* t) {
  if (t)
    attached()[&root] = t;
  else
    attached().erase(&root);
}

Timeline* Timeline::of(const sc_core::sc_object& obj) {
  auto& m = attached();
  if (m.empty()) return nullptr;
  const sc_core::sc_object* o = &obj;
  while (o->get_parent_object()) o = o->get_parent_object();
  const auto it = m.find(o);
  return it == m.end() ? nullptr : it->second;
}

std::uint32_t Timeline::track_id(std::string_view track, bool overlapping) {
  const auto it = std::find(m_tracks.begin(), m_tracks.end(), track);
  if (it != m_tracks.end()) return static_cast<std::uint32_t>(it - m_tracks.begin());
  m_tracks.emplace_back(track);
  m_overlapping.push_back(overlapping);
  return static_cast<std::uint32_t>(m_tracks.size() - 1);
}

void Timeline::add(std::string_view track, bool overlapping, std::string name, const sc_core::sc_time& start,
                   const sc_core::sc_time& end, bool capped) {
  if (capped) {
    if (m_units == m_max) {
      ++m_dropped;
      return;
    }
    ++m_units;
  }
  m_events.push_back(
      Event{track_id(track, overlapping), overlapping, std::move(name), to_ps(start), to_ps(std::max(start, end))});
}

void Timeline::span(std::string_view track, std::string name, const sc_core::sc_time& start,
                    const sc_core::sc_time& end) {
  add(track, false, std::move(name), start, end, true);
}

void Timeline::interval(std::string_view track, std::string name, const sc_core::sc_time& start,
                        const sc_core::sc_time& end) {
  add(track, true, std::move(name), start, end, true);
}

void Timeline::op(std::string name, const sc_core::sc_time& start, const sc_core::sc_time& end) {
  add("ops", false, std::move(name), start, end, false);
}

std::string Timeline::events_json(int pid, const std::string& process) const {
  // Tracks in order of first use, "ops" on top.
  std::vector<std::uint32_t> order(m_tracks.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](std::uint32_t t) { return m_tracks[t] == "ops"; });
  std::string out =
      fmt::format(R"({{"ph": "M", "pid": {}, "name": "process_name", "args": {{"name": {}}}}})", pid, quoted(process));
  for (std::uint32_t rank = 0; rank < order.size(); ++rank) {
    const std::uint32_t t = order[rank];
    if (m_overlapping[t]) continue;  // async slices: Perfetto gives them tracks of their own
    out += fmt::format(
        ",\n{{\"ph\": \"M\", \"pid\": {}, \"tid\": {}, \"name\": \"thread_name\", \"args\": {{\"name\": {}}}}}", pid,
        t + 1, quoted(m_tracks[t]));
    out += fmt::format(
        ",\n{{\"ph\": \"M\", \"pid\": {}, \"tid\": {}, \"name\": \"thread_sort_index\", \"args\": {{\"sort_index\": "
        "{}}}}}",
        pid, t + 1, rank);
  }
  std::vector<std::size_t> by_start(m_events.size());
  for (std::size_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](std::size_t a, std::size_t b) { return m_events[a].start_ps < m_events[b].start_ps; });
  const auto us = [](std::uint64_t ps) { return fmt::format("{:.6f}", static_cast<double>(ps) * 1e-6); };
  for (const std::size_t i : by_start) {
    const Event& e = m_events[i];
    if (e.overlapping) {  // an async begin and end with their own id
      const std::string common = fmt::format(R"("pid": {}, "cat": {}, "id": {}, "name": {})", pid,
                                             quoted(m_tracks[e.track]), i, quoted(m_tracks[e.track]));
      out += fmt::format(",\n{{\"ph\": \"b\", {}, \"ts\": {}, \"args\": {{\"what\": {}}}}}", common, us(e.start_ps),
                         quoted(e.name));
      out += fmt::format(",\n{{\"ph\": \"e\", {}, \"ts\": {}}}", common, us(e.end_ps));
    } else {
      out += fmt::format(",\n{{\"ph\": \"X\", \"pid\": {}, \"tid\": {}, \"name\": {}, \"ts\": {}, \"dur\": {}}}", pid,
                         e.track + 1, quoted(e.name), us(e.start_ps), us(e.end_ps - e.start_ps));
    }
  }
  return out;
}

std::string trace_json(const std::vector<std::pair<std::string, const Timeline*>>& processes) {
  std::string out = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  std::uint64_t spans = 0, dropped = 0;
  int pid = 1;
  for (const auto& [name, t] : processes) {
    if (pid > 1) out += ",\n";
    out += t->events_json(pid++, name);
    spans += t->spans();
    dropped += t->dropped();
  }
  out += fmt::format("\n], \"metadata\": {{\"spans\": {}, \"dropped_spans\": {}}}}}\n", spans, dropped);
  return out;
}

}  // namespace eva
