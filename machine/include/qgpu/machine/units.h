// The machine's functional units (docs/machine.md §1.4): the per-lane arithmetic of every op
// that computes a value from its operands alone. Pure functions of the instruction fields and
// operand bits, written for the machine (they do not call the oracle's handlers); compilers of
// the machine's units test against them bit for bit.
#pragma once

#include <cstdint>

#include "qgpu/machine/isa.h"

namespace qgpu::machine {

/// All ones in the low `bytes` bytes (bytes >= 8: all 64 bits).
uint64_t widthMask(uint32_t bytes);

/// Bytes of the destination register a step writes (also the width of its tokens).
uint32_t writeBytes(const MInstr& in);

/// Whether `op` is lane-local, i.e. computeLane computes it (ops.def: Exec = Unit).
bool isUnitOp(MOp op);

/// Result of a lane-local op, masked to writeBytes(in). Throws qgpu::Error(Undefined) where
/// PTX leaves the result undefined, qgpu::Error(Input) for an op that is not lane-local or
/// operands the op cannot take (64-bit MULLO/MULHI/MADLO/MULWIDE are not one step).
uint64_t computeLane(const MInstr& in, uint64_t a, uint64_t b, uint64_t c);

/// One functional-unit step on operand values: op, ty and fl as in a ROM word (isa.h).
/// `destBytes` is the destination register width of the ops that take it from the c field
/// (LD, CVTI, F2I: ops.def Write = RegWidth); 0 means the ty width. Same results and errors
/// as computeLane.
uint64_t evaluateUnit(MOp op, uint8_t ty, uint8_t fl, uint64_t a, uint64_t b, uint64_t c,
                      uint32_t destBytes = 0);

/// New memory value of an atomic (ATOM/ATOMS) given the old one and the operands.
uint64_t atomicResult(const MInstr& in, uint64_t old, uint64_t b, uint64_t c);

}  // namespace qgpu::machine
