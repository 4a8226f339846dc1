// Inlining of .func calls for the machine lowering (docs/machine.md §2.1, "calls").
//
// A kernel that calls functions is lowered from a flat copy of its entry in which every
// call site holds the callee's body (recursively for nested calls), except calls of
// recursive functions (below). The flat copy is an ordinary function of the oracle's decoded-program
// format, so the lowering and its dataflow pass (§2.2) treat it like any kernel:
//  * each inlined instance has its own register slots, constants and special registers;
//  * a `.param` variable (call argument, formal parameter, return value) is a register
//    slot: `st.param` becomes `mov var, value`, `ld.param` becomes `mov d, var` (or a
//    sign-extending `cvt`); a formal parameter is the caller's argument variable and a
//    return value the caller's return variable, so passing them costs nothing once copy
//    propagation has removed the movs;
//  * `ret` in a callee becomes a branch to the instruction after the inlined body (its
//    continuation), which is also the reconvergence point of every callee branch whose
//    immediate post-dominator is the callee's exit;
//  * a callee's .local variables sit where the oracle's frame puts them (after the
//    caller's, aligned), which is static once calls are inlined.
// A function on a cycle of the call graph (recursion) cannot be inlined: it is emitted once
// after the entry and called with a machine CALL; registers live across such a call that
// the recursive code touches are saved to a per-thread call stack (inline.cpp, §2.1).
#pragma once

#include <cstdint>
#include <vector>

#include "dataflow.h"
#include "qgpu/interp/program.h"

namespace qgpu::machine {

struct InlinedKernel {
  Program program;              // the oracle's program plus one function: the flat entry
  uint32_t function = 0;        // index of that function in program.functions
  std::vector<uint32_t> origin;  // per flat instruction: the oracle pc it comes from
  // Inlined instances form a tree: 0 is the entry, parent[i] the instance whose call site
  // holds instance i (parent[0] = 0). instance[pc] is the innermost instance of each flat
  // instruction. Registers of two instances neither of which holds the other are never live
  // at once (a lane leaves an instance only through its continuation), so they may share
  // machine registers.
  std::vector<uint32_t> instance, parent;
  uint32_t ptxInstructions = 0;  // static PTX instructions of the entry and its callees
};

/// Which slots of an inlined kernel may share a machine register. A slot is owned by the
/// innermost instance holding every kept instruction that reads or writes it after the
/// dataflow substitution (a value copy-propagated out of a callee belongs to the caller);
/// slots whose owners are unrelated (neither holds the other) may share. The entry holds
/// every instance, so its slots — and a kernel without calls — never share.
class RegisterSharing {
 public:
  RegisterSharing(const InlinedKernel& kernel, const Dataflow& df);
  uint32_t owner(uint32_t slot) const { return owner_[slot] == kNoSlot ? 0 : owner_[slot]; }
  bool related(uint32_t a, uint32_t b) const {
    uint32_t c = common(a, b);
    return c == a || c == b;
  }

 private:
  uint32_t depth(uint32_t i) const;
  uint32_t common(uint32_t a, uint32_t b) const;
  const std::vector<uint32_t>& parent_;
  std::vector<uint32_t> owner_;
};

/// Whether the .entry `entry` (an index into program.functions) contains a call.
bool hasCalls(const Program& program, uint32_t entry);

/// The entry with every non-recursive call inlined and recursive functions appended, called
/// with CALL. Throws qgpu::Error(ErrorKind::Decode) reading "not lowerable to the machine: pc N
/// (file:line: text): why" for parameter accesses it cannot map to registers and for
/// .local variables in recursive code.
InlinedKernel inlineCalls(const Program& program, uint32_t entry);

}  // namespace qgpu::machine
