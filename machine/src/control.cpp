// Control decisions of the machine (control.h).
#include "qgpu/machine/control.h"

namespace qgpu::machine {

uint32_t guardedMask(uint32_t mask, bool hasGuard, bool negated, uint32_t predicates) {
  if (!hasGuard) return mask;
  return mask & (negated ? ~predicates : predicates);
}

BranchUpdate branchUpdate(uint32_t mask, uint32_t taken, uint32_t pc, uint32_t target, uint32_t rpc, uint32_t topRpc) {
  BranchUpdate u;
  u.notTaken = mask & ~taken;
  u.topPc = pc + 1;
  if (taken == 0) return u;
  if (u.notTaken == 0) {
    u.kind = BranchUpdate::Kind::AllTaken;
    u.topPc = target;
    return u;
  }
  u.kind = BranchUpdate::Kind::Diverged;
  u.popTop = topRpc == rpc;
  u.topPc = rpc;
  u.pushFallthrough = pc + 1 != rpc;
  u.pushTaken = target != rpc;
  return u;
}

uint32_t exitedAfterExit(uint32_t exited, uint32_t exiting) { return exited | exiting; }

uint32_t entryMaskAfterExit(uint32_t entryMask, uint32_t exiting) { return entryMask & ~exiting; }

}  // namespace qgpu::machine
