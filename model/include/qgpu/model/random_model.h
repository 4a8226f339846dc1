// Seeded random Qwen3.5 weights built in memory, for benchmarks and tests that
// need a model of a given shape and density without any download.
#pragma once

#include <cstdint>
#include <memory>

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

}  // namespace qgpu::model
