// Partial rotary position embedding of the full-attention heads.
#include "qgpu/model/rotary.h"

#include <cmath>

namespace qgpu::model {

RotaryEmbedding::RotaryEmbedding(int rotaryDim, double theta) : half_(rotaryDim / 2) {
    // HF: 1 / (theta ** (arange(0, dim, 2) / dim)), all in f32.
    const float base = static_cast<float>(theta);
    for (int i = 0; i < half_; ++i)
        invFreq_.push_back(1.0f / std::pow(base, static_cast<float>(2 * i) / static_cast<float>(rotaryDim)));
}

void RotaryEmbedding::apply(Eigen::Ref<Eigen::VectorXf> head, int position) const {
    const float p = static_cast<float>(position);
    for (int i = 0; i < half_; ++i) {
        const float angle = p * invFreq_[i];  // f32 product, as HF forms the angles
        const float c = std::cos(angle), s = std::sin(angle);
        const float x1 = head[i], x2 = head[i + half_];
        head[i] = x1 * c - x2 * s;
        head[i + half_] = x2 * c + x1 * s;
    }
}

}  // namespace qgpu::model
