// Memory-side units (docs/machine.md §1.3, §1.4): generic <-> space address conversion
// (CVTA) and the new memory value of an atomic (ATOM/ATOMS). The loads, stores and the
// atomics' lane order are the executor's (core.cpp).
#include <algorithm>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "unit_common.h"

namespace qgpu::machine {

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

uint64_t memoryUnit(const MInstr& in, uint64_t a, uint64_t, uint64_t) {
  if (in.op != MOp::Cvta) notLaneLocal(in);
  const uint64_t m = widthMask(in.bytes());
  MSpace s = static_cast<MSpace>(in.fl & 7);
  uint64_t win = windowOf(s), v = a & m;
  if (in.fl & kFlCvtaTo) {
    bool inside = win ? (v >= win && v < win + kWindowBytes)
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
