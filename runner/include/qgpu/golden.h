// Goldens: expected results with provenance, one file per kernel and source
// (goldens/<kernel>/<source>.json). Written only by `qgpu record`. A golden
// whose inputs changed since it was recorded (launch spec, host reference or
// the PTX that ran) is stale: reported, never used.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "qgpu/launch_spec.h"
#include "qgpu/result.h"

namespace qgpu {

struct Golden {
  std::filesystem::path path;
  std::string source;  // host-ref, t4, h200, ...
  RunResult result;
  bool stale = false;
  std::string staleReason;
};

std::string sha256File(const std::filesystem::path& path);

/// Every golden of `spec` under goldensDir/<name>/, with staleness decided.
std::vector<Golden> loadGoldens(const std::filesystem::path& goldensDir, const LaunchSpec& spec);

/// Fills the provenance fields: the kind r's backend declares and what identifies the inputs
/// (launch spec hash, host-ref or PTX hashes, date, command).
void stampProvenance(RunResult& r, const LaunchSpec& spec, const std::string& source,
                     const std::string& command);

/// "t4" from "Tesla T4", "h200" from "NVIDIA H200": the golden source name of a device.
std::string sourceNameForDevice(const std::string& deviceName);

}  // namespace qgpu
