// The machine's memory as slot memory, its loads and its stores (docs/machine.md §5.3): four
// lane copies of 64 banks (DeltaNet heads) of 128 one-byte slots, byte x in bank x mod 64,
// slot (x / 64) mod 128 — the launch's memory laid out so that its addresses are distinct
// modulo 8 KiB (§1.3). The prompt's SEGMENT chunks and the stores write every copy (a
// `.local` store its lane's own); an LD reads, per lane, its own copy at the flat address
// a + b, and sign- or zero-extends the bytes to the register width — from the tokens alone.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/compiler/operand_select.h"
#include "qgpu/compiler/step_front.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// The banks, written by the prompt's segments and by stores (lane-serial: at a store's
/// position the (W + 1)-th active lane's bytes, W the WAITs read since the step began), read
/// by an LD (lane l from copy l). `active`: the running lanes whose guard holds
/// (guardedLanes); `waits`: countWaits'. Returns per lane the loaded value, extended to the
/// register width (64 bits; 0 where the step is no LD).
std::vector<Bus> buildMemoryAccess(Circuit& c, const FrontWires& front, const OperandWires& operands, const Bus& active,
                                   const Bus& waits);

/// The front end, the operand select and the memory. Inputs: frontInputs'. Outputs: each
/// lane's loaded value (4 × 64 bits).
Unit memoryAccessUnit();
constexpr uint32_t kMemoryAccessOutputs = 4 * 64;

}  // namespace qgpu::compiler
