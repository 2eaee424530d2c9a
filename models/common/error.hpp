#pragma once
// Errors that decide eva-sim's exit code: InputError is the user's (exit 2),
// anything else is ours (exit 1).
#include <stdexcept>
#include <string>

namespace eva {

// Bad input or usage. The message is one line naming the file, key or value at
// fault and what was expected.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace eva
