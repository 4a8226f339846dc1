// Writes tensors as a safetensors file (used by tests and tools that build
// checkpoints in C++; real checkpoints come from Hugging Face tooling).
#pragma once

#include <filesystem>
#include <functional>
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

// A tensor written straight from a view's bytes (no copy of the whole checkpoint in memory),
// stored as `stored`: the view's own dtype, or BF16 for an F32 view whose every value is a
// bf16 exactly (the writer checks each value and throws naming the tensor if one is not).
struct TensorSlice {
    std::string name;
    const TensorView* view = nullptr;
    DType stored = DType::F32;
};

// Streams the slices, in the given order, into one safetensors file; returns the file's size.
std::uint64_t writeSafetensors(const std::filesystem::path& file, const std::vector<TensorSlice>& tensors);

// A tensor produced a block of rows at a time while it is written (a tensor too large to hold
// whole: a spliced checkpoint's embedding). `fill(row0, rows, out)` writes rows [row0, row0 +
// rows) of the tensor, row-major (a row is every dimension after the first), as f32; stored as
// BF16 the writer checks that each value is a bf16 exactly and throws naming the tensor if not.
struct TensorSource {
    std::string name;
    DType stored = DType::F32;  // F32 or BF16
    std::vector<std::int64_t> shape;
    std::function<void(std::int64_t row0, std::int64_t rows, float* out)> fill;
};

// Streams the sources, in the given order, into one safetensors file; returns its size.
std::uint64_t writeSafetensors(const std::filesystem::path& file, const std::vector<TensorSource>& tensors);

// One scan of a view: its entries that are not +-0, and whether every value is a bf16
// exactly (an F32 view whose low 16 bits are all zero, or a BF16 view).
struct ValueCensus {
    std::size_t nonZeros = 0;
    bool allBf16 = false;
};
ValueCensus censusOf(const TensorView& view);

// Every tensor of a store, in name order, ready to write.
std::vector<TensorToWrite> tensorsOf(const TensorStore& store);

}  // namespace qgpu::model
