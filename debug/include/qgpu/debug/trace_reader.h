// Reading qgpu-trace-1 files back, regrouped per thread: a thread is
// (linear block, thread index within the block), the same at every warp
// width, and its events are the instructions it executed, in order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qgpu/debug/source_view.h"
#include "qgpu/interp/launch.h"

namespace qgpu {

struct TraceWrite {
  std::string space;  // global, shared, local, param
  uint64_t address = 0;
  uint32_t size = 0;
  std::vector<uint8_t> bytes;  // little endian, as in memory
  bool operator==(const TraceWrite&) const = default;
};

struct TraceEvent {
  uint32_t thread = 0;  // block * threadsPerBlock + threadInBlock
  uint32_t seq = 0;     // index in the thread's own stream
  uint64_t step = 0;    // warp step (line) it came from
  uint32_t block = 0, warp = 0, lane = 0, pc = 0, ptxLine = 0;
  std::vector<std::pair<std::string, uint64_t>> regs;  // destination register -> new value
  std::optional<TraceWrite> write;
};

struct TraceCode {
  std::string function, text;
  uint32_t line = 0;
  std::string srcFile;  // resolved against the PTX folder
  uint32_t srcLine = 0;
};

struct TraceBufferInfo {
  uint32_t index = 0;
  std::string name, type;
  uint64_t count = 0, address = 0;
  bool output = false;
};

struct Trace {
  std::string path, kernel, entry, flavour, ptx, inject;
  uint32_t warpWidth = 0;
  Dim3 grid, block;
  std::vector<TraceBufferInfo> buffers;
  std::vector<TraceCode> code;
  std::vector<TraceEvent> events;                   // in file order
  std::map<uint32_t, std::vector<uint32_t>> threads;  // thread -> indices into events
  uint64_t steps = 0;
  bool ended = false, truncated = false;
  std::string error;  // the launch's error, if it failed

  uint32_t threadsPerBlock() const { return static_cast<uint32_t>(block.count()); }
  /// Pc, text and source line of `pc` from the trace's own code table.
  PcInfo pcInfo(uint32_t pc) const;
  /// "block (1,0,0) thread (3,0,0)"
  std::string threadName(uint32_t thread) const;
};

/// Throws ErrorKind::Input naming the file and line on anything malformed.
Trace readTrace(const std::filesystem::path& path);

}  // namespace qgpu
