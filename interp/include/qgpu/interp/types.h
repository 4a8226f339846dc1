// PTX scalar types as the decoder and handlers see them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace qgpu {

enum class ScalarType : uint8_t {
  Pred, B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, BF16, F32, F64,
  BF16x2,  // appended: the values above are stable
};

std::optional<ScalarType> parseScalarType(std::string_view name);
const char* scalarTypeName(ScalarType t);
uint32_t scalarTypeBytes(ScalarType t);  // Pred: 1
inline bool isSigned(ScalarType t) {
  return t == ScalarType::S8 || t == ScalarType::S16 || t == ScalarType::S32 || t == ScalarType::S64;
}
inline bool isFloat(ScalarType t) {
  return t == ScalarType::F16 || t == ScalarType::F16x2 || t == ScalarType::BF16 ||
         t == ScalarType::BF16x2 || t == ScalarType::F32 || t == ScalarType::F64;
}
inline bool isBits(ScalarType t) {
  return t == ScalarType::B8 || t == ScalarType::B16 || t == ScalarType::B32 || t == ScalarType::B64;
}

}  // namespace qgpu
