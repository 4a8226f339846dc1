// The machine's control decisions (docs/machine.md §1.2) as pure functions: the guard's
// active mask, how a BRA changes the SIMT stack, and what an EXIT changes. The executor applies them; the weight
// compiler's branch and exit units are tested against them bit for bit.
#pragma once

#include <cstdint>

namespace qgpu::machine {

/// Lanes that execute a guarded step: `mask` & (predicate bits, or their complement when
/// `negated`); `mask` itself without a guard.
uint32_t guardedMask(uint32_t mask, bool hasGuard, bool negated, uint32_t predicates);

/// What a BRA at `pc` (target b, reconvergence c) does to the top entry {pc, rpc = topRpc,
/// mask}, the taken lanes being `taken` (a subset of mask).
struct BranchUpdate {
  enum class Kind { NoneTaken, AllTaken, Diverged } kind = Kind::NoneTaken;
  uint32_t notTaken = 0;      // mask & ~taken
  uint32_t topPc = 0;         // the top entry's new pc (unless popped)
  bool popTop = false;        // diverged and the top entry already ends at c: it is replaced
  bool pushFallthrough = false;  // diverged: push {pc + 1, c, notTaken} (unless pc + 1 = c)
  bool pushTaken = false;        // diverged: push {b, c, taken} (unless b = c)
};
BranchUpdate branchUpdate(uint32_t mask, uint32_t taken, uint32_t pc, uint32_t target, uint32_t rpc, uint32_t topRpc);

/// EXIT by the lanes `exiting` (the guarded mask): they join the warp's exited mask and leave
/// the mask of every SIMT stack entry (each entry's new mask is `entryMaskAfterExit`).
uint32_t exitedAfterExit(uint32_t exited, uint32_t exiting);
uint32_t entryMaskAfterExit(uint32_t entryMask, uint32_t exiting);

}  // namespace qgpu::machine
