// Execution traces (format qgpu-trace-1, JSON lines, see docs/debugging.md):
// a header with the launch and the code table, one line per warp step with
// the pc, PTX line, active lanes, and per lane the destination register
// values and memory writes, then an end line.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "qgpu/interp/launch.h"

namespace qgpu {

struct TraceBuffer {
  uint32_t index = 0;  // launch buffer index (address = globalBufferAddress(index))
  std::string name, type;
  uint64_t count = 0;
  bool output = false;  // one of the launch's outputs
};

struct TraceHeader {
  std::string kernel, entry, flavour, ptx, inject;
  uint32_t warpWidth = 4;
  Dim3 grid, block;
  std::vector<TraceBuffer> buffers;
};

class TraceWriter : public ExecObserver {
 public:
  /// Writes the header at once. After `maxSteps` warp steps the trace stops
  /// recording and its end line says it was truncated.
  TraceWriter(std::ostream& out, const Program& program, const TraceHeader& header,
              uint64_t maxSteps = 5'000'000, ExecObserver* next = nullptr);

  void onInstruction(uint32_t pc, uint32_t blockLinear, uint32_t warp, uint32_t laneMask) override;
  void afterInstruction(const ExecStep& step) override;

  /// The end line; `error` is the launch's error message if it failed.
  void finish(const std::string& error = "");

 private:
  bool take();
  std::ostream& out_;
  const Program& program_;
  uint64_t maxSteps_, steps_ = 0;
  bool truncated_ = false;
  ExecObserver* next_;
  std::string line_;
};

/// JSON string literal (quotes included) of `s`.
std::string jsonQuote(const std::string& s);

}  // namespace qgpu
