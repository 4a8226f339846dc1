// Half-precision arithmetic on sm_75 (PTX ISA §9.7.4): add/sub/mul/fma on
// .f16 and .f16x2 (element 0 = bits 15..0, element 1 = bits 31..16), only
// .rn, with .ftz and .sat. Each element is computed exactly and rounded once:
// sums and products of two halves are exact in double; fma's product is
// exact and the addition is taken to round-to-odd at 53 bits before the
// single rounding to binary16 (53 >= 11 + 2, so that is innocuous).
// NaN results are the canonical half NaN 0x7fff (CUDA's constant; the
// hardware bits are unverified). .ftz flushes subnormal inputs and results to
// zero of the same sign; .sat clamps to [0, 1] with NaN -> +0.
#include <cmath>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"
#include "numerics.h"
#include "sem_half.h"

namespace qgpu {
namespace {

enum class HOp { Add, Sub, Mul, Fma };

uint16_t flushHalf(uint16_t h) { return (h & 0x7c00) == 0 ? static_cast<uint16_t>(h & 0x8000) : h; }

uint16_t halfElement(HOp op, bool ftz, bool sat, uint16_t a, uint16_t b, uint16_t c) {
  if (ftz) {
    a = flushHalf(a);
    b = flushHalf(b);
    c = flushHalf(c);
  }
  double x = fp::halfToDouble(a), y = fp::halfToDouble(b), z = fp::halfToDouble(c);
  double v;
  switch (op) {
    case HOp::Add: v = x + y; break;  // exact in double
    case HOp::Sub: v = x - y; break;  // exact in double
    case HOp::Mul: v = x * y; break;  // exact in double (22 significant bits)
    default: v = fp::sumToOdd(x * y, z); break;
  }
  uint16_t r = fp::floatToHalf(v, Rounding::Nearest);  // NaN -> 0x7fff
  if (ftz) r = flushHalf(r);
  if (sat) {
    if ((r & 0x7c00) == 0x7c00 && (r & 0x3ff)) return 0;  // NaN -> +0
    if (r & 0x8000) return 0;                              // negative or -0 -> +0
    if (r >= 0x3c00) return 0x3c00;                        // >= 1.0 (incl. +inf) -> 1.0
  }
  return r;
}

template <HOp op>
struct HalfScalar {
  static uint16_t apply(const Instr& in, uint16_t a, uint16_t b) { return halfElement(op, in.ftz, in.sat, a, b, 0); }
  static uint16_t apply(const Instr& in, uint16_t a, uint16_t b, uint16_t c) { return halfElement(op, in.ftz, in.sat, a, b, c); }
};
template <HOp op>
struct HalfPair {
  static uint32_t elem(const Instr& in, uint32_t a, uint32_t b, uint32_t c, int k) {
    auto e = [k](uint32_t v) { return static_cast<uint16_t>(v >> (16 * k)); };
    return uint32_t{halfElement(op, in.ftz, in.sat, e(a), e(b), e(c))} << (16 * k);
  }
  static uint32_t apply(const Instr& in, uint32_t a, uint32_t b) { return elem(in, a, b, 0, 0) | elem(in, a, b, 0, 1); }
  static uint32_t apply(const Instr& in, uint32_t a, uint32_t b, uint32_t c) { return elem(in, a, b, c, 0) | elem(in, a, b, c, 1); }
};


template <HOp op>
void setOp(DecodeState& ds, ScalarType t) {
  size_t n = op == HOp::Fma ? 3 : 2;
  bool pair = t == ScalarType::F16x2;
  if (n == 3) {
    pair ? setElementwise<HalfPair<op>, Ternary, uint32_t>(ds, t, 3) : setElementwise<HalfScalar<op>, Ternary, uint16_t>(ds, t, 3);
  } else {
    pair ? setElementwise<HalfPair<op>, Binary, uint32_t>(ds, t, 2) : setElementwise<HalfScalar<op>, Binary, uint16_t>(ds, t, 2);
  }
}

}  // namespace

void decodeHalfArithmetic(DecodeState& ds, const std::string& op, ScalarType t) {
  if (t != ScalarType::F16 && t != ScalarType::F16x2)
    ds.fail(fmt::format("'{}.{}' is not available on sm_75", op, scalarTypeName(t)));
  int rnd = ds.mods.takeOneOf({"rn", "rz", "rm", "rp"});
  if (rnd > 0) ds.fail(fmt::format("{}.{} supports only .rn", op, scalarTypeName(t)));
  ds.out.rounding = Rounding::Nearest;
  ds.out.ftz = ds.mods.take("ftz");
  ds.out.sat = ds.mods.take("sat");
  if (op == "add") return setOp<HOp::Add>(ds, t);
  if (op == "sub") return setOp<HOp::Sub>(ds, t);
  if (op == "mul") return setOp<HOp::Mul>(ds, t);
  if (op == "fma") return setOp<HOp::Fma>(ds, t);
  ds.fail(fmt::format("'{}.{}' (half precision) is not supported", op, scalarTypeName(t)));
}

}  // namespace qgpu
