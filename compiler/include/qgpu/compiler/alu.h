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
  // Per lane, the same result packed four bits to a channel (16 channels), accumulated unit by
  // unit at each one's level (accumulatePacked), for readers far below: the joined step's
  // result select. Neither form costs anything unless read.
  std::vector<PackedBits> packed;
  Bus active;               // the running lanes whose guard holds (machine::guardedMask)
  Bus shuffleUndefined;     // per lane: a SHFL reads a lane that does not take part (the machine's error)
};
/// The shifter (shifter.cpp): SHR and SHL of 4- and 8-byte operands, SHF (left, right), per
/// lane the result terms of each of the 64 bits (0 unless the op runs and the bit lies within
/// its width), at stagesAt's level + 3. Its amount is decoded one level after amountAt (c's
/// read), its stages wait for stagesAt.
struct ShifterWires {
  std::vector<std::vector<Expr>> result;  // [lane][bit]
};
ShifterWires buildShifter(Circuit& c, const Bus& word, const OperandWires& operands, WireId amountAt, WireId stagesAt);

/// NEG (any width) and CVTI without .sat (int_unary.cpp): per lane one exclusiveOr wire per
/// result bit (0 unless the op runs and the bit lies within its widths), two levels after
/// selectorsAt's; the word's width fields are decoded after fieldsAt.
std::vector<Bus> buildIntUnary(Circuit& c, const Bus& word, const OperandWires& operands, WireId fieldsAt,
                               WireId selectorsAt);

/// The ALU on the front end's and operand select's wires.
AluWires buildAlu(Circuit& c, const FrontWires& front, const OperandWires& operands);

/// Declares the ALU's outputs (aluUnit's order: each lane's result, the active lanes, SHFL's
/// undefined lanes) and returns them as one lane's results. (Not the fetched word: an output
/// keeps its channels to the last layer, and the joined step has none to spare there.)
LaneBuses outputAlu(Circuit& c, const AluWires& alu);

/// Whether the ALU computes this instruction's result (else its result is 0): ADD SUB, the
/// logic ops, SETP, SELP, SHFL, SHF, NEG; MULLO MULHI MULWIDE MADLO of 4-byte operands, SHR
/// and SHL of 4 or 8 bytes, CVTI without .sat.
bool aluComputes(const machine::MInstr& in);

/// The front end, the operand select and the ALU. Inputs: frontInputs'. Outputs: each lane's
/// result (4 × 64 bits), the active lanes (4), SHFL's undefined lanes (4).
Unit aluUnit();
constexpr uint32_t kAluOutputs = 4 * 64 + 4 + 4;

}  // namespace qgpu::compiler
