// PTX -> machine lowering: from the oracle's decoded program (docs/machine.md §2).
#pragma once

#include <string>

#include "qgpu/interp/program.h"
#include "qgpu/machine/isa.h"

namespace qgpu::machine {

struct LowerOptions {
  /// Renumber the registers by liveness (§2.5). Off: one machine register per PTX register
  /// and temporary, which the register-allocation tests compare against.
  bool allocateRegisters = true;
};

/// Lowers the .entry `entry`. Throws qgpu::Error(ErrorKind::Decode) whose message starts with
/// "not lowerable to the machine:" and names the PTX instruction (file:line and text) and why.
MachineProgram lowerKernel(const Program& program, const std::string& entry, const LowerOptions& options = {});

}  // namespace qgpu::machine
