// Reconvergence points for SIMT execution.
#pragma once

#include "qgpu/interp/program.h"

namespace qgpu {

/// Sets Instr::reconverge of every branch in `f` to the first pc of the
/// immediate post-dominator of the branch's basic block (kExitPc when that is
/// the function's exit).
void computeReconvergence(Program& program, const FunctionInfo& f);

}  // namespace qgpu
