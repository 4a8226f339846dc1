// cvt forms that put two (or more) results in one register (PTX ISA §9.7.9.21):
//   cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2}.f32      d, a, b    d = {cvt(a), cvt(b)}
//   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32             d, a, b    d16 = {cvt(a), cvt(b)}
//   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2           d, a       d16 = {cvt(a.hi), cvt(a.lo)}
//   cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}                     d, a       d = {f16(a.hi8), f16(a.lo8)}
//   cvt.pack.sat.{u16,s16}.s32                              d, a, b    d = {sat(a), sat(b)}
//   cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32                d, a, b, c d = {c << 2n, sat(a), sat(b)}
// ({x, y}: x in the upper bits, as the ISA writes it.) Each element is rounded once from its
// exact value (fp::roundToSmall); NaN results are the canonical NaN of the destination format
// (0x7fff for f16/bf16, 0x7f for e4m3/e5m2: CUDA's constants, unverified on hardware).
// .relu makes negative results (and -0) +0, .satfinite clamps to +-max finite (infinities
// included); e4m3 has no infinity, so ptxas requires .satfinite for the fp8 destinations.
// fp8 -> f16 is exact (every e4m3/e5m2 value is an f16).
#include <cmath>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"
#include "numerics.h"
#include "sem_convert_packed.h"

namespace qgpu {
namespace {

// Instr::mode bits.
constexpr uint8_t kRelu = 1, kSatfinite = 2, kBF16 = 4, kE5M2 = 8, kFromHalfPair = 16;

const fp::SmallFormat& fp8Format(const Instr& in) { return in.mode & kE5M2 ? fp::kE5M2Format : fp::kE4M3Format; }

// One element of a 16-bit (f16/bf16) or 8-bit (fp8) destination from the exact value v.
uint32_t narrow(double v, const fp::SmallFormat& f, uint32_t nanBits, const Instr& in) {
  if (std::isnan(v)) return nanBits;
  uint32_t r = fp::roundToSmall(v, in.rounding, f, in.mode & kSatfinite);
  const uint32_t signBit = 1u << (f.ebits + f.mant);
  if ((in.mode & kRelu) && (r & signBit)) r = 0;
  return r;
}

double f32Value(uint64_t bits) { return static_cast<double>(as<float>(bits)); }

// f16x2 / bf16x2 from two f32: a to bits 31..16, b to bits 15..0.
void pairFromF32Handler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const fp::SmallFormat& f = in.mode & kBF16 ? fp::kBF16Format : fp::kF16Format;
  forLanes(c, m, [&](uint32_t l) {
    d[l] = (narrow(f32Value(a[l]), f, 0x7fff, in) << 16) | narrow(f32Value(b[l]), f, 0x7fff, in);
  });
}

// e4m3x2 / e5m2x2 from two f32 (a to bits 15..8) or from the halves of an f16x2.
void fp8FromHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = in.mode & kFromHalfPair ? nullptr : c.reg(in.s[1]);
  const fp::SmallFormat& f = fp8Format(in);
  forLanes(c, m, [&](uint32_t l) {
    double hi, lo;
    if (b) {
      hi = f32Value(a[l]);
      lo = f32Value(b[l]);
    } else {
      hi = fp::halfToDouble(static_cast<uint16_t>(a[l] >> 16));
      lo = fp::halfToDouble(static_cast<uint16_t>(a[l]));
    }
    d[l] = (narrow(hi, f, 0x7f, in) << 8) | narrow(lo, f, 0x7f, in);
  });
}

// f16x2 from e4m3x2 / e5m2x2: bits 15..8 to element 1, 7..0 to element 0; exact.
void halfPairFromFp8Handler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const fp::SmallFormat& f = fp8Format(in);
  forLanes(c, m, [&](uint32_t l) {
    auto one = [&](uint32_t byte) { return narrow(fp::smallToDouble(byte, f), fp::kF16Format, 0x7fff, in); };
    d[l] = (one((a[l] >> 8) & 0xff) << 16) | one(a[l] & 0xff);
  });
}

// cvt.pack.sat: Instr::count = the element width n; mode bit 0: signed. a and b are clamped
// to the n-bit range and packed {a, b} into the low 2n bits; c fills the bits above (n < 16).
void packSatHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* hi = in.count < 16 ? c.reg(in.s[2]) : nullptr;
  const int n = in.count;
  const bool sign = in.mode & 1;
  const int64_t lo = sign ? -(int64_t{1} << (n - 1)) : 0;
  const int64_t top = sign ? (int64_t{1} << (n - 1)) - 1 : (int64_t{1} << n) - 1;
  const uint32_t mask = (1u << n) - 1;
  auto sat = [&](uint64_t v) {
    const int64_t x = as<int32_t>(v);
    return static_cast<uint32_t>(x < lo ? lo : x > top ? top : x) & mask;
  };
  forLanes(c, m, [&](uint32_t l) {
    uint32_t r = (sat(a[l]) << n) | sat(b[l]);
    if (hi) r |= static_cast<uint32_t>(hi[l]) << (2 * n);
    d[l] = r;
  });
}

// An fp8 pair (.e4m3x2/.e5m2x2) lives in a .b16 register: ptxas 13 refuses .u16, .s16 and
// .f16 ones ("Arguments mismatch"); there is no fp8 register type.
void requireFp8Register(DecodeState& ds, size_t i, const char* role) {
  const auto t = ds.declaredRegisterType(i);
  if (t && *t != ScalarType::B16)
    ds.fail(fmt::format("'{}' is a .{} register; the {} of '{}' (an fp8 pair) needs a .b16 register",
                        ds.in.operands[i].name, scalarTypeName(*t), role, ds.in.text));
}

void requireRegister(DecodeState& ds, size_t i, const char* what) {
  if (!ds.namesRegister(ds.in.operands[i])) ds.fail(fmt::format("{} must be a register (ptxas: arguments mismatch)", what));
}
void requireBytes(DecodeState& ds, uint32_t slot, uint32_t bytes, const char* what) {
  if (ds.slotBytes(slot) != bytes) ds.fail(fmt::format("{} must be a {}-bit register (ptxas: arguments mismatch)", what, 8 * bytes));
}

// fp8 forms exist on sm_90 from PTX ISA 7.8 and on sm_89 from 8.1 (ptxas 13: "Feature 'cvt
// with .e4m3x2/.e5m2x2' requires .target sm_90 or higher" on sm_89 with 7.8).
void requireFp8(DecodeState& ds) {
  ds.requireFeature("cvt with .e4m3x2/.e5m2x2", 78, 89);
  if (ds.smTarget() < 90) ds.requireFeature("cvt with .e4m3x2/.e5m2x2 on sm_89", 81, 89);
}

}  // namespace

void decodeCvtPairFromF32(DecodeState& ds, bool bf, ScalarType src, int frnd, bool relu, bool satfinite) {
  const char* tn = bf ? "bf16x2" : "f16x2";
  if (src != ScalarType::F32) ds.fail(fmt::format("unexpected instruction types .{}.{} for 'cvt'", tn, scalarTypeName(src)));
  if (frnd < 0) ds.fail(fmt::format("rounding modifier (.rn or .rz) required for 'cvt.{}.f32'", tn));
  if (frnd > 1) ds.fail(fmt::format("illegal rounding modifier for 'cvt.{}.f32' (.rn or .rz)", tn));
  if (ds.out.ftz || ds.out.sat) ds.fail(fmt::format("illegal modifier '.{}' for 'cvt.{}.f32'", ds.out.ftz ? "ftz" : "sat", tn));
  ds.requireFeature(fmt::format("cvt.{}.f32", tn), 70, 80);
  if (satfinite) ds.requireFeature("cvt.satfinite", 81, 80);
  ds.out.rounding = frnd == 0 ? Rounding::Nearest : Rounding::Zero;
  ds.out.mode = static_cast<uint8_t>((relu ? kRelu : 0) | (satfinite ? kSatfinite : 0) | (bf ? kBF16 : 0));
  ds.out.fn = &pairFromF32Handler;
  ds.expectOperands(3);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  requireBytes(ds, ds.out.d[0], 4, "the destination");
  ds.out.s[0] = ds.source(ds.in.operands[1], ScalarType::F32);
  ds.out.s[1] = ds.source(ds.in.operands[2], ScalarType::F32);
  // ptxas 13: d a .b32 register or (f16x2 only) an .f16x2 one; a and b .f32 or .b32 ones, for
  // f16x2 also wider .bN ones (and d a .b64 one, which the width check above still refuses).
  ds.requireOperandType(0, bf ? ScalarType::BF16x2 : ScalarType::F16x2, false, "destination");
  ds.requireOperandType(1, ScalarType::F32, !bf, "first source");
  ds.requireOperandType(2, ScalarType::F32, !bf, "second source");
}

void decodeCvtFp8(DecodeState& ds, bool e5m2) {
  const char* fn = e5m2 ? "e5m2x2" : "e4m3x2";
  const int rnd = ds.mods.takeOneOf({"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"});
  const bool relu = ds.mods.take("relu"), satfinite = ds.mods.take("satfinite");
  if (ds.mods.take("ftz") || ds.mods.take("sat")) ds.fail(fmt::format("illegal modifier for 'cvt' with .{}", fn));
  auto types = ds.mods.takeTypes();
  if (types.size() != 1) ds.fail(fmt::format("unexpected instruction types for 'cvt' with .{}", fn));
  if (rnd < 0) ds.fail("rounding modifier (.rn) required for 'cvt'");
  if (rnd != 0) ds.fail("illegal rounding modifier for 'cvt' (.rn only with fp8)");
  // Which side the fp8 type is on: its position among the modifiers as written.
  const auto& m = ds.in.modifiers;
  size_t f8At = 0, tAt = 0;
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i] == fn) f8At = i;
    if (parseScalarType(m[i]) == types[0]) tAt = i;
  }
  const bool toFp8 = f8At < tAt;
  requireFp8(ds);
  ds.out.rounding = Rounding::Nearest;
  ds.out.mode = static_cast<uint8_t>((relu ? kRelu : 0) | (e5m2 ? kE5M2 : 0));
  if (toFp8) {
    if (!satfinite) ds.fail(fmt::format("'.satfinite' modifier required for 'cvt' with destination type '.{}'", fn));
    ds.out.mode |= kSatfinite;
    if (types[0] == ScalarType::F32) {
      ds.out.fn = &fp8FromHandler;
      ds.expectOperands(3);
      ds.out.d[0] = ds.destination(ds.in.operands[0]);
      requireBytes(ds, ds.out.d[0], 2, "the destination");
      ds.out.s[0] = ds.source(ds.in.operands[1], ScalarType::F32);
      ds.out.s[1] = ds.source(ds.in.operands[2], ScalarType::F32);
      requireFp8Register(ds, 0, "destination");
      ds.requireOperandType(1, ScalarType::F32, false, "first source");
      ds.requireOperandType(2, ScalarType::F32, false, "second source");
      return;
    }
    if (types[0] != ScalarType::F16x2)
      ds.fail(fmt::format("unexpected instruction types .{}.{} for 'cvt'", fn, scalarTypeName(types[0])));
    ds.out.mode |= kFromHalfPair;
    ds.out.fn = &fp8FromHandler;
    ds.expectOperands(2);
    ds.out.d[0] = ds.destination(ds.in.operands[0]);
    requireBytes(ds, ds.out.d[0], 2, "the destination");
    requireRegister(ds, 1, "the f16x2 source");
    ds.out.s[0] = ds.source(ds.in.operands[1], ScalarType::F16x2);
    requireBytes(ds, ds.out.s[0], 4, "the f16x2 source");
    requireFp8Register(ds, 0, "destination");
    ds.requireOperandType(1, ScalarType::F16x2, false, "source");
    return;
  }
  if (types[0] != ScalarType::F16x2)
    ds.fail(fmt::format("unexpected instruction types .{}.{} for 'cvt'", scalarTypeName(types[0]), fn));
  if (satfinite) ds.fail(fmt::format("illegal modifier '.satfinite' for 'cvt.f16x2.{}'", fn));
  ds.out.fn = &halfPairFromFp8Handler;
  ds.expectOperands(2);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  requireBytes(ds, ds.out.d[0], 4, "the destination");
  requireRegister(ds, 1, "the fp8 source");
  ds.out.s[0] = ds.source(ds.in.operands[1], ScalarType::B16);
  requireBytes(ds, ds.out.s[0], 2, "the fp8 source");
  ds.requireOperandType(0, ScalarType::F16x2, false, "destination");
  requireFp8Register(ds, 1, "source");
}

void decodeCvtPackSat(DecodeState& ds) {
  if (!ds.mods.take("sat")) ds.fail(".sat modifier required for 'cvt.pack'");
  // u4/s4/u2/s2 are modifiers here (no such register types); u8..s16 are ScalarTypes.
  int width = 0;
  bool sign = false;
  const int narrowType = ds.mods.takeOneOf({"u4", "s4", "u2", "s2"});
  if (narrowType >= 0) {
    width = narrowType < 2 ? 4 : 2;
    sign = narrowType % 2 == 1;
  }
  auto types = ds.mods.takeTypes();
  using enum ScalarType;
  if (width == 0 && !types.empty()) {
    const ScalarType t = types.front();
    if (t == U16 || t == S16 || t == U8 || t == S8) {
      width = t == U16 || t == S16 ? 16 : 8;
      sign = t == S16 || t == S8;
      types.erase(types.begin());
    }
  }
  // .u16/.s16: abType .s32 (d, a, b); the narrower ones: .s32.b32 (d, a, b, c).
  const bool ok = width == 16 ? (types.size() == 1 && types[0] == S32)
                              : (width != 0 && types.size() == 2 && types[0] == S32 && types[1] == B32);
  if (!ok) ds.fail("unexpected instruction types for 'cvt.pack' (.u16/.s16.s32, or .u8/.s8/.u4/.s4/.u2/.s2.s32.b32)");
  ds.requireFeature("cvt.pack", 65, 72);
  if (width < 8) ds.requireFeature(fmt::format(".{}{}", sign ? "s" : "u", width), 65, 75);  // ptxas: "Feature '.u4' requires .target sm_75"
  ds.out.fn = &packSatHandler;
  ds.out.count = static_cast<uint8_t>(width);
  ds.out.mode = sign ? 1 : 0;
  ds.expectOperands(width == 16 ? 3 : 4);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  requireBytes(ds, ds.out.d[0], 4, "the destination");
  ds.out.s[0] = ds.source(ds.in.operands[1], S32);
  ds.out.s[1] = ds.source(ds.in.operands[2], S32);
  if (width < 16) ds.out.s[2] = ds.source(ds.in.operands[3], B32);
}

}  // namespace qgpu
