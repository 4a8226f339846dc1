// Scalar activations with PyTorch's definitions (f32).
#pragma once

#include <cmath>

namespace qgpu::model {

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
// +-0 gives the formula's +-0 / 2 = +-0 without the exp: most of a compiled machine's
// pre-activations are zeros.
inline float silu(float x) { return x == 0.0f ? x : x / (1.0f + std::exp(-x)); }
// torch.nn.functional.softplus with beta 1, threshold 20: linear above the threshold.
inline float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

}  // namespace qgpu::model
