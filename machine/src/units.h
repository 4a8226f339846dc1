// Functional units: the per-lane arithmetic of every machine op that computes a value from
// its operands alone (docs/machine.md §1.4). Pure functions of the instruction and operand
// bits, written for the machine (they do not call the oracle's handlers).
#pragma once

#include <cstdint>

#include "qgpu/machine/isa.h"

namespace qgpu::machine {

/// Bytes of the destination register a step writes (also the width of its tokens).
uint32_t writeBytes(const MInstr& in);

/// Result of a lane-local op (everything but LD/ST/SHFL/VOTE/BAR/BRA/EXIT), masked to
/// writeBytes(in). Throws qgpu::Error(Undefined) where PTX leaves the result undefined.
uint64_t computeLane(const MInstr& in, uint64_t a, uint64_t b, uint64_t c);

uint64_t widthMask(uint32_t bytes);

/// New memory value of an atomic (ATOM/ATOMS) given the old one and the operands.
uint64_t atomicResult(const MInstr& in, uint64_t old, uint64_t b, uint64_t c);

}  // namespace qgpu::machine
