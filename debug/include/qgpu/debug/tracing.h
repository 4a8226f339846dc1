// Interpreter runs with observers attached: a trace file (qgpu run --trace)
// or write attribution (qgpu diff, the gate).
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <map>
#include <optional>
#include <string>

#include "qgpu/backend.h"
#include "qgpu/interp/trace_writer.h"
#include "qgpu/interp/write_attribution.h"

namespace qgpu {

/// Header of a trace of `spec` run as `options` say.
TraceHeader traceHeaderFor(const LaunchSpec& spec, const RunOptions& options);

/// A trace being written: opens the file, writes the header and installs the
/// writer as options.observer (in front of any observer already there).
/// finish() writes the end line; if the launch threw instead, the destructor
/// writes one saying so. ErrorKind::Input if the file cannot be written.
class TraceSession {
 public:
  TraceSession(const LaunchSpec& spec, RunOptions& options, const std::filesystem::path& path,
               uint64_t maxSteps);
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;
  void finish(const std::string& error = "");

 private:
  std::ofstream out_;
  std::unique_ptr<TraceWriter> writer_;
  bool finished_ = false;
};

/// Runs the interpreter, writing a qgpu-trace-1 file. If the launch fails the
/// trace still ends with an end line carrying the error, and the error is
/// rethrown. ErrorKind::Input if the file cannot be written.
RunResult runTraced(const LaunchSpec& spec, const RunOptions& options,
                    const std::filesystem::path& tracePath, uint64_t maxSteps = 5'000'000);

/// Who last wrote each element of each output buffer, from one interpreter run.
struct AttributedRun {
  RunResult result;
  std::string label;  // "interp nvcc W=4" (+ injection), the run the writers come from
  std::map<std::string, std::vector<std::optional<WriterInfo>>> writers;  // output -> per element

  const WriterInfo* writerOf(const std::string& output, uint64_t element) const;
};

AttributedRun runAttributed(const LaunchSpec& spec, const RunOptions& options);

}  // namespace qgpu
