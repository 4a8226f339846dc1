// The machine step's token intake and sequencer as a unit (docs/machine.md §5.2): the
// control state after each token from the token's features alone (no state updated from
// itself), checked against machine::StreamDeriver on every lowered corpus run.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// Outputs in order: block (12 bits), warp (8), pc (11), mask (4), depth - 1 (5), ended (1:
/// this token ended a step), steps since the last pc-carrying token as [k >= 1..16].
Unit sequencerUnit();
constexpr uint32_t kSequencerOutputs = 12 + 8 + 11 + 4 + 5 + 1 + 16;

/// The unit's inputs for machine token `id` — the features its embedding row would hold (the
/// class flags and fields of machine/tokens.h) — and the launch's warp shape (warps with all
/// four lanes, the next warp's valid lanes). The prompt's GO starts a stream at pc 0.
std::vector<int64_t> sequencerInputs(uint32_t id, uint32_t fullWarps, uint32_t tailMask);

}  // namespace qgpu::compiler
