// The compiled machine step run in the circuit's exact evaluator: the oracle tier between the
// reference executor (machine/) and the weights (docs/compiler.md §6, "--backend circuit").
// The prompt's tokens go in position by position; from GO on, each position's next token is
// the one the step circuit's outputs spell — greedily, as the emitted token head would pick
// it — and is fed back. Every token is checked against the reference executor's stream, so a
// run stops at the first token the circuit gets wrong and names it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qgpu/compiler/units.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

/// Whether the joined step (machine_step.h) runs `in`: its units compute it (ALU, LD, the
/// float lane) or its control spells it (BRA, EXIT, ST). Not yet: BAR (warps switch at a
/// barrier: per-warp state), CALL, atomics, and the units not joined (conversions, MIN/MAX,
/// f64, division and square-root micro-code, …).
bool stepRuns(const machine::MInstr& in);
/// The first instruction of `p` the joined step does not run, described for an error
/// ("pc 7: CVT.f32 (not compiled into the step yet)"), or nothing.
std::optional<std::string> firstNotRun(const machine::MachineProgram& p);
/// Every machine op of `p` the joined step does not run, with how many instructions use it,
/// in op order (`qgpu compile coverage`: what a kernel waits for).
std::vector<std::pair<machine::MOp, uint32_t>> opsNotRun(const machine::MachineProgram& p);

/// The first capacity of the compiled step that `launch` of `p` exceeds, named with what the
/// launch needs and what the step holds, or nothing. The step's capacities are fixed when it
/// is compiled: a block's registers (warps x 2^k slots of kRegisterSlots, k the smallest with
/// numRegs <= 2^k), its threads (11 bits) and the memory its banks hold (kBankMemoryBytes per
/// lane copy, every window's contents and the global allocations included). Past them a
/// launch would alias slots: the backends refuse it (ErrorKind::Input) before generating.
std::optional<std::string> firstCapacityExceeded(const machine::MachineProgram& p, const machine::MachineLaunch& launch);

/// What the circuit and model backends refuse before generating, as their errors: an
/// instruction the step does not run (ErrorKind::Backend) or a capacity the launch exceeds
/// (ErrorKind::Input), each naming `backend` and `kernel`.
void refuseWhatTheStepCannotRun(const char* backend, const std::string& kernel, const machine::MachineProgram& p,
                                const machine::MachineLaunch& launch);

/// Generated token `t` of a launch described for an error: its position, the step it belongs
/// to (the last one starting at or before it) and what the executor says there — the common
/// first half of the circuit's and the weights' divergence reports (`who`: "circuit", "model").
std::string describeGenerated(const char* who, const std::vector<uint32_t>& prompt, const machine::Trace& expected,
                              size_t t);

struct CircuitRun {
  std::vector<uint32_t> tokens;  // generated, ending in HALT
  size_t positions = 0;          // positions evaluated (prompt and generated)
};
/// Runs `step` (machineStepUnit's circuit) on `prompt` and generates until HALT. `expected`
/// is the reference executor's trace of the same launch: the first generated token that
/// differs from it, or a position whose outputs spell no token, throws ErrorKind::Diverged
/// (qgpu exits 1; an evaluator that refuses a position: ErrorKind::Backend) naming the position, the step, what the executor says there and what the circuit spells.
CircuitRun runInCircuit(const Unit& step, const std::vector<uint32_t>& prompt, const machine::Trace& expected);

}  // namespace qgpu::compiler
