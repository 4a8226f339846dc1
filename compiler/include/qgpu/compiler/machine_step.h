// The machine step joined (docs/machine.md §5.2): the front end, the operand select, the
// integer ALU, the memory (every LD, the lane-serial ST), the lane-serial float step with
// each lane's result parked until the step's last lane, one result select and one register
// write spelled — every token of the steps these units compute, and the control tokens,
// from the tokens before the position alone.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/compiler/alu.h"
#include "qgpu/compiler/float_lane.h"
#include "qgpu/compiler/register_write.h"
#include "qgpu/compiler/token_io.h"
#include "qgpu/compiler/units.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

struct MachineStepWires {
  AluWires alu;
  std::vector<Bus> loaded;     // per lane, 64 bits: an LD's value (0 for another op)
  LaneSerialFloatWires floats;  // the lane this position computes and its f32 result
  // Per lane, 32 bits: the f32 result of the lane's last float position (a one-slot bank per
  // lane, written where the position computes that lane), 0 where the datapath computes no
  // float op (floatLaneComputes).
  std::vector<Bus> parked;
  std::vector<Bus> result;  // per lane, 64 bits: ALU + LD + parked float (at most one is not 0)
  RegisterWriteWires write;
};
MachineStepWires buildMachineStep(Circuit& c, const FrontWires& front, const OperandWires& operands);

/// Whether the lane-serial float datapath computes this instruction: FMUL, FFMA, and FADD and
/// FSUB of f32.
bool floatLaneComputes(const machine::MInstr& in);
/// Whether the joined step computes this instruction's register write: the ALU's ops
/// (aluComputes), LD, and floatLaneComputes'.
bool stepComputes(const machine::MInstr& in);
/// The atomics the step computes (atomic_step.h): ATOM and ATOMS adding 4 or 8 bytes, d and c
/// registers apart from each other and from a and b, a and b registers or ROM constants.
bool atomicComputes(const machine::MInstr& in);

/// The whole step. Inputs: frontInputs'. Outputs: alu_write's order (register_write.h) with
/// each lane's result the joined one (ALU, LD or the parked float); with `head`, the token
/// outputs after them (writeTokenOutput).
Unit machineStepUnit(const TokenVocabulary* head = nullptr);

}  // namespace qgpu::compiler
