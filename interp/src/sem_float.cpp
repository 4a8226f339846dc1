// Floating-point arithmetic (PTX ISA §9.7.3 f32/f64, §9.7.4 half). The exact
// operations go through numerics.cpp (explicit rounding mode); .ftz flushes
// subnormal inputs and results to signed zero; .sat clamps to [0,1] with NaN
// -> +0; f32 NaN results are the canonical 0x7fffffff.
//
// Approximate instructions (rcp/sqrt/rsqrt/ex2/lg2/sin/cos/tanh .approx,
// div.approx, div.full) are MODELLED, not measured: the result is the f32
// rounding (nearest even) of the double-precision libm function; see
// docs/semantics.md. Their hardware bits are not known yet.
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"
#include "numerics.h"
#include "sem_half.h"

namespace qgpu {
namespace {

inline float inF(const Instr& in, float x) { return in.ftz ? fp::flushSubnormal(x) : x; }
inline float outF(const Instr& in, float x) {
  x = fp::canonical(x);
  if (in.ftz) x = fp::flushSubnormal(x);
  if (in.sat) x = fp::saturate(x);
  return x;
}
inline double outD(const Instr& in, double x) { return in.sat ? fp::saturate(x) : x; }

// ---------------------------------------------------------------- f32
struct AddF32 { static float apply(const Instr& in, float a, float b) { return outF(in, fp::add(inF(in, a), inF(in, b), in.rounding)); } };
struct SubF32 { static float apply(const Instr& in, float a, float b) { return outF(in, fp::add(inF(in, a), -inF(in, b), in.rounding)); } };
struct MulF32 { static float apply(const Instr& in, float a, float b) { return outF(in, fp::mul(inF(in, a), inF(in, b), in.rounding)); } };
struct FmaF32 { static float apply(const Instr& in, float a, float b, float c) { return outF(in, fp::fma(inF(in, a), inF(in, b), inF(in, c), in.rounding)); } };
struct DivF32 { static float apply(const Instr& in, float a, float b) { return outF(in, fp::div(inF(in, a), inF(in, b), in.rounding)); } };
struct SqrtF32 { static float apply(const Instr& in, float a) { return outF(in, fp::sqrt(inF(in, a), in.rounding)); } };
struct RcpF32 { static float apply(const Instr& in, float a) { return outF(in, fp::div(1.0f, inF(in, a), in.rounding)); } };

// min/max: one NaN -> the other operand; -0 < +0. Instr::mode bit 1 (.NaN): any NaN operand
// gives the canonical NaN; bit 2 (.xorsign.abs): magnitudes compared, a non-NaN result
// signed with the XOR of the operands' signs (PTX ISA 7.0 / 7.2; as for the 16-bit forms).
template <bool kMax>
float minMaxF32(const Instr& in, float a, float b) {
  a = inF(in, a);
  b = inF(in, b);
  const bool xorsign = in.mode & 4;
  const bool negative = std::signbit(a) != std::signbit(b);
  if (xorsign) {
    a = std::fabs(a);
    b = std::fabs(b);
  }
  const bool na = std::isnan(a), nb = std::isnan(b);
  if ((na && nb) || ((in.mode & 2) && (na || nb))) return std::bit_cast<float>(0x7fffffffu);
  float r;
  if (na) r = b;
  else if (nb) r = a;
  else if (a == b) r = std::signbit(a) != kMax ? a : b;
  else r = (a < b) != kMax ? a : b;
  r = outF(in, r);
  if (xorsign) r = std::copysign(r, negative ? -1.0f : 1.0f);
  return r;
}
struct MinF32 { static float apply(const Instr& in, float a, float b) { return minMaxF32<false>(in, a, b); } };
struct MaxF32 { static float apply(const Instr& in, float a, float b) { return minMaxF32<true>(in, a, b); } };
// abs/neg: sign-bit operations on numbers; a NaN input gives the canonical
// NaN (the FADD-style lowering ptxas uses for sm_75; unverified on hardware).
struct AbsF32 { static float apply(const Instr& in, float a) { return std::isnan(a) ? fp::canonical(a) : inF(in, std::fabs(a)); } };
struct NegF32 { static float apply(const Instr& in, float a) { return std::isnan(a) ? fp::canonical(a) : inF(in, -a); } };
struct CopysignF32 { static float apply(const Instr&, float a, float b) { return std::copysign(b, a); } };

// Modelled approximations (see file comment).
inline float model(const Instr& in, double v) {
  float r = static_cast<float>(v);
  return outF(in, r);
}
struct RcpApproxF32 { static float apply(const Instr& in, float a) { return model(in, 1.0 / inF(in, a)); } };
struct SqrtApproxF32 { static float apply(const Instr& in, float a) { return model(in, std::sqrt(static_cast<double>(inF(in, a)))); } };
struct RsqrtApproxF32 { static float apply(const Instr& in, float a) { return model(in, 1.0 / std::sqrt(static_cast<double>(inF(in, a)))); } };
struct Ex2ApproxF32 { static float apply(const Instr& in, float a) { return model(in, std::exp2(static_cast<double>(inF(in, a)))); } };
struct Lg2ApproxF32 { static float apply(const Instr& in, float a) { return model(in, std::log2(static_cast<double>(inF(in, a)))); } };
struct SinApproxF32 { static float apply(const Instr& in, float a) { return model(in, std::sin(static_cast<double>(inF(in, a)))); } };
struct CosApproxF32 { static float apply(const Instr& in, float a) { return model(in, std::cos(static_cast<double>(inF(in, a)))); } };
struct TanhApproxF32 {
  static float apply(const Instr& in, float a) {
    if (std::fpclassify(a) == FP_SUBNORMAL) return a;  // passes through unchanged
    return model(in, std::tanh(static_cast<double>(a)));
  }
};
struct DivFullF32 { static float apply(const Instr& in, float a, float b) { return model(in, static_cast<double>(inF(in, a)) / inF(in, b)); } };
struct DivApproxF32 {
  static float apply(const Instr& in, float a, float b) {
    Instr plain = in;
    plain.sat = false;
    // The ISA: for 2^126 < |b| < 2^128 the result is +-0, or NaN if a is
    // infinite, i.e. the reciprocal's subnormal result is flushed.
    float r = fp::flushSubnormal(RcpApproxF32::apply(plain, b));
    return outF(in, inF(in, a) * r);
  }
};

// ---------------------------------------------------------------- f64
struct AddF64 { static double apply(const Instr& in, double a, double b) { return outD(in, fp::add(a, b, in.rounding)); } };
struct SubF64 {
  static double apply(const Instr& in, double a, double b) {
    double nb = std::isnan(b) ? b : -b;
    return outD(in, fp::add(a, nb, in.rounding));
  }
};
struct MulF64 { static double apply(const Instr& in, double a, double b) { return outD(in, fp::mul(a, b, in.rounding)); } };
struct FmaF64 { static double apply(const Instr& in, double a, double b, double c) { return outD(in, fp::fma(a, b, c, in.rounding)); } };
struct DivF64 { static double apply(const Instr& in, double a, double b) { return fp::div(a, b, in.rounding); } };
struct SqrtF64 { static double apply(const Instr& in, double a) { return fp::sqrt(a, in.rounding); } };
struct RcpF64 { static double apply(const Instr& in, double a) { return fp::div(1.0, a, in.rounding); } };
struct MinF64 {
  static double apply(const Instr&, double a, double b) {
    if (std::isnan(a) && std::isnan(b)) return std::bit_cast<double>(fp::kCanonicalNaN64);
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    if (a == b) return std::signbit(a) ? a : b;
    return a < b ? a : b;
  }
};
struct MaxF64 {
  static double apply(const Instr&, double a, double b) {
    if (std::isnan(a) && std::isnan(b)) return std::bit_cast<double>(fp::kCanonicalNaN64);
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    if (a == b) return std::signbit(a) ? b : a;
    return a > b ? a : b;
  }
};
// f64 abs/neg are pure sign-bit operations, NaNs included (documented).
struct AbsF64 { static double apply(const Instr&, double a) { return std::bit_cast<double>(std::bit_cast<uint64_t>(a) & ~(1ull << 63)); } };
struct NegF64 { static double apply(const Instr&, double a) { return std::bit_cast<double>(std::bit_cast<uint64_t>(a) ^ (1ull << 63)); } };
struct CopysignF64 { static double apply(const Instr&, double a, double b) { return std::copysign(b, a); } };
struct RsqrtApproxF64 { static double apply(const Instr&, double a) { return 1.0 / std::sqrt(a); } };

// testp: mode = 0 finite, 1 infinite, 2 number, 3 notanumber, 4 normal, 5 subnormal.
template <class T>
void testpHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  forLanes(c, m, [&](uint32_t l) {
    T x = as<T>(a[l]);
    bool r = false;
    switch (in.mode) {
      case 0: r = std::isfinite(x); break;
      case 1: r = std::isinf(x); break;
      case 2: r = !std::isnan(x); break;
      case 3: r = std::isnan(x); break;
      case 4: r = std::fpclassify(x) == FP_NORMAL || x == 0; break;  // ±0 counts as normal
      case 5: r = std::fpclassify(x) == FP_SUBNORMAL; break;
    }
    d[l] = r ? 1 : 0;
  });
}

// ---------------------------------------------------------------- decoding
Rounding takeRounding(DecodeState& ds) {
  switch (ds.mods.takeOneOf({"rn", "rz", "rm", "rp"})) {
    case 0: return Rounding::Nearest;
    case 1: return Rounding::Zero;
    case 2: return Rounding::Down;
    case 3: return Rounding::Up;
    default: return Rounding::None;
  }
}

void noFtzSatOn64(DecodeState& ds, ScalarType t) {
  if (t == ScalarType::F64 && ds.out.ftz) ds.fail(".ftz is not valid for .f64");
}

void decodeF(DecodeState& ds, const std::string& op, ScalarType t) {
  bool f32 = t == ScalarType::F32;
  if (t == ScalarType::F16 || t == ScalarType::F16x2 || t == ScalarType::BF16 || t == ScalarType::BF16x2)
    return decodeHalfArithmetic(ds, op, t);
  if (t != ScalarType::F32 && t != ScalarType::F64)
    ds.fail(fmt::format("'{}.{}' is not a floating-point type", op, scalarTypeName(t)));
  ds.out.ftz = ds.mods.take("ftz");
  noFtzSatOn64(ds, t);
  if (op == "add" || op == "sub" || op == "mul") {
    ds.out.rounding = takeRounding(ds);
    ds.out.sat = ds.mods.take("sat");
    if (!f32 && ds.out.sat) ds.fail(".sat is not valid for .f64");
    if (op == "add") f32 ? setElementwise<AddF32, Binary, float>(ds, t, 2) : setElementwise<AddF64, Binary, double>(ds, t, 2);
    if (op == "sub") f32 ? setElementwise<SubF32, Binary, float>(ds, t, 2) : setElementwise<SubF64, Binary, double>(ds, t, 2);
    if (op == "mul") f32 ? setElementwise<MulF32, Binary, float>(ds, t, 2) : setElementwise<MulF64, Binary, double>(ds, t, 2);
    return;
  }
  if (op == "fma" || op == "mad") {
    ds.out.rounding = takeRounding(ds);
    ds.out.sat = ds.mods.take("sat");
    if (ds.out.rounding == Rounding::None)
      ds.fail(fmt::format("'{}.{}' needs a rounding modifier (.rn/.rz/.rm/.rp)", op, scalarTypeName(t)));
    if (!f32 && ds.out.sat) ds.fail(".sat is not valid for .f64");
    f32 ? setElementwise<FmaF32, Ternary, float>(ds, t, 3) : setElementwise<FmaF64, Ternary, double>(ds, t, 3);
    return;
  }
  if (op == "div") {
    int kind = ds.mods.takeOneOf({"approx", "full"});
    ds.out.rounding = takeRounding(ds);
    if (kind >= 0 && ds.out.rounding != Rounding::None) ds.fail("div cannot be both approximate and rounded");
    if (kind < 0 && ds.out.rounding == Rounding::None) ds.fail("div.f32/.f64 needs .approx, .full or a rounding modifier");
    if (!f32 && kind >= 0) ds.fail("div.approx/.full exist only for .f32");
    if (kind == 0) return setElementwise<DivApproxF32, Binary, float>(ds, t, 2);
    if (kind == 1) return setElementwise<DivFullF32, Binary, float>(ds, t, 2);
    f32 ? setElementwise<DivF32, Binary, float>(ds, t, 2) : setElementwise<DivF64, Binary, double>(ds, t, 2);
    return;
  }
  if (op == "rcp" || op == "sqrt") {
    bool approx = ds.mods.take("approx");
    ds.out.rounding = takeRounding(ds);
    if (approx == (ds.out.rounding != Rounding::None)) ds.fail(fmt::format("{} needs either .approx or a rounding modifier", op));
    if (approx && !f32) ds.fail(fmt::format("{}.approx.f64 is not supported yet", op));
    if (op == "rcp") {
      if (approx) return setElementwise<RcpApproxF32, Unary, float>(ds, t, 1);
      f32 ? setElementwise<RcpF32, Unary, float>(ds, t, 1) : setElementwise<RcpF64, Unary, double>(ds, t, 1);
    } else {
      if (approx) return setElementwise<SqrtApproxF32, Unary, float>(ds, t, 1);
      f32 ? setElementwise<SqrtF32, Unary, float>(ds, t, 1) : setElementwise<SqrtF64, Unary, double>(ds, t, 1);
    }
    return;
  }
  if (op == "rsqrt" || op == "ex2" || op == "lg2" || op == "sin" || op == "cos" || op == "tanh") {
    if (!ds.mods.take("approx")) ds.fail(fmt::format("{} needs .approx", op));
    if (op == "rsqrt" && !f32) return setElementwise<RsqrtApproxF64, Unary, double>(ds, t, 1);
    if (!f32) ds.fail(fmt::format("{}.approx.f64 does not exist", op));
    if (op == "rsqrt") return setElementwise<RsqrtApproxF32, Unary, float>(ds, t, 1);
    if (op == "ex2") return setElementwise<Ex2ApproxF32, Unary, float>(ds, t, 1);
    if (op == "lg2") return setElementwise<Lg2ApproxF32, Unary, float>(ds, t, 1);
    if (op == "sin") return setElementwise<SinApproxF32, Unary, float>(ds, t, 1);
    if (op == "cos") return setElementwise<CosApproxF32, Unary, float>(ds, t, 1);
    if (ds.out.ftz) ds.fail("tanh.approx has no .ftz");
    return setElementwise<TanhApproxF32, Unary, float>(ds, t, 1);
  }
  if (op == "min" || op == "max") {
    // ptxas: .NaN needs sm_80 / PTX 7.0, .xorsign.abs sm_86 / PTX 7.2, neither exists for .f64.
    uint8_t mode = 0;
    if (ds.mods.take("NaN")) {
      if (!f32) ds.fail(fmt::format("illegal modifier .NaN for '{}.f64'", op));
      ds.requireFeature(".NaN", 70, 80);
      mode |= 2;
    }
    const bool xs = ds.mods.take("xorsign"), ab = ds.mods.take("abs");
    if (xs || ab) {
      if (!f32) ds.fail(fmt::format("illegal modifier .xorsign for '{}.f64'", op));
      if (!xs) ds.fail("modifier '.abs' requires modifier '.xorsign'");
      if (!ab) ds.fail("modifier '.xorsign' requires modifier '.abs'");
      ds.requireFeature(".xorsign.abs", 72, 86);
      mode |= 4;
    }
    ds.out.mode = mode;
  }
  if (op == "min") return f32 ? setElementwise<MinF32, Binary, float>(ds, t, 2) : setElementwise<MinF64, Binary, double>(ds, t, 2);
  if (op == "max") return f32 ? setElementwise<MaxF32, Binary, float>(ds, t, 2) : setElementwise<MaxF64, Binary, double>(ds, t, 2);
  if (op == "abs") return f32 ? setElementwise<AbsF32, Unary, float>(ds, t, 1) : setElementwise<AbsF64, Unary, double>(ds, t, 1);
  if (op == "neg") return f32 ? setElementwise<NegF32, Unary, float>(ds, t, 1) : setElementwise<NegF64, Unary, double>(ds, t, 1);
  if (op == "copysign") return f32 ? setElementwise<CopysignF32, Binary, float>(ds, t, 2) : setElementwise<CopysignF64, Binary, double>(ds, t, 2);
  ds.fail(fmt::format("'{}' is not a floating-point instruction", op));
}

}  // namespace

namespace {
// Every operand of the f32/f64 forms has the instruction type (the half forms check their own).
void requireFloatOperands(DecodeState& ds, ScalarType t) {
  if (t == ScalarType::F32 || t == ScalarType::F64) ds.requireRegisterType(t, 0, ds.in.operands.size());
}
}  // namespace

void decodeFloatOnly(DecodeState& ds) {
  auto types = ds.mods.takeTypes();
  if (types.size() != 1) ds.fail(fmt::format("'{}' needs exactly one type", ds.in.opcode));
  decodeF(ds, ds.in.opcode, types[0]);
  requireFloatOperands(ds, types[0]);
}

void decodeTestp(DecodeState& ds) {
  int mode = ds.mods.takeOneOf({"finite", "infinite", "number", "notanumber", "normal", "subnormal"});
  if (mode < 0) ds.fail("testp needs .finite, .infinite, .number, .notanumber, .normal or .subnormal");
  auto types = ds.mods.takeTypes();
  if (types.size() != 1 || (types[0] != ScalarType::F32 && types[0] != ScalarType::F64))
    ds.fail("testp needs .f32 or .f64");
  ds.out.mode = static_cast<uint8_t>(mode);
  ds.out.fn = types[0] == ScalarType::F32 ? &testpHandler<float> : &testpHandler<double>;
  ds.expectOperands(2);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  ds.out.s[0] = ds.source(ds.in.operands[1], types[0]);
  ds.requireRegisterType(types[0], 1, 2);
}

void decodeFloatArithmetic(DecodeState& ds, ScalarType) {
  auto types = ds.mods.takeTypes();
  if (types.size() != 1) ds.fail(fmt::format("'{}' needs exactly one type", ds.in.opcode));
  decodeF(ds, ds.in.opcode, types[0]);
  requireFloatOperands(ds, types[0]);
}

}  // namespace qgpu
