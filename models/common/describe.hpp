#pragma once
// The elaborated module tree under a set of roots and every TLM socket
// binding in it, read from the SystemC hierarchy itself (not from a list kept
// by hand): what `eva-sim describe` prints.
//
// A binding is found through the backward path: an initiator socket's
// backward export is bound to the interface that each target socket's
// backward port holds, one per initiator (multi-target sockets included).
#include <string>
#include <vector>

#include <systemc>

namespace eva {

struct SocketBinding {
  std::string initiator, target;  // full hierarchical names
};

// Every initiator-to-target socket binding among the roots' descendants.
std::vector<SocketBinding> socket_bindings(const std::vector<const sc_core::sc_object*>& roots);

// The module tree, indented, each module with its C++ type, each socket with
// its role and what it is bound to ("unbound" for an optional socket).
std::string describe_tree(const std::vector<const sc_core::sc_object*>& roots);

}  // namespace eva
