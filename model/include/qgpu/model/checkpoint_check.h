// What tensors a Qwen3.5 text checkpoint must hold, derived from its config,
// and the check of a loaded TensorStore against that list: every expected
// tensor present with exactly the implied shape and a float dtype, nothing
// unexplained left over. Vision-tower and multi-token-prediction tensors are
// recognised and skipped.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "qgpu/model/config.h"
#include "qgpu/model/tensor_store.h"

namespace qgpu::model {

struct ExpectedTensor {
    std::string name;  // full name including the prefix
    std::vector<std::int64_t> shape;
};

struct CheckpointReport {
    std::string prefix;               // "model." or "model.language_model."
    std::size_t textTensors = 0;
    std::size_t skippedVision = 0;    // model.visual.*
    std::size_t skippedMtp = 0;       // mtp.*
    std::size_t parameters = 0;       // elements of the text tensors
    std::map<std::string, std::size_t> dtypeCounts;  // text tensors by dtype name
};

std::vector<ExpectedTensor> expectedTensors(const ModelConfig& config, const std::string& prefix);

// Throws ModelError listing every problem found (missing, unexpected, wrong shape, wrong dtype).
CheckpointReport checkTensors(const ModelConfig& config, const TensorStore& store);

}  // namespace qgpu::model
