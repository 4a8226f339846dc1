// Element types a checkpoint tensor may have, and their exact conversion to f32.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace qgpu::model {

enum class DType { F32, F16, BF16 };

std::string_view dtypeName(DType t);
std::size_t dtypeSize(DType t);
// Parses a safetensors dtype string ("F32", "F16", "BF16"); nullopt for any other.
std::optional<DType> parseDType(std::string_view s);

// bf16 is the top half of an f32, so widening is a shift and exact.
inline float bf16ToFloat(std::uint16_t bits) {
    const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// Round-to-nearest-even narrowing, as torch does when casting f32 to bf16.
inline std::uint16_t floatToBf16(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<std::uint16_t>(u >> 16);
}

// IEEE binary16 to f32 (exact; handles subnormals, inf and NaN).
float f16ToFloat(std::uint16_t bits);

// Reads element i of a little-endian buffer of type t as f32.
float loadAsFloat(DType t, const std::byte* data, std::size_t i);

}  // namespace qgpu::model
