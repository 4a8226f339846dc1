// Decoders of the packing cvt forms (sem_convert_packed.cpp), called by decodeCvt.
#pragma once

#include "decode_state.h"

namespace qgpu {

/// cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b (modifiers already taken).
void decodeCvtPairFromF32(DecodeState& ds, bool bf, ScalarType src, int frnd, bool relu, bool satfinite);
/// cvt with .e4m3x2 / .e5m2x2 (the fp8 type already taken): to fp8 from f32 or f16x2, or
/// to f16x2 from fp8.
void decodeCvtFp8(DecodeState& ds, bool e5m2);
/// cvt.pack.sat (.pack already taken).
void decodeCvtPackSat(DecodeState& ds);

}  // namespace qgpu
