// Half-precision arithmetic decoding (sem_half.cpp).
#pragma once

#include <string>

#include "decode_state.h"

namespace qgpu {

/// add/sub/mul/fma .f16/.f16x2 (.rn, .ftz, .sat); anything else fails.
void decodeHalfArithmetic(DecodeState& ds, const std::string& op, ScalarType t);

}  // namespace qgpu
