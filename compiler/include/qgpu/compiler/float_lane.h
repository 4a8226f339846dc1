// The lane-serial float step (docs/machine.md §5.2): FADD, FSUB, FMUL and FFMA run on one
// one-lane FFMA datapath, one active lane per position — at each of the step's positions the
// (W + 1)-th active lane's a, b and c (FMUL: a signed zero, +0 when rounding down and -0
// otherwise, which makes FFMA's one rounding FMUL's; FADD and FSUB: a factor of 1 and b, or
// -b, as the addend) — from the tokens alone.
#pragma once

#include <cstdint>
#include <optional>

#include "qgpu/compiler/operand_select.h"
#include "qgpu/compiler/step_front.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// The lane the position computes (serialLane: one-hot, 0 where the step is no FMUL, FFMA,
/// or f32 FADD or FSUB) and its f32 result (32 bits), its operands muxed by that lane and its modes
/// (rounding, ftz, sat) from the word's fl field; the result is meaningful at a FMUL's or
/// FFMA's positions only. `active`: guardedLanes; `waits`: countWaits'. With `after`, the
/// datapath waits for that wire's level (the joined step runs it after the ALU, whose layers
/// are full); the lane's operands are muxed as soon as they are read (96 channels carried, so
/// that the four lanes' 768 are not).
struct LaneSerialFloatWires {
  Bus lane;
  Bus result;
  Expr computes;  // [the step is one the datapath computes] (a form whose values are bits)
};
LaneSerialFloatWires buildLaneSerialFloat(Circuit& c, const FrontWires& front, const OperandWires& operands,
                                          const Bus& active, const Bus& waits,
                                          std::optional<WireId> after = std::nullopt);

/// The front end, the operand select and the lane-serial float datapath. Inputs:
/// frontInputs'. Outputs: the lane's f32 result (32 bits).
Unit laneSerialFloatUnit();
constexpr uint32_t kLaneSerialFloatOutputs = 32;

}  // namespace qgpu::compiler
