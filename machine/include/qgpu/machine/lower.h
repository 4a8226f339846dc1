// PTX -> machine lowering: from the oracle's decoded program (docs/machine.md §2).
#pragma once

#include <optional>
#include <string>

#include "qgpu/interp/launch.h"
#include "qgpu/interp/program.h"
#include "qgpu/machine/isa.h"

namespace qgpu::machine {

/// The grid and block a lowering is for (docs/machine.md §2.1, "special registers").
struct LaunchShape {
  Dim3 grid, block;
};

struct LowerOptions {
  /// Renumber the registers by liveness (§2.5). Off: one machine register per PTX register
  /// and temporary, which the register-allocation tests compare against.
  bool allocateRegisters = true;
  /// The launch the program will run: its sizes become ROM constants and %tid/%ctaid are
  /// computed from the linear thread and block index (wiring in the compiled machine) at the
  /// kernel's start, by shifts and masks or a multiply by a reciprocal. Without it the
  /// program reads the launch's special registers, which the executor has and the compiled
  /// machine does not.
  std::optional<LaunchShape> launch;
  /// The launch's dynamic shared memory: the windows are laid out for it (windowLayout).
  uint32_t dynamicSharedBytes = 0;
  /// The f64 micro-codes (add/sub, mul, div/rcp, sqrt, fma, cvt.f32.f64) as one shared
  /// routine per form, called from each use (CALL/END, docs/machine.md §2.1), instead of
  /// inline. lowerKernel falls back to it by itself when a kernel inlined would not fit the
  /// ROM; set, it is used from the start (tests).
  bool shareMicroCode = false;
};

/// The options a run of a launch of this grid and block is lowered with (what --backend
/// machine and the compiled machine run).
inline LowerOptions lowerFor(const Dim3& grid, const Dim3& block, uint32_t dynamicSharedBytes = 0) {
  LowerOptions o;
  o.launch = LaunchShape{grid, block};
  o.dynamicSharedBytes = dynamicSharedBytes;
  return o;
}

/// Lowers the .entry `entry`. Throws qgpu::Error(ErrorKind::Decode) whose message starts with
/// "not lowerable to the machine:" and names the PTX instruction (file:line and text) and why.
MachineProgram lowerKernel(const Program& program, const std::string& entry, const LowerOptions& options = {});

}  // namespace qgpu::machine
