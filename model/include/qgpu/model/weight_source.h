// Fetches named weights of one checkpoint (already shape-checked) in the form
// the layers compute with: Linear for projections, f32 Eigen vectors for the
// small per-channel tensors.
#pragma once

#include <Eigen/Dense>
#include <string>

#include "qgpu/model/linear.h"
#include "qgpu/model/tensor_store.h"

namespace qgpu::model {

class WeightSource {
public:
    WeightSource(const TensorStore& store, std::string prefix, LinearOptions options)
        : store_(store), prefix_(std::move(prefix)), options_(options) {}

    // `name` is relative to the prefix (e.g. "layers.0.mlp.up_proj.weight").
    const TensorView& view(const std::string& name) const;
    // A projection; one that copied its weights (sparse storage, a dense block trimmed of its
    // zero padding, f16 widened, a misaligned mapping: Linear::ownsWeights) has its mapped
    // pages released (a checkpoint of mostly zeros then costs its non-zeros in memory, a
    // zero-padded one its block, not its file size).
    Linear linear(const std::string& name) const;
    Eigen::VectorXf vector(const std::string& name) const;
    // Gain (1 + w) of a zero-centred Qwen3.5 RMSNorm weight.
    Eigen::VectorXf normGain(const std::string& name) const;
    const std::string& prefix() const { return prefix_; }
    const LinearOptions& options() const { return options_; }

private:
    const TensorStore& store_;
    std::string prefix_;
    LinearOptions options_;
};

}  // namespace qgpu::model
