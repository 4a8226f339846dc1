// Memory-side units (docs/machine.md §1.3, §1.4): generic <-> space address conversion
// (CVTA), the new memory value of an atomic (ATOM/ATOMS), SHFL's source lane and VOTE's result. The loads,
// stores, the atomics' lane order and the lane exchange itself are the executor's (core.cpp).
#include <algorithm>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "unit_common.h"

namespace qgpu::machine {

uint32_t shuffleSource(uint32_t mode, uint32_t lane, uint32_t b, uint32_t c) {
  b &= 31;
  const uint32_t cval = c & 31, seg = (c >> 8) & 31;
  const uint32_t maxLane = (lane & seg) | (cval & ~seg), minLane = lane & seg;
  int64_t j;
  bool ok;
  switch (mode & 3) {
    case 0: j = int64_t{lane} - b; ok = j >= maxLane; break;
    case 1: j = int64_t{lane} + b; ok = j <= maxLane; break;
    case 2: j = lane ^ b; ok = j <= maxLane; break;
    default: j = minLane | (b & ~seg); ok = j <= maxLane; break;
  }
  return ok ? static_cast<uint32_t>(j) : lane;
}

uint32_t voteResult(uint32_t mode, bool negate, uint32_t executing, uint32_t members, uint32_t predicates) {
  const uint32_t votes = executing & (negate ? ~predicates : predicates);
  const uint32_t ballot = votes & members;
  switch (mode & 3) {
    case 0: return ballot == members;
    case 1: return ballot != 0;
    case 2: return ballot == 0 || ballot == members;
    default: return ballot;
  }
}

uint64_t atomicResult(const MInstr& in, uint64_t old, uint64_t b, uint64_t c) {
  const uint32_t w = in.bytes();
  const uint64_t m = widthMask(w);
  switch (static_cast<MAtom>(in.fl)) {
    case MAtom::And: return old & b & m;
    case MAtom::Or: return (old | b) & m;
    case MAtom::Xor: return (old ^ b) & m;
    case MAtom::Cas: return ((old & m) == (b & m) ? c : old) & m;
    case MAtom::Exch: return b & m;
    case MAtom::Add: return (old + b) & m;
    case MAtom::Inc: return (old & m) >= (b & m) ? 0 : (old + 1) & m;
    case MAtom::Dec: return ((old & m) == 0 || (old & m) > (b & m)) ? b & m : (old - 1) & m;
    case MAtom::Min: return static_cast<uint64_t>(std::min(units::val(in, old, w), units::val(in, b, w))) & m;
    case MAtom::Max: return static_cast<uint64_t>(std::max(units::val(in, old, w), units::val(in, b, w))) & m;
  }
  throw Error(ErrorKind::Input, fmt::format("ATOM: operation {} does not exist", in.fl));
}

namespace units {

uint64_t memoryUnit(const MInstr& in, uint64_t a, uint64_t b, uint64_t) {
  if (in.op != MOp::Cvta) notLaneLocal(in);
  const uint64_t m = widthMask(in.bytes());
  MSpace s = static_cast<MSpace>(in.fl & 7);
  // b: the space's window base, where its contents start (the lowering's ROM constant,
  // windowLayout); 0 for global.
  uint64_t win = b, v = a & m;
  if (in.fl & kFlCvtaTo) {
    const uint64_t window = windowOf(s);
    bool inside = window ? (v >= win && v < window + kWindowBytes)
                         : !(v >= kSharedWindow && v < kParamWindow + kWindowBytes);
    if (!inside)
      throw Error(ErrorKind::Undefined,
                  fmt::format("cvta.to.{}: generic address {:#x} is not in that state space", spaceName(s), v));
    return (v - win) & m;
  }
  return (v + win) & m;
}

}  // namespace units
}  // namespace qgpu::machine
