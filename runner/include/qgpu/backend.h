// The backend interface: every way of running a launch spec (the
// interpreter, host references, a real GPU through the CUDA driver, later the
// weight-embedded machine and the model) produces the same RunResult.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qgpu/interp/launch.h"
#include "qgpu/launch_spec.h"
#include "qgpu/result.h"

namespace qgpu {

struct RunOptions {
  std::string flavour = "nvcc";  // which PTX of the spec
  uint32_t warpWidth = 4;
  uint64_t maxSteps = 200'000'000;
  std::optional<FaultInjection> inject;  // interp only: flip one result bit (qgpu run --inject)
  ExecObserver* observer = nullptr;  // interp only
  std::string tokensFile;            // machine only: write the generated token stream here
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  /// Runs the launch; throws qgpu::Error on bad input or when the backend
  /// cannot run (ErrorKind::Backend, e.g. no CUDA driver).
  virtual RunResult run(const LaunchSpec& spec, const RunOptions& options) = 0;
};

/// "interp", "host-ref", "cuda" or "machine"; ErrorKind::Input for anything else.
std::unique_ptr<Backend> makeBackend(const std::string& name);
std::vector<std::string> backendNames();

/// Copies the spec's output buffers out of a finished launch.
std::vector<OutputBuffer> collectOutputs(const LaunchSpec& spec, const Launch& launch);

/// Decoded programs are cached per PTX file (decode once, run many times).
const Program& loadProgram(const std::filesystem::path& ptx);

}  // namespace qgpu
