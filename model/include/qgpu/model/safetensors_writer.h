// Writes tensors as a safetensors file (used by tests and tools that build
// checkpoints in C++; real checkpoints come from Hugging Face tooling).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "qgpu/model/tensor_store.h"

namespace qgpu::model {

struct TensorToWrite {
    std::string name;
    std::string dtypeName;  // "F32", "BF16", ... (written verbatim, so tests can write odd ones)
    std::vector<std::int64_t> shape;
    std::vector<std::byte> bytes;
};

void writeSafetensors(const std::filesystem::path& file, const std::vector<TensorToWrite>& tensors);

// Every tensor of a store, in name order, ready to write.
std::vector<TensorToWrite> tensorsOf(const TensorStore& store);

}  // namespace qgpu::model
