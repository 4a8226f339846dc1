// The backend interface: every way of running a launch spec (the interpreter, host
// references, a real GPU through the CUDA driver, the weight-embedded machine, later the
// model) produces the same RunResult. Backends register themselves (registerBackend, in their
// own source file) with what they are and can do; callers ask the registry, never a name.
#pragma once

#include <functional>
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
  std::string promptFile;            // token backends: write the launch's prompt tokens here
  std::string checkpoint;            // model only: run this compiled-machine checkpoint from disk
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  /// Runs the launch; throws qgpu::Error on bad input or when the backend
  /// cannot run (ErrorKind::Backend, e.g. no CUDA driver).
  virtual RunResult run(const LaunchSpec& spec, const RunOptions& options) = 0;
};

/// What produced a result, as goldens record it (provenance "kind").
enum class ProvenanceKind { Interpreter, HostReference, Hardware, Model };
/// "interpreter", "host reference", "hardware", "model".
const char* provenanceKindName(ProvenanceKind kind);

/// What a backend declares when it registers.
struct BackendInfo {
  std::string name;     // --backend NAME; RunResult::backend of its results
  std::string summary;  // one line for --help and docs
  ProvenanceKind provenance = ProvenanceKind::Hardware;
  std::vector<uint32_t> warpWidths;  // the warp widths it runs; empty: it has no warps
  bool runsPtx = true;          // runs the spec's PTX: --flavour matters, goldens hash the PTX
  bool traces = false;          // --trace, --inject, --listing (and qgpu diff --inject)
  bool tokens = false;          // --tokens: writes a token stream
  bool recordsGoldens = false;  // qgpu record --backend NAME
  std::function<std::unique_ptr<Backend>()> make;
};

/// Adds a backend to the registry (from a static initialiser in the backend's own file);
/// a second backend of the same name is a programming error (std::logic_error).
bool registerBackend(BackendInfo info);
/// The registered backends, by name.
std::vector<const BackendInfo*> registeredBackends();
/// The backend called `name`, or nullptr.
const BackendInfo* findBackend(const std::string& name);
/// The backend called `name`; ErrorKind::Input naming the registered ones for anything else.
const BackendInfo& backendInfo(const std::string& name);
std::unique_ptr<Backend> makeBackend(const std::string& name);
/// Names of the registered backends (all, or those `has` is true of).
std::vector<std::string> backendNames(const std::function<bool(const BackendInfo&)>& has = {});
/// "a, b or c" for option help and messages.
std::string joinBackendNames(const std::vector<std::string>& names, const char* last = " or ");
/// Whether `r` was produced by a registered backend of provenance `kind`; a result of the
/// stand-in CUDA driver is not hardware.
bool producedBy(const RunResult& r, ProvenanceKind kind);
/// Whether `r` came through a stand-in CUDA driver (provenance "stand_in", set by the cuda
/// backend): the interpreter behind the Driver API, never hardware, so never a golden of the
/// corpus (`qgpu record` refuses to write it into a folder named goldens).
bool fromStandInDriver(const RunResult& r);
/// The provenance "kind" a golden of a stand-in driver records instead of "hardware".
inline constexpr const char* kStandInProvenanceKind = "stand-in driver (not hardware)";

/// The interpreter (the oracle), which the gate and the debugging tools re-run.
std::unique_ptr<Backend> makeOracleBackend();

/// Copies the spec's output buffers out of a finished launch.
std::vector<OutputBuffer> collectOutputs(const LaunchSpec& spec, const Launch& launch);

/// Decoded programs are cached per PTX file (decode once, run many times).
const Program& loadProgram(const std::filesystem::path& ptx);

}  // namespace qgpu
