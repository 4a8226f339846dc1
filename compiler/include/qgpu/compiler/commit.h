// The machine step's pending write (docs/machine.md §5.2): at the last token of a step's
// register write — its commit position — the value of every lane and the lanes it goes to,
// rebuilt from the tokens alone, which is what the register-file copies are written with.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// Outputs in order: commit (1: this token is the last of a register write that ends its
/// step), the lanes written (4: commit and the write's lanes, the running lanes or an ACTIVE
/// token's), then each lane's value (4 x 64 bits, zero-extended from the write's width;
/// meaningful where the lane is written). Atomic steps' writes (INNER forms) are not covered.
Unit commitUnit();
constexpr uint32_t kCommitOutputs = 1 + 4 + 4 * 64;

/// commitUnit's inputs for machine token `id`: sequencerInputs', the token's write fields and
/// the width in bytes (1, 2, 4 or 8; 0 if none) of the register write the token belongs to —
/// in the compiled step the committed instruction's, decoded from its fetched word.
std::vector<int64_t> commitInputs(uint32_t id, uint32_t fullWarps, uint32_t tailMask, uint32_t writeBytes);

}  // namespace qgpu::compiler
