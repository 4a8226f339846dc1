// Half-precision arithmetic (PTX ISA §9.7.4 f16/f16x2, §9.7.5 bf16/bf16x2; element 0 =
// bits 15..0, element 1 = bits 31..16): add/sub/mul/fma (.rn only; .ftz and .sat on f16,
// .relu on fma), min/max (.ftz on f16, .NaN, .xorsign.abs), neg/abs.
//
// Each arithmetic element is computed exactly and rounded once. f16 sums and products, and
// bf16 products, are exact in double; a bf16 sum (exponents 2^-133..2^127) and every fma
// addition are taken to round-to-odd at 53 bits first (fp::sumToOdd; 53 >= 11 + 2), which
// the single rounding to the 16-bit format then makes correct.
// NaN results are the canonical NaN 0x7fff of both formats (CUDA's constant; the hardware
// bits are unverified). .ftz flushes subnormal inputs and results to zero of the same
// sign; .sat clamps to [0, 1] with NaN -> +0; .relu gives +0 for negative results (and -0)
// and keeps NaN canonical.
// min/max follow the ISA: -0 < +0; one NaN operand gives the other, both (or, with .NaN,
// either) give the canonical NaN; .xorsign.abs compares magnitudes and gives the result the
// XOR of the operands' signs unless it is NaN. neg/abs are sign operations on numbers
// (subnormals flushed first with .ftz); the ISA leaves the NaN result unspecified: the
// canonical NaN here (as for f32; unverified on hardware).
#include <cmath>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"
#include "numerics.h"
#include "sem_half.h"

namespace qgpu {
namespace {

enum class HOp { Add, Sub, Mul, Fma, Min, Max, Neg, Abs, Ex2, Tanh };
enum class Fmt { F16, BF16 };

// Instr::mode bits.
constexpr uint8_t kRelu = 1, kNaN = 2, kXorsign = 4;

template <Fmt F>
struct Format {
  static constexpr uint16_t kExp = F == Fmt::F16 ? 0x7c00 : 0x7f80;
  static constexpr uint16_t kMant = F == Fmt::F16 ? 0x03ff : 0x007f;
  static constexpr uint16_t kOne = F == Fmt::F16 ? 0x3c00 : 0x3f80;
  static constexpr uint16_t kNaNBits = 0x7fff;
  static bool isNaN(uint16_t h) { return (h & kExp) == kExp && (h & kMant); }
  static uint16_t flush(uint16_t h) { return (h & kExp) == 0 ? static_cast<uint16_t>(h & 0x8000) : h; }
  static double value(uint16_t h) { return F == Fmt::F16 ? fp::halfToDouble(h) : fp::bf16ToDouble(h); }
  static uint16_t round(double v) { return F == Fmt::F16 ? fp::floatToHalf(v, Rounding::Nearest) : fp::doubleToBf16(v); }
};

template <Fmt F>
uint16_t arithmetic(HOp op, const Instr& in, uint16_t a, uint16_t b, uint16_t c) {
  using H = Format<F>;
  if (in.ftz) {
    a = H::flush(a);
    b = H::flush(b);
    c = H::flush(c);
  }
  const double x = H::value(a), y = H::value(b), z = H::value(c);
  double v;
  switch (op) {
    case HOp::Add: v = F == Fmt::F16 ? x + y : fp::sumToOdd(x, y); break;   // f16: exact in double
    case HOp::Sub: v = F == Fmt::F16 ? x - y : fp::sumToOdd(x, -y); break;
    case HOp::Mul: v = x * y; break;  // exact in double (22 significant bits)
    default: v = fp::sumToOdd(x * y, z); break;
  }
  uint16_t r = H::round(v);  // NaN -> 0x7fff
  if (in.ftz) r = H::flush(r);
  if (in.sat) {
    if (H::isNaN(r)) return 0;      // NaN -> +0
    if (r & 0x8000) return 0;       // negative or -0 -> +0
    if (r >= H::kOne) return H::kOne;  // >= 1.0 (incl. +inf) -> 1.0
  }
  if (in.mode & kRelu) {
    if (H::isNaN(r)) return H::kNaNBits;
    if (r & 0x8000) return 0;
  }
  return r;
}

template <Fmt F>
uint16_t minMax(bool isMax, const Instr& in, uint16_t a, uint16_t b) {
  using H = Format<F>;
  if (in.ftz) {
    a = H::flush(a);
    b = H::flush(b);
  }
  const bool xorsign = in.mode & kXorsign;
  const uint16_t sign = (a ^ b) & 0x8000;
  if (xorsign) {
    a &= 0x7fff;
    b &= 0x7fff;
  }
  const bool na = H::isNaN(a), nb = H::isNaN(b);
  if ((na && nb) || ((in.mode & kNaN) && (na || nb))) return H::kNaNBits;
  uint16_t r;
  if (na) r = b;
  else if (nb) r = a;
  else {
    const double x = H::value(a), y = H::value(b);
    if (x == y) r = ((a & 0x8000) != 0) != isMax ? a : b;  // -0 < +0
    else r = (x < y) != isMax ? a : b;
  }
  if (xorsign) r = static_cast<uint16_t>((r & 0x7fff) | sign);
  return r;
}

template <Fmt F>
uint16_t signOp(bool isAbs, const Instr& in, uint16_t a) {
  using H = Format<F>;
  if (in.ftz) a = H::flush(a);
  if (H::isNaN(a)) return H::kNaNBits;
  return isAbs ? static_cast<uint16_t>(a & 0x7fff) : static_cast<uint16_t>(a ^ 0x8000);
}

// ex2.approx / tanh.approx (modelled, not measured: docs/semantics.md): the nearest value of
// the format to the double-precision libm function of the input; .ftz (bf16 ex2, where it
// is required) flushes the input and the result; NaN -> 0x7fff.
template <Fmt F>
uint16_t approx(bool tanhOp, const Instr& in, uint16_t a) {
  using H = Format<F>;
  if (in.ftz) a = H::flush(a);
  if (H::isNaN(a)) return H::kNaNBits;
  const double x = H::value(a);
  uint16_t r = H::round(tanhOp ? std::tanh(x) : std::exp2(x));
  if (in.ftz) r = H::flush(r);
  return r;
}

template <Fmt F, HOp op>
uint16_t element(const Instr& in, uint16_t a, uint16_t b, uint16_t c) {
  if constexpr (op == HOp::Ex2 || op == HOp::Tanh) return approx<F>(op == HOp::Tanh, in, a);
  else if constexpr (op == HOp::Min || op == HOp::Max) return minMax<F>(op == HOp::Max, in, a, b);
  else if constexpr (op == HOp::Neg || op == HOp::Abs) return signOp<F>(op == HOp::Abs, in, a);
  else return arithmetic<F>(op, in, a, b, c);
}

template <Fmt F, HOp op>
struct HalfScalar {
  static uint16_t apply(const Instr& in, uint16_t a) { return element<F, op>(in, a, 0, 0); }
  static uint16_t apply(const Instr& in, uint16_t a, uint16_t b) { return element<F, op>(in, a, b, 0); }
  static uint16_t apply(const Instr& in, uint16_t a, uint16_t b, uint16_t c) { return element<F, op>(in, a, b, c); }
};
template <Fmt F, HOp op>
struct HalfPair {
  static uint32_t elem(const Instr& in, uint32_t a, uint32_t b, uint32_t c, int k) {
    auto e = [k](uint32_t v) { return static_cast<uint16_t>(v >> (16 * k)); };
    return uint32_t{element<F, op>(in, e(a), e(b), e(c))} << (16 * k);
  }
  static uint32_t apply(const Instr& in, uint32_t a) { return elem(in, a, 0, 0, 0) | elem(in, a, 0, 0, 1); }
  static uint32_t apply(const Instr& in, uint32_t a, uint32_t b) { return elem(in, a, b, 0, 0) | elem(in, a, b, 0, 1); }
  static uint32_t apply(const Instr& in, uint32_t a, uint32_t b, uint32_t c) { return elem(in, a, b, c, 0) | elem(in, a, b, c, 1); }
};

template <Fmt F, HOp op>
void setOp(DecodeState& ds, ScalarType t) {
  const size_t n = op == HOp::Fma ? 3 : (op == HOp::Neg || op == HOp::Abs || op == HOp::Ex2 || op == HOp::Tanh) ? 1 : 2;
  const bool pair = t == ScalarType::F16x2 || t == ScalarType::BF16x2;
  if (n == 3) {
    pair ? setElementwise<HalfPair<F, op>, Ternary, uint32_t>(ds, t, 3) : setElementwise<HalfScalar<F, op>, Ternary, uint16_t>(ds, t, 3);
  } else if (n == 2) {
    pair ? setElementwise<HalfPair<F, op>, Binary, uint32_t>(ds, t, 2) : setElementwise<HalfScalar<F, op>, Binary, uint16_t>(ds, t, 2);
  } else {
    pair ? setElementwise<HalfPair<F, op>, Unary, uint32_t>(ds, t, 1) : setElementwise<HalfScalar<F, op>, Unary, uint16_t>(ds, t, 1);
  }
  // ptxas: "Arguments mismatch" unless every register is .b16 (.b32 for the x2 forms) or of
  // the instruction's type (.f16, .f16x2; there are no .bf16/.bf16x2 registers).
  ds.requireRegisterType(t, 0, n + 1);
}

template <Fmt F>
void setFor(DecodeState& ds, const std::string& op, ScalarType t) {
  if (op == "add") return setOp<F, HOp::Add>(ds, t);
  if (op == "sub") return setOp<F, HOp::Sub>(ds, t);
  if (op == "mul") return setOp<F, HOp::Mul>(ds, t);
  if (op == "fma") return setOp<F, HOp::Fma>(ds, t);
  if (op == "min") return setOp<F, HOp::Min>(ds, t);
  if (op == "max") return setOp<F, HOp::Max>(ds, t);
  if (op == "neg") return setOp<F, HOp::Neg>(ds, t);
  if (op == "abs") return setOp<F, HOp::Abs>(ds, t);
  if (op == "ex2") return setOp<F, HOp::Ex2>(ds, t);
  if (op == "tanh") return setOp<F, HOp::Tanh>(ds, t);
  ds.fail(fmt::format("'{}.{}' (half precision) is not supported", op, scalarTypeName(t)));
}

}  // namespace

// The modifiers and the targets as ptxas 13 decides (its messages in quotes).
void decodeHalfArithmetic(DecodeState& ds, const std::string& op, ScalarType t) {
  const bool bf = t == ScalarType::BF16 || t == ScalarType::BF16x2;
  const std::string tn = scalarTypeName(t);
  const bool arith = op == "add" || op == "sub" || op == "mul" || op == "fma";
  const bool minmax = op == "min" || op == "max";
  const bool sign = op == "neg" || op == "abs";
  if (op == "ex2" || op == "tanh") {
    // ptxas: ex2.approx.f16/f16x2 and tanh.approx.f16/f16x2 sm_75 / PTX 7.0 without .ftz;
    // ex2.approx.ftz.bf16/bf16x2 (".ftz modifier required") and tanh.approx.bf16/bf16x2
    // sm_90 / PTX 7.8.
    if (!ds.mods.take("approx")) ds.fail(fmt::format("{}.{} needs .approx", op, tn));
    ds.out.ftz = ds.mods.take("ftz");
    const bool ex2 = op == "ex2";
    if (ds.out.ftz && !(ex2 && bf)) ds.fail(fmt::format("illegal modifier .ftz for '{}.{}'", op, tn));
    if (ex2 && bf && !ds.out.ftz) ds.fail(fmt::format(".ftz modifier required for '{}.{}'", op, tn));
    if (bf) ds.requireFeature(op + "." + tn, 78, 90);
    else ds.requireFeature(op + "." + tn, 70, 75);
    return bf ? setFor<Fmt::BF16>(ds, op, t) : setFor<Fmt::F16>(ds, op, t);
  }
  if (!arith && !minmax && !sign) ds.fail(fmt::format("'{}.{}' (half precision) is not supported", op, tn));
  const int rnd = ds.mods.takeOneOf({"rn", "rz", "rm", "rp"});
  if (rnd > 0 || (rnd == 0 && !arith)) ds.fail(fmt::format("illegal rounding modifier for '{}.{}'", op, tn));
  if (op == "fma" && rnd < 0) ds.fail(fmt::format("rounding modifier (.rn) required for '{}.{}'", op, tn));
  ds.out.rounding = Rounding::Nearest;
  ds.out.ftz = ds.mods.take("ftz");
  if (ds.out.ftz && bf) ds.fail(fmt::format("illegal modifier .ftz for '{}.{}'", op, tn));
  ds.out.sat = ds.mods.take("sat");
  if (ds.out.sat && (bf || !arith)) ds.fail(fmt::format("illegal modifier .sat for '{}.{}'", op, tn));
  uint8_t mode = 0;
  if (ds.mods.take("relu")) {
    if (op != "fma") ds.fail(fmt::format("illegal modifier .relu for '{}.{}'", op, tn));
    if (ds.out.sat) ds.fail("modifier '.relu' cannot be combined with modifier '.sat'");
    ds.requireFeature("fma.relu", 70, 80);
    mode |= kRelu;
  }
  if (ds.mods.take("NaN")) {
    if (!minmax) ds.fail(fmt::format("illegal modifier .NaN for '{}.{}'", op, tn));
    mode |= kNaN;
  }
  const bool xs = ds.mods.take("xorsign"), ab = ds.mods.take("abs");
  if (xs || ab) {
    if (!minmax) ds.fail(fmt::format("illegal modifier .{} for '{}.{}'", xs ? "xorsign" : "abs", op, tn));
    if (!xs) ds.fail("modifier '.abs' requires modifier '.xorsign'");
    if (!ab) ds.fail("modifier '.xorsign' requires modifier '.abs'");
    ds.requireFeature(".xorsign.abs", 72, 86);
    mode |= kXorsign;
  }
  ds.out.mode = mode;
  if (minmax) ds.requireFeature(op + "." + tn, 70, 80);
  if (bf) {
    if (op == "add" || op == "sub" || op == "mul") ds.requireFeature(op + "." + tn, 78, 90);
    else ds.requireFeature(op + "." + tn, 70, 80);
  } else if (sign) {
    ds.requireFeature(op + "." + tn, op == "neg" ? 60 : 65, 53);  // ptxas: abs.f16 needs PTX ISA 6.5
  } else if (arith) {
    ds.requireFeature(op + "." + tn, 42, 53);
  }
  bf ? setFor<Fmt::BF16>(ds, op, t) : setFor<Fmt::F16>(ds, op, t);
}

}  // namespace qgpu
