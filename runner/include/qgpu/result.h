// One result format for every backend: the output buffers of a launch as
// typed bit patterns, plus where they came from. Goldens are results too.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "qgpu/interp/types.h"

namespace qgpu {

struct OutputBuffer {
  std::string name;
  ScalarType type = ScalarType::U32;
  uint64_t count = 0;
  std::vector<uint8_t> bytes;

  uint64_t element(uint64_t i) const;  // bit pattern of element i
};

struct RunResult {
  std::string kernel;
  std::string backend;  // interp, host-ref, cuda, ...
  std::string flavour;  // PTX flavour that ran ("" for host-ref)
  uint32_t warpWidth = 0;
  std::vector<OutputBuffer> outputs;
  uint64_t warpInstructions = 0;
  uint64_t threadInstructions = 0;
  nlohmann::json provenance = nlohmann::json::object();

  const OutputBuffer* output(const std::string& name) const;
};

nlohmann::json resultToJson(const RunResult& r);
/// Throws ErrorKind::Input naming `source` and the field on malformed input.
RunResult resultFromJson(const nlohmann::json& j, const std::string& source);
RunResult readResultFile(const std::filesystem::path& path);
void writeResultFile(const std::filesystem::path& path, const RunResult& r);

/// "32 (0x42000000)" style rendering of one element.
std::string formatElement(ScalarType t, uint64_t bits);
std::string formatHex(ScalarType t, uint64_t bits);
/// The value of "0x" followed by 1 to 16 hex digits and nothing else (no blanks, signs or
/// suffixes, which strtoull would skip or wrap); nullopt otherwise.
std::optional<uint64_t> parseHexBits(std::string_view s);

}  // namespace qgpu
