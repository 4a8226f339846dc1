// Partial rotary position embedding of Qwen3.5 full-attention heads: only the
// first rotary_dim entries of each head rotate, in rotate_half (NeoX) pairs
// (i, i + rotary_dim/2). For text input Qwen3.5's interleaved MRoPE gives all
// three position streams the same value, so it reduces exactly to this.
#pragma once

#include <Eigen/Dense>
#include <vector>

namespace qgpu::model {

class RotaryEmbedding {
public:
    RotaryEmbedding() = default;
    RotaryEmbedding(int rotaryDim, double theta);

    // Rotates the first rotaryDim entries of `head` for position `position`.
    void apply(Eigen::Ref<Eigen::VectorXf> head, int position) const;

private:
    int half_ = 0;
    std::vector<float> invFreq_;
};

}  // namespace qgpu::model
