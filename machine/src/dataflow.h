// Register dataflow over one function of the decoded program, used by the lowering to
// avoid spending tokens on writes the machine does not need (docs/machine.md §2.2):
//  * single-definition registers set by `mov` from a constant or special register, and
//    register copies `mov d, s`, are replaced by their source where that is provably the
//    same value at every use (the mov dominates every use; s is not redefined in between);
//  * instructions without side effects whose every destination is never read are dropped,
//    and dead extra destinations (shfl's predicate) are not written.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/interp/program.h"

namespace qgpu::machine {

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
