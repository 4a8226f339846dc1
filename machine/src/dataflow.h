// Register dataflow over one function of the decoded program, used by the lowering to
// avoid spending tokens on writes the machine does not need (docs/machine.md §2.2):
//  * single-definition registers set by `mov` from a constant or special register, and
//    register copies `mov d, s`, are replaced by their source where that is provably the
//    same value at every use (the mov dominates every use; s is not redefined in between);
//  * instructions without side effects whose every destination is never read are dropped,
//    and dead extra destinations (shfl's predicate) are not written.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "qgpu/interp/program.h"

namespace qgpu::machine {

/// Calls of recursive functions in an inlined kernel (inline.h): an instruction with
/// Flow::Call and mode kMachineCall is a machine CALL (target = the callee's entry, reconverge
/// = its END marker, s[0] = the stack pointer, s[1] = the stack limit); mode kCallEnd is the
/// END marker after a recursive function's body, which lowers to no instruction. Control
/// leaves a CALL for the callee's entry and, when the callee returns, reaches the instruction
/// after the CALL; the END marker leads to the instruction after every CALL of its function.
constexpr uint8_t kMachineCall = 1;
constexpr uint8_t kCallEnd = 2;

/// Per instruction of `code` (whose first instruction is at pc `base`): for an END marker,
/// the indices of the instructions after every CALL of its function.
std::vector<std::vector<uint32_t>> returnPoints(std::span<const Instr> code, uint32_t base);

/// Where control can go after `in`, the instruction at index i of a code range that starts at
/// pc `base` (so `in.target - base` is an index too): a branch's target, the next instruction
/// unless `in` always leaves, a CALL's callee entry and its return point, and for an END
/// marker `afterEnd` (its entry of returnPoints). Indices at or past `n` are left out.
std::vector<uint32_t> successors(const Instr& in, uint32_t i, uint32_t base, uint32_t n,
                                 const std::vector<uint32_t>& afterEnd = {});

struct Dataflow {
  std::vector<uint32_t> substitute;  // per slot: the slot whose value it always holds
  std::vector<bool> dropped;         // per pc (function-relative)
  std::vector<uint32_t> reads;       // per slot: reads by kept instructions (after substitution)

  uint32_t resolve(uint32_t slot) const;
  bool live(uint32_t slot) const { return slot != kNoSlot && reads[resolve(slot)] > 0; }
};

/// `isPure(pc)`: the instruction has no effect besides its destination registers.
Dataflow analyzeFunction(const Program& program, const FunctionInfo& f,
                         const std::vector<bool>& isPure, const std::vector<bool>& isCopy);

}  // namespace qgpu::machine
