// The token protocol of docs/machine.md §3 (machine/tokens.h) as a token vocabulary for the
// compiler's token I/O: the classes a compiled machine step reads and writes.
#pragma once

#include <cstdint>

#include "qgpu/compiler/token_io.h"

namespace qgpu::compiler {

/// The 255,560 machine ids as token classes: CHUNK-MORE, CHUNK-LAST, PACK4 (16-bit values),
/// TOP at depth 1, 2 and deeper (pc and mask, 14), GOTO (pc, 10), BLOCK (12), WARP-START and
/// WARP (8), DEPTH (5), LANES and LANES-HIGH (the lane count, 2), AT (12), ACTIVE (the lanes, 4), the control ids
/// (no value). Machine id m (m >= 248,320 as
/// tokens.h numbers them) is id m - 248,320 + `base`: base 0 for a machine-only checkpoint,
/// 248,320 for one whose ids are Qwen3.5's (text ids below, part 2c's splice).
TokenVocabulary machineVocabulary(int64_t base);

}  // namespace qgpu::compiler
