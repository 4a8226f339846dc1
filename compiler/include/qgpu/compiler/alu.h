// The machine step's integer ALU joined on the operand select (docs/machine.md §5.2, rows
// 12–38 for the integer ops): ADD and SUB on one 64-bit adder, the logic ops (AND OR XOR NOT
// MOV SELP), SETP for every compare code, width and signedness, SHFL — each lane's result cut to
// the op's width and summed into one result channel per bit (the result select), 0 for any
// other op — and the guard's active mask, from the tokens alone.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/compiler/operand_select.h"
#include "qgpu/compiler/units.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

struct AluWires {
  std::vector<Bus> result;  // per lane, 64 bits: the op's result cut to its width; 0 for an op the ALU lacks
  Bus active;               // the running lanes whose guard holds (machine::guardedMask)
  Bus shuffleUndefined;     // per lane: a SHFL reads a lane that does not take part (the machine's error)
};
/// The ALU on the front end's and operand select's wires.
AluWires buildAlu(Circuit& c, const FrontWires& front, const OperandWires& operands);

/// Declares the ALU's outputs (aluUnit's order: each lane's result, the active lanes, SHFL's
/// undefined lanes, the fetched word) and returns them as one lane's results.
LaneBuses outputAlu(Circuit& c, const FrontWires& front, const AluWires& alu);

/// The ops whose results the ALU computes.
bool aluOp(machine::MOp op);

/// The front end, the operand select and the ALU. Inputs: frontInputs'. Outputs: each lane's
/// result (4 × 64 bits), the active lanes (4), SHFL's undefined lanes (4), the fetched word (64).
Unit aluUnit();
constexpr uint32_t kAluOutputs = 4 * 64 + 4 + 4 + 64;

}  // namespace qgpu::compiler
