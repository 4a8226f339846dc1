// The compiler's one error type: a circuit that cannot be built, scheduled, allocated
// or proven exact. Messages name the unit, the gate (node) and the layer.
#pragma once

#include <stdexcept>
#include <string>

namespace qgpu::compiler {

class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace qgpu::compiler
