// FFMA f32 on wires (ffma.cpp): the one-lane datapath that ffmaUnit builds per lane, for a
// unit that feeds it operands of its own (the lane-serial float step, float_lane.cpp).
#pragma once

#include <string>

#include "f32_select.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// a * b + c rounded once by `modes` (f32 bit patterns A, B, C: structural bits), 14 levels;
/// wire names start with `name`.
Bus buildFfma(Circuit& c, const std::string& name, const F32Modes& modes, const Bus& A, const Bus& B, const Bus& C);

}  // namespace qgpu::compiler
