// PTX scalar types: names, sizes and classes.
#include "qgpu/interp/types.h"

namespace qgpu {
namespace {
struct TypeRow {
  ScalarType type;
  const char* name;
  uint32_t bytes;
};
constexpr TypeRow kTypes[] = {
    {ScalarType::Pred, "pred", 1}, {ScalarType::B8, "b8", 1},     {ScalarType::B16, "b16", 2},
    {ScalarType::B32, "b32", 4},   {ScalarType::B64, "b64", 8},   {ScalarType::U8, "u8", 1},
    {ScalarType::U16, "u16", 2},   {ScalarType::U32, "u32", 4},   {ScalarType::U64, "u64", 8},
    {ScalarType::S8, "s8", 1},     {ScalarType::S16, "s16", 2},   {ScalarType::S32, "s32", 4},
    {ScalarType::S64, "s64", 8},   {ScalarType::F16, "f16", 2},   {ScalarType::F16x2, "f16x2", 4},
    {ScalarType::BF16, "bf16", 2}, {ScalarType::F32, "f32", 4},   {ScalarType::F64, "f64", 8},
    {ScalarType::BF16x2, "bf16x2", 4},
};
}  // namespace

std::optional<ScalarType> parseScalarType(std::string_view name) {
  for (const TypeRow& row : kTypes)
    if (name == row.name) return row.type;
  return std::nullopt;
}
const char* scalarTypeName(ScalarType t) { return kTypes[static_cast<int>(t)].name; }
uint32_t scalarTypeBytes(ScalarType t) { return kTypes[static_cast<int>(t)].bytes; }

}  // namespace qgpu
