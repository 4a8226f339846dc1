// The conformance gate: a kernel's interpreter results (or another backend's), at a warp
// width and PTX flavour, against every non-stale golden it has. Used by `qgpu check`
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
  bool notRun = false;    // the backend cannot run this launch (ErrorKind::Backend: no driver, an op not compiled)
  std::string message;    // one line on success; diff summary + repro command on failure
  std::vector<std::string> goldensUsed;
  std::vector<std::string> staleGoldens;
};

/// Kernel folders (those with a launch.json) under kernelsDir, sorted.
std::vector<std::filesystem::path> discoverKernels(const std::filesystem::path& kernelsDir);

/// The kernel folders a command names: each name is a path where one exists, else a folder
/// under kernelsDir; no names means the whole corpus (discoverKernels). What is not a kernel
/// folder is found when its launch.json is loaded (ErrorKind::Input).
std::vector<std::filesystem::path> resolveKernels(const std::vector<std::string>& names,
                                                  const std::filesystem::path& kernelsDir);

/// The launch on `backend` (the interpreter by default; any registered backend, e.g. the
/// compiled machine's "circuit" or "model") against every usable golden. A backend that
/// cannot run the launch (ErrorKind::Backend) gives notRun; one whose run leaves its reference
/// mid-launch (ErrorKind::Diverged) fails like a golden mismatch. `checkpoint` (model only)
/// runs a compiled or spliced checkpoint from disk instead of the machine compiled in memory.
GateOutcome runGate(const LaunchSpec& spec, const std::string& flavour, uint32_t warpWidth,
                    const std::filesystem::path& goldensDir, uint64_t maxSteps = 200'000'000,
                    const std::string& backend = "interp", const std::string& checkpoint = {});

}  // namespace qgpu
