// Running one kernel launch on the interpreter.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qgpu/interp/exec_step.h"
#include "qgpu/interp/fault_injection.h"
#include "qgpu/interp/program.h"

namespace qgpu {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
};

/// A global-memory allocation passed to the kernel by address. Its contents
/// are the initial memory before the launch and the final memory after it.
struct LaunchBuffer {
  std::string name;
  std::vector<uint8_t> data;
};

/// One kernel argument, in .param declaration order.
struct LaunchArg {
  enum class Kind { Buffer, Scalar } kind = Kind::Scalar;
  uint32_t buffer = 0;      // index into Launch::buffers
  uint64_t scalarBits = 0;  // little-endian value of a scalar
  uint32_t scalarBytes = 0;
  std::string name;
};

struct Launch {
  Dim3 grid, block;
  uint32_t dynamicSharedBytes = 0;
  std::vector<LaunchBuffer> buffers;
  std::vector<LaunchArg> args;
};

/// Observer of retired instructions (tracing, write attribution). Called once
/// per warp-level instruction with the lanes that executed it.
struct ExecObserver {
  virtual ~ExecObserver() = default;
  virtual void onInstruction(uint32_t pc, uint32_t blockLinear, uint32_t warp, uint32_t laneMask) = 0;
  /// After a non-control instruction ran on at least one lane: its results
  /// (see exec_step.h). Not called for branches, calls, exits and barriers.
  virtual void afterInstruction(const ExecStep&) {}
};

struct LaunchOptions {
  uint32_t warpWidth = 4;  // 4: the qwenGPU machine; 32: a T4
  uint64_t maxSteps = 200'000'000;  // warp-level instructions before "runaway loop"
  ExecObserver* observer = nullptr;
  std::optional<FaultInjection> inject;  // testing the debugging tools only
};

struct LaunchStats {
  uint64_t warpInstructions = 0;    // dynamic warp-level instructions
  uint64_t threadInstructions = 0;  // dynamic instructions x active lanes
};

/// Global address at which launch buffer `index` is placed.
uint64_t globalBufferAddress(uint32_t index);

/// Runs `entry` of `program` over the launch grid; buffers are updated in
/// place. Throws qgpu::Error on bad launches, faults, deadlocks and step limits.
LaunchStats runLaunch(const Program& program, const std::string& entry, Launch& launch,
                      const LaunchOptions& options);

}  // namespace qgpu
