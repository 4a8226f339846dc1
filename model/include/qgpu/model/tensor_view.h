// A read-only view of one named tensor's bytes (memory-mapped or owned elsewhere).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "qgpu/model/dtype.h"

namespace qgpu::model {

struct TensorView {
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
    std::span<const std::byte> bytes;
    std::string origin;  // file (or "memory") the bytes come from, for error messages

    std::size_t numel() const;
    float at(std::size_t i) const { return loadAsFloat(dtype, bytes.data(), i); }
};

std::string shapeString(const std::vector<std::int64_t>& shape);

}  // namespace qgpu::model
