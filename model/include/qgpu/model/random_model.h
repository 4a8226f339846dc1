// Seeded random Qwen3.5 weights built in memory, for benchmarks and tests that
// need a model of a given shape and density without any download.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "qgpu/model/config.h"
#include "qgpu/model/tensor_store.h"

namespace qgpu::model {

struct RandomWeights {
    std::uint64_t seed = 1;
    DType dtype = DType::BF16;
    // Fraction of entries of each 2-D projection matrix that are non-zero
    // (1 = dense). Norm weights, conv taps and gates are always dense.
    double density = 1.0;
    float scale = 0.02f;  // entries are uniform in [-scale, scale]
};

std::shared_ptr<TensorStore> makeRandomTensors(const ModelConfig& config, const RandomWeights& spec);

// The text config of Qwen3.5-2B (see docs/qwen35-text-model.md section 1).
ModelConfig qwen35_2bConfig();
// The 2B's per-head shapes (attention heads 8 over 2 key-value heads of 256, DeltaNet 16 key
// and value heads of 128, conv kernel 4, intermediate 6144, rotary as the 2B, tied embeddings)
// at hidden 256, 4 layers (3 linear_attention + 1 full_attention) and vocab 4096: a model that
// has the 2B's layer shapes and loads and runs in well under a second (`qgpu model random`).
ModelConfig qwen35SmallConfig();
// The 2B's layer pattern for `layers` layers: every fourth one full_attention, the rest
// linear_attention.
std::vector<LayerType> qwen35LayerTypes(int layers);

}  // namespace qgpu::model
