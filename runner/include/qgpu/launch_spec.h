// Launch specs (kernels/<name>/launch.json, schema in docs/launch-spec.md):
// parsing, validation, and turning a spec into initialised launch buffers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qgpu/interp/launch.h"
#include "qgpu/interp/types.h"

namespace qgpu {

struct BufferSpec {
  ScalarType type = ScalarType::U32;
  uint64_t count = 0;
  nlohmann::json init;  // null: zero-filled
};

struct ParamSpec {
  std::string name;
  bool isBuffer = false;
  BufferSpec buffer;
  ScalarType scalarType = ScalarType::U32;
  uint64_t scalarBits = 0;
};

struct LaunchSpec {
  std::filesystem::path dir;   // folder of the spec
  std::filesystem::path file;  // the launch.json
  std::string name, description, entry;
  std::map<std::string, std::string> ptx;  // flavour -> path relative to dir
  Dim3 grid, block;
  uint32_t dynamicSharedBytes = 0;
  std::vector<ParamSpec> params;
  std::vector<std::string> outputs;
  std::string modelDependent;  // approximate instructions whose goldens are modelled
  nlohmann::json budget;

  /// Path of the PTX file of `flavour` (ErrorKind::Input if the spec has none).
  std::filesystem::path ptxPath(const std::string& flavour) const;
  /// The flavours in a stable order (nvcc first).
  std::vector<std::string> flavours() const;
  const ParamSpec& param(const std::string& name) const;
};

/// Largest buffer and largest sum of a launch's buffers (docs/limits.md).
inline constexpr uint64_t kMaxBufferBytes = uint64_t{1} << 30;
inline constexpr uint64_t kMaxLaunchBytes = uint64_t{2} << 30;

/// Loads `path` (a kernel folder or a launch JSON file). Throws
/// qgpu::Error(ErrorKind::Input) naming the file and the offending field.
LaunchSpec loadLaunchSpec(const std::filesystem::path& path);

/// Buffers initialised as the spec says, and the argument list.
Launch materializeLaunch(const LaunchSpec& spec);

/// Bytes of one element of a buffer type.
uint32_t elementBytes(ScalarType t);

}  // namespace qgpu
