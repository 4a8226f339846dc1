// PTX -> machine lowering: from the oracle's decoded program (docs/machine.md §2).
#pragma once

#include <string>

#include "qgpu/interp/program.h"
#include "qgpu/machine/isa.h"

namespace qgpu::machine {

/// Lowers the .entry `entry`. Throws qgpu::Error(ErrorKind::Decode) whose message starts with
/// "not lowerable to the machine:" and names the PTX instruction (file:line and text) and why.
MachineProgram lowerKernel(const Program& program, const std::string& entry);

}  // namespace qgpu::machine
