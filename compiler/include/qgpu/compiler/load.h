// The machine's memory as slot memory and its loads (docs/machine.md §5.3): four lane copies
// of 64 banks (DeltaNet heads) of 128 one-byte slots, byte x in bank x mod 64, slot
// (x / 64) mod 128 — the launch's memory laid out so that its addresses are distinct
// modulo 8 KiB (§1.3). The prompt's SEGMENT chunks write every copy; an LD reads, per lane,
// its own copy at the flat address a + b, and sign- or zero-extends the bytes to the
// register width, from the tokens alone.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/compiler/operand_select.h"
#include "qgpu/compiler/step_front.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// The banks written by the prompt's segments (every copy) and read by an LD (lane l from
/// copy l): per lane the loaded value, extended to the register width (64 bits; 0 where the
/// step is no LD).
std::vector<Bus> buildLoad(Circuit& c, const FrontWires& front, const OperandWires& operands);

/// The front end, the operand select and the loads. Inputs: frontInputs'. Outputs: each
/// lane's loaded value (4 × 64 bits).
Unit loadUnit();
constexpr uint32_t kLoadOutputs = 4 * 64;

}  // namespace qgpu::compiler
