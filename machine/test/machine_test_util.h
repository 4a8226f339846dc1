// Shared helpers of the machine tests: run PTX text on the oracle and on the machine.
#pragma once

#include <string>
#include <vector>

#include "qgpu/interp/launch.h"
#include "qgpu/interp/program.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/isa.h"

namespace qgpu::machine::test {

Program decodeText(const std::string& ptx, const std::string& name = "snippet.ptx");

struct BothResult {
  std::vector<std::vector<uint8_t>> oracle, machine, replayed;
  Trace trace;
  MachineProgram program;
};

/// Runs `entry` of `ptx` on the interpreter (W=4) and on the machine (executor, then the
/// replay decoder on the executor's tokens). Lowering errors propagate.
BothResult runBoth(const std::string& ptx, const std::string& entry, const Launch& launch);

}  // namespace qgpu::machine::test
