// Checkpoint element types and their exact conversion to f32.
#include "qgpu/model/dtype.h"

#include <cmath>

namespace qgpu::model {

std::string_view dtypeName(DType t) {
    switch (t) {
        case DType::F32: return "F32";
        case DType::F16: return "F16";
        case DType::BF16: return "BF16";
    }
    return "?";
}

std::size_t dtypeSize(DType t) { return t == DType::F32 ? 4 : 2; }

std::optional<DType> parseDType(std::string_view s) {
    if (s == "F32") return DType::F32;
    if (s == "F16") return DType::F16;
    if (s == "BF16") return DType::BF16;
    return std::nullopt;
}

float f16ToFloat(std::uint16_t bits) {
    const bool negative = (bits & 0x8000u) != 0;
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    float value;
    if (exponent == 0) {
        value = std::ldexp(static_cast<float>(mantissa), -24);  // subnormal (or zero)
    } else if (exponent == 31) {
        value = mantissa == 0 ? INFINITY : NAN;
    } else {
        value = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
    }
    return negative ? -value : value;
}

float loadAsFloat(DType t, const std::byte* data, std::size_t i) {
    switch (t) {
        case DType::F32: {
            float f;
            std::memcpy(&f, data + 4 * i, 4);
            return f;
        }
        case DType::F16: {
            std::uint16_t h;
            std::memcpy(&h, data + 2 * i, 2);
            return f16ToFloat(h);
        }
        case DType::BF16: {
            std::uint16_t h;
            std::memcpy(&h, data + 2 * i, 2);
            return bf16ToFloat(h);
        }
    }
    return 0.0f;
}

}  // namespace qgpu::model
