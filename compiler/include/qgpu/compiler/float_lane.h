// The lane-serial float step (docs/machine.md §5.2): FMUL and FFMA run on one one-lane FFMA
// datapath, one active lane per position — at each of the step's positions the (W + 1)-th
// active lane's a, b and c (FMUL: a signed zero, +0 when rounding down and -0 otherwise,
// which makes FFMA's one rounding FMUL's) — from the tokens alone.
#pragma once

#include <cstdint>

#include "qgpu/compiler/operand_select.h"
#include "qgpu/compiler/step_front.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// The f32 result of the lane the position computes (32 bits), its operands muxed by
/// serialLane and its modes (rounding, ftz, sat) from the word's fl field; meaningful at a
/// FMUL's or FFMA's positions only. `active`: guardedLanes.
Bus buildLaneSerialFloat(Circuit& c, const FrontWires& front, const OperandWires& operands, const Bus& active);

/// The front end, the operand select and the lane-serial float datapath. Inputs:
/// frontInputs'. Outputs: the lane's f32 result (32 bits).
Unit laneSerialFloatUnit();
constexpr uint32_t kLaneSerialFloatOutputs = 32;

}  // namespace qgpu::compiler
