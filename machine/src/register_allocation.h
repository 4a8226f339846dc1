// Register allocation of a lowered kernel (docs/machine.md §2.5): the lowering gives every
// PTX register a machine register of its own; this pass renumbers them so that registers
// never live at the same time share one. The compiled register file keeps warps × registers
// × 4 lanes in DeltaNet slots, once per read port (docs/machine.md §5.2), so its size, not
// the ISA's 511, is what a launch must fit.
#pragma once

#include <string>

#include "qgpu/machine/isa.h"

namespace qgpu::machine {

/// Renumbers the registers of `program` (its code's d, a, b, c and guard fields, numRegs,
/// regNames) by liveness on each thread's control flow: two registers share a number only
/// if neither is live where the other is written. Every lane runs its own path of the CFG
/// and a write changes only the lanes that execute it, so each lane sees the same values as
/// before; a register read before any write still reads 0.
void allocateRegisters(MachineProgram& program);

/// The token-meaning name of a register shared by several: `name` added as the `sharers`-th
/// ("a | b | c | ..."; the first one is the name itself).
void addSharedName(std::string& names, size_t sharers, const std::string& name);

}  // namespace qgpu::machine
