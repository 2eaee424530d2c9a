#include "common/describe.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <typeinfo>

#include <tlm>

namespace eva {

namespace {

using InitiatorSocket = tlm::tlm_base_initiator_socket_b<32, tlm::tlm_fw_transport_if<>, tlm::tlm_bw_transport_if<>>;
using TargetSocket = tlm::tlm_base_target_socket_b<32, tlm::tlm_fw_transport_if<>, tlm::tlm_bw_transport_if<>>;

std::string type_name(const sc_core::sc_object& o) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(o).name(), nullptr, nullptr, &status),
                                              std::free);
  std::string s = status == 0 && name ? name.get() : typeid(o).name();
  if (const auto lt = s.find('<'); lt != std::string::npos) s = s.substr(0, lt);  // socket templates: their class
  return s;
}

void walk(const sc_core::sc_object& o, const std::function<void(const sc_core::sc_object&, int)>& visit, int depth) {
  visit(o, depth);
  for (const sc_core::sc_object* c : o.get_child_objects()) walk(*c, visit, depth + 1);
}

}  // namespace

std::vector<SocketBinding> socket_bindings(const std::vector<const sc_core::sc_object*>& roots) {
  std::vector<const sc_core::sc_object*> initiators, targets;
  for (const sc_core::sc_object* r : roots)
    walk(
        *r,
        [&](const sc_core::sc_object& o, int) {
          if (dynamic_cast<const InitiatorSocket*>(&o)) initiators.push_back(&o);
          if (dynamic_cast<const TargetSocket*>(&o)) targets.push_back(&o);
        },
        0);
  // Forward: each initiator socket's port holds the forward interface of each
  // target it is bound to (a multi-initiator socket, one per target).
  // Backward: each target socket's port holds the backward interface of each
  // initiator bound to it (a multi-target socket, one per initiator). Either
  // finds a binding; multi-sockets put their own binders on the other path.
  std::map<const sc_core::sc_interface*, const sc_core::sc_object*> target_fw, target_of_bw;
  for (const sc_core::sc_object* t : targets) {
    const auto& socket = dynamic_cast<const TargetSocket&>(*t);
    target_fw[socket.get_base_export().get_interface()] = t;
    const auto& port = socket.get_base_port();
    for (int i = 0; i < port.size(); ++i) target_of_bw[port.get_interface(i)] = t;
  }
  std::vector<SocketBinding> out;
  for (const sc_core::sc_object* i : initiators) {
    const auto& socket = dynamic_cast<const InitiatorSocket&>(*i);
    std::vector<const sc_core::sc_object*> found;
    const auto& port = socket.get_base_port();
    for (int k = 0; k < port.size(); ++k)
      if (const auto t = target_fw.find(port.get_interface(k)); t != target_fw.end()) found.push_back(t->second);
    if (const auto t = target_of_bw.find(socket.get_base_export().get_interface()); t != target_of_bw.end())
      if (std::find(found.begin(), found.end(), t->second) == found.end()) found.push_back(t->second);
    for (const sc_core::sc_object* t : found) out.push_back({i->name(), t->name()});
  }
  return out;
}

std::string describe_tree(const std::vector<const sc_core::sc_object*>& roots) {
  std::multimap<std::string, std::string> peers;  // socket -> the sockets it is bound to
  for (const SocketBinding& b : socket_bindings(roots)) {
    peers.emplace(b.initiator, "-> " + b.target);
    peers.emplace(b.target, "<- " + b.initiator);
  }
  std::string s;
  for (const sc_core::sc_object* r : roots)
    walk(
        *r,
        [&](const sc_core::sc_object& o, int depth) {
          const bool initiator = dynamic_cast<const InitiatorSocket*>(&o) != nullptr;
          const bool target = dynamic_cast<const TargetSocket*>(&o) != nullptr;
          const bool module = dynamic_cast<const sc_core::sc_module*>(&o) != nullptr;
          if (!initiator && !target && !module) return;  // processes, events, a socket's own ports
          s += std::string(2 * static_cast<std::size_t>(depth), ' ') + o.basename();
          if (module) {
            s += "  (" + type_name(o) + ")\n";
            return;
          }
          s += initiator ? "  [initiator socket]" : "  [target socket]";
          const auto [first, last] = peers.equal_range(o.name());
          if (first == last) s += "  unbound";
          for (auto p = first; p != last; ++p) s += "  " + p->second;
          s += "\n";
        },
        0);
  return s;
}

}  // namespace eva
