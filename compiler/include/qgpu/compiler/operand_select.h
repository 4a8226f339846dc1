// The machine step's operand select (docs/machine.md §5.2, row 12 of the plan) on the front
// end: each of the fetched instruction's source fields a, b, c read as the machine reads
// it — a register from the register-file copies, a ROM constant from the prompt's CONSTS
// (one attention lookup table, one query head per port), a special register from the lane,
// the warp and the block, none as 0 — for every lane, from the tokens alone.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/compiler/step_front.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// The ROM constants as a lookup table: at each constant's CHUNK-LAST in the CONSTS section an
/// entry keyed by its index (16 j from the last AT plus the constants since it, like the code
/// words' pcs), valued with the chunk run's value; read by each of `fields` (10-bit operand
/// fields) that names a constant (512 + k) where `isOperand` (a form whose values are bits)
/// is 1, 0 for any other field. Returns one 64-bit read per field.
std::vector<Bus> buildRomConstants(Circuit& c, const FrontWires& front, const std::vector<Bus>& fields,
                                   const std::vector<Expr>& isOperand);

/// The specials the compiled machine has (a program lowered for its launch reads no other,
/// docs/machine.md §2.1): the lane's own (%laneid, %lanemask_*, WARP_SZ, zero), the warp
/// (%warpid), %tid.linear (warp * 4 + lane) and %ctaid.linear (the sequencer's block).
bool compiledSpecial(uint32_t special);

/// The running lanes whose guard holds (machine::guardedMask): per lane an exclusiveOr of
/// three steps on the sequencer's mask, the guard register's read (bit 0) and the word's g
/// field, one level after the guard's read.
Bus guardedLanes(Circuit& c, const FrontWires& front);

/// The WAITs read since the last token that is none — a lane-serial step's lanes done so far,
/// W — as [W >= 1], [W >= 2], [W >= 3]: one counter (a halving head and three threshold
/// heads) that the step's lane-serial units and its control share.
Bus countWaits(Circuit& c, const FrontWires& front);

/// The lane a lane-serial step (FADD, FSUB, FMUL, FFMA, ST: docs/machine.md §5.2, §5.3) computes at
/// this position, where `op` (a form whose values are bits) is 1: the (W + 1)-th of the
/// `active` lanes, W from `waits` (countWaits). Per lane [active_l, P_l = W] (P_l the active
/// lanes below l) as a pair of thresholds per value of W, one exclusiveOr per lane, one level
/// after `active`.
/// With `also`: per lane a form whose value is a bit, 0 wherever the lane is picked, added to
/// its select (another way to pick it, in the same channel and level).
Bus serialLane(Circuit& c, const std::string& name, const Bus& waits, const Bus& active, const Expr& op,
               const std::vector<Expr>& also = {});

struct OperandWires {
  std::vector<Bus> selected;  // the operands a, b, c for every lane: [4 * port + lane], 64 bits each
  std::vector<WireId> op;     // the fetched word's op, one-hot over machine::MOp
};
OperandWires buildOperandSelect(Circuit& c, const FrontWires& front);

/// The front end with the operand select. Inputs: frontInputs'. Outputs: the operands
/// (ports a, b, c: 4 lanes x 64 bits), then the fetched word (64 bits) and the lanes written
/// (4), as frontUnit's.
Unit operandsUnit();
constexpr uint32_t kOperandOutputs = 3 * 4 * 64 + 64 + 4;

}  // namespace qgpu::compiler
