// Parser for the safetensors container: an 8-byte little-endian header length,
// a JSON header {name: {dtype, shape, data_offsets}}, then the raw data.
// The parser trusts nothing: every length, offset and shape is checked against
// the buffer it was given, so a corrupt or truncated file gives a ModelError.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "qgpu/model/dtype.h"

namespace qgpu::model {

struct SafetensorsEntry {
    std::string dtypeName;        // as written in the header, e.g. "BF16"
    std::optional<DType> dtype;   // nullopt for dtypes the engine does not compute with (I64, F8, ...)
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0;      // absolute byte offsets into the file
    std::uint64_t end = 0;
};

struct SafetensorsHeader {
    std::map<std::string, SafetensorsEntry> tensors;
    std::uint64_t dataStart = 0;  // absolute offset of the data section
};

// Parses and validates the header of a complete safetensors file held in `file`.
// `origin` names the file in error messages.
SafetensorsHeader parseSafetensors(std::span<const std::byte> file, const std::string& origin);

}  // namespace qgpu::model
