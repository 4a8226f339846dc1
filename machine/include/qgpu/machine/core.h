// The machine itself (docs/machine.md §1, §4): state, sequencer (SIMT stack, warp and block
// scheduling, barriers) and the step. One class, two modes:
//   Execute: functional units compute every result; each step appends its tokens.
//   Replay:  the host decoder. Results come from the token stream, never from the units; the
//            only arithmetic left is address = base + offset for loads/stores and the lane
//            selection of AFFINE/PACK4 forms. Stores write the replayed register values.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/interp/launch.h"
#include "qgpu/machine/isa.h"

namespace qgpu::machine {

/// The launch as the machine sees it: geometry, kernel parameter bytes (pointers already in
/// the machine's address map) and the launch buffers.
struct MachineLaunch {
  Dim3 grid, block;
  uint32_t dynamicSharedBytes = 0;  // after the static shared memory, 16-byte aligned
  std::vector<uint8_t> params;
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<uint64_t> bufferAddr;  // machine address of buffer i (after the module globals)
};

/// Where a special register is read: the launch's sizes, the block (linear, x fastest), the
/// warp and lane, and the warps per block.
struct SpecialContext {
  Dim3 grid, block;
  uint32_t blockLinear = 0, warp = 0, lane = 0, warps = 0;
};
/// A special register's value (docs/machine.md §1.1): the executor's, and the reference the
/// compiled operand select is checked against.
uint64_t specialValue(MSpecial s, const SpecialContext& at);

/// Builds a MachineLaunch from the runner's Launch (buffer arguments -> machine addresses).
MachineLaunch machineLaunch(const MachineProgram& program, const Launch& launch);

/// Most tokens one Execute run may generate (docs/limits.md): about 200 MB with their meanings;
/// the largest corpus kernel (sha256_round) generates about 200 thousand.
inline constexpr size_t kMaxGeneratedTokens = size_t{1} << 20;

/// The control state of one step, with the index of the first token after its start (the
/// tokens before it are what the model has read when it spells the step).
struct StepState {
  size_t firstToken = 0;
  uint32_t block = 0, warp = 0, pc = 0, mask = 0, depth = 0;
};

/// One register write of a step as committed (Execute mode): the register, the lanes, the
/// width and the values, and the index of the write's last token (where the compiled machine
/// commits it into its register-file copies).
struct RegisterWrite {
  size_t lastToken = 0;
  uint32_t reg = 0, lanes = 0, bytes = 0;
  std::array<uint64_t, 4> values{};
  bool atomic = false;  // one lane of an atomic step: its old value to d or its new one to c (docs/machine.md §5.3)
};

struct Trace {
  std::vector<uint32_t> tokens;
  std::vector<std::string> meanings;  // one per token (Execute mode)
  std::vector<StepState> stepStates;  // one per step (Execute mode)
  std::vector<RegisterWrite> writes;  // every register write (Execute mode)
  uint64_t steps = 0;
};

struct MachineResult {
  std::vector<std::vector<uint8_t>> buffers;  // final launch buffers
  Trace trace;
};

/// Execute mode: runs the program, returns final memory and the generated token stream.
MachineResult execute(const MachineProgram& program, const MachineLaunch& launch,
                      uint64_t maxSteps = 200'000'000);

/// Replay mode (the host decoder): applies `tokens` onto the initial memory of `launch` and
/// returns the final buffers. Throws qgpu::Error(Input) on a malformed or inconsistent stream.
std::vector<std::vector<uint8_t>> replay(const MachineProgram& program, const MachineLaunch& launch,
                                         const std::vector<uint32_t>& tokens,
                                         uint64_t maxSteps = 200'000'000);

}  // namespace qgpu::machine
