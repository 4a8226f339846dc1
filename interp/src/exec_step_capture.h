// Capturing a store's or atomic's effect lane by lane (executor.cpp, only
// for observed launches).
#pragma once

#include "exec_context.h"
#include "qgpu/interp/exec_step.h"

namespace qgpu {

/// Address the lane accesses; read before the lane runs (an atomic may
/// overwrite its own address register).
uint64_t storeAddress(const ExecContext& c, const Instr& in, StoreKind kind, uint32_t lane);
/// The bytes at `addr` right after the lane ran.
MemoryWrite capturedWrite(ExecContext& c, const Instr& in, StoreKind kind, uint32_t lane, uint64_t addr);

}  // namespace qgpu
