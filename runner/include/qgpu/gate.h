// The conformance gate: a kernel's interpreter results, at a warp width and
// PTX flavour, against every non-stale golden it has. Used by `qgpu check`
// and by the ctest conformance tests.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "qgpu/launch_spec.h"

namespace qgpu {

struct GateOutcome {
  std::string kernel, flavour;
  uint32_t warpWidth = 4;
  bool pass = false;
  bool error = false;     // the run itself failed (fault, bad input)
  std::string message;    // one line on success; diff summary + repro command on failure
  std::vector<std::string> goldensUsed;
  std::vector<std::string> staleGoldens;
};

/// Kernel folders (those with a launch.json) under kernelsDir, sorted.
std::vector<std::filesystem::path> discoverKernels(const std::filesystem::path& kernelsDir);

GateOutcome runGate(const LaunchSpec& spec, const std::string& flavour, uint32_t warpWidth,
                    const std::filesystem::path& goldensDir, uint64_t maxSteps = 200'000'000);

}  // namespace qgpu
