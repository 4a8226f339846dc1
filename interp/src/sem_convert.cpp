// Data movement and conversion (PTX ISA §9.7.9.1 mov, §9.7.9.21 cvt,
// §9.7.9.19-20 cvta/isspacep).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"
#include "numerics.h"
#include "qgpu/interp/address_space.h"
#include "sem_convert_packed.h"

namespace qgpu {
namespace {

__extension__ typedef __int128 s128;

uint64_t widthMask(uint32_t bytes) { return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1; }

// ------------------------------------------------------------------ mov
void movHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  uint64_t mask = widthMask(in.typeBytes);
  forLanes(c, m, [&](uint32_t l) { d[l] = a[l] & mask; });
}
// d = base + imm: symbol addresses (static, or frame-relative for .local).
void addressOfHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  forLanes(c, m, [&](uint32_t l) { d[l] = a[l] + static_cast<uint64_t>(in.imm); });
}
// Pack count elements of `typeBytes / count` bytes into one register.
void packHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  uint32_t part = in.typeBytes / in.count;
  uint64_t mask = widthMask(part);
  forLanes(c, m, [&](uint32_t l) {
    uint64_t v = 0;
    for (uint32_t i = 0; i < in.count; ++i) v |= (c.reg(in.s[i])[l] & mask) << (8 * part * i);
    d[l] = v;
  });
}
void unpackHandler(const Instr& in, ExecContext& c, uint32_t m) {
  const uint64_t* a = c.reg(in.s[0]);
  uint32_t part = in.typeBytes / in.count;
  uint64_t mask = widthMask(part);
  forLanes(c, m, [&](uint32_t l) {
    uint64_t v = a[l];
    for (uint32_t i = 0; i < in.count; ++i)
      if (in.d[i] != kNoSlot) c.reg(in.d[i])[l] = (v >> (8 * part * i)) & mask;
  });
}

// ------------------------------------------------------------------ cvt
struct CvtSpec {
  ScalarType dst, src;
};

// Exact double (or round-to-odd at 53 bits) of a 64-bit magnitude.
double magnitudeToOddDouble(uint64_t m) {
  if (m < (1ull << 53)) return static_cast<double>(m);
  int k = 64 - std::countl_zero(m) - 53;
  uint64_t kept = m >> k;
  if (m & ((1ull << k) - 1)) kept |= 1;
  return std::ldexp(static_cast<double>(kept), k);
}
// Correctly rounded double of +/- m in mode r.
double magnitudeToDouble(uint64_t m, bool neg, Rounding r) {
  if (m < (1ull << 53)) return neg ? -static_cast<double>(m) : static_cast<double>(m);
  int k = 64 - std::countl_zero(m) - 53;
  uint64_t kept = m >> k, rest = m & ((1ull << k) - 1), half = 1ull << (k - 1);
  bool up = false;
  switch (r) {
    case Rounding::Zero: break;
    case Rounding::Down: up = neg && rest; break;
    case Rounding::Up: up = !neg && rest; break;
    default: up = rest > half || (rest == half && (kept & 1));
  }
  double v = std::ldexp(static_cast<double>(kept + (up ? 1 : 0)), k);
  return neg ? -v : v;
}

bool integerValue(uint64_t bits, ScalarType t, uint64_t& magnitude, bool& neg) {
  uint32_t b = scalarTypeBytes(t) * 8;
  uint64_t v = bits & widthMask(scalarTypeBytes(t));
  neg = false;
  if (isSigned(t) && b < 64 && (v >> (b - 1))) {
    neg = true;
    magnitude = (~v + 1) & widthMask(scalarTypeBytes(t));
    if (magnitude == 0) magnitude = 1ull << (b - 1);
  } else if (isSigned(t) && b == 64 && (v >> 63)) {
    neg = true;
    magnitude = ~v + 1;
  } else {
    magnitude = v;
  }
  return true;
}

// Instr::imm bits of cvt: 0 integer rounding (.rni...), 1 .relu, 2 .satfinite.
constexpr int64_t kCvtIntRound = 1, kCvtRelu = 2, kCvtSatfinite = 4;

double floatValue(uint64_t bits, ScalarType t, bool ftz) {
  switch (t) {
    case ScalarType::F16: return fp::halfToDouble(static_cast<uint16_t>(bits));
    case ScalarType::BF16: return fp::bf16ToDouble(static_cast<uint16_t>(bits));
    case ScalarType::F32: {
      float f = as<float>(bits);
      if (ftz) f = fp::flushSubnormal(f);
      return static_cast<double>(f);
    }
    default: return as<double>(bits);
  }
}

// f16/bf16 results: .satfinite clamps to +-max finite (NaN stays the canonical 0x7fff),
// .relu makes negative results and -0 +0 (after rounding; NaN stays canonical).
uint16_t halfBits(double v, ScalarType t, Rounding r, const Instr& in) {
  if (std::isnan(v)) return 0x7fff;
  const bool satfinite = in.imm & kCvtSatfinite;
  uint16_t h = static_cast<uint16_t>(fp::roundToSmall(v, r, t == ScalarType::BF16 ? fp::kBF16Format : fp::kF16Format, satfinite));
  if ((in.imm & kCvtRelu) && (h & 0x8000)) h = 0;
  return h;
}

uint64_t floatBits(double v, ScalarType t, Rounding r, const Instr& in) {
  if (in.sat) v = fp::saturate(v);
  switch (t) {
    case ScalarType::F16:
    case ScalarType::BF16: return halfBits(v, t, r, in);
    case ScalarType::F32: {
      float f = std::isnan(v) ? std::bit_cast<float>(fp::kCanonicalNaN32) : fp::roundToFloat(v, r);
      if (in.ftz) f = fp::flushSubnormal(f);
      return std::bit_cast<uint32_t>(f);
    }
    default:
      if (std::isnan(v)) return fp::kCanonicalNaN64;
      return std::bit_cast<uint64_t>(v);
  }
}

void cvtHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  const ScalarType dst = static_cast<ScalarType>(in.mode);
  const ScalarType src = static_cast<ScalarType>(in.count);
  const uint32_t dbits = scalarTypeBytes(dst) * 8;
  const uint64_t regMask = widthMask(in.dstBytes);
  const bool intRound = in.imm & kCvtIntRound;  // .rni/.rzi/.rmi/.rpi
  forLanes(c, m, [&](uint32_t l) {
    uint64_t result;
    if (isFloat(dst)) {
      double v;
      if (isFloat(src)) {
        v = floatValue(a[l], src, in.ftz);
        if (intRound && !std::isnan(v)) v = fp::roundToIntegral(v, in.rounding);
        if ((src == ScalarType::F16 || src == ScalarType::BF16) && std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
        if (dst == ScalarType::F32 && src == ScalarType::F32) {
          float f = as<float>(a[l]);
          if (in.ftz) f = fp::flushSubnormal(f);
          if (intRound && !std::isnan(f)) f = static_cast<float>(fp::roundToIntegral(f, in.rounding));
          f = fp::canonical(f);
          if (in.sat) f = fp::saturate(f);
          if (in.ftz) f = fp::flushSubnormal(f);
          result = std::bit_cast<uint32_t>(f);
          d[l] = result & regMask;
          return;
        }
      } else {
        uint64_t mag;
        bool neg;
        integerValue(a[l], src, mag, neg);
        if (dst == ScalarType::F64) {
          v = magnitudeToDouble(mag, neg, in.rounding);
        } else {
          double odd = magnitudeToOddDouble(mag);
          v = neg ? -odd : odd;
        }
      }
      result = floatBits(v, dst, in.rounding, in);
    } else {
      // Integer destination.
      bool dsigned = isSigned(dst);
      s128 value;
      bool clamp = true;
      if (isFloat(src)) {
        double v = floatValue(a[l], src, in.ftz);
        if (std::isnan(v)) {
          bool wideNaN = src == ScalarType::F64 || dbits == 64;
          value = wideNaN ? (static_cast<s128>(1) << (dbits - 1)) : 0;
          clamp = false;
        } else {
          v = fp::roundToIntegral(v, in.rounding);
          if (v >= 0x1p100) value = static_cast<s128>(1) << 100;
          else if (v <= -0x1p100) value = -(static_cast<s128>(1) << 100);
          else value = static_cast<s128>(v);
        }
      } else {
        uint64_t mag;
        bool neg;
        integerValue(a[l], src, mag, neg);
        value = neg ? -static_cast<s128>(mag) : static_cast<s128>(mag);
        clamp = in.sat;
      }
      if (clamp) {
        s128 lo = dsigned ? -(static_cast<s128>(1) << (dbits - 1)) : 0;
        s128 hi = dsigned ? (static_cast<s128>(1) << (dbits - 1)) - 1
                              : (static_cast<s128>(1) << dbits) - 1;
        if (value < lo) value = lo;
        if (value > hi) value = hi;
      }
      uint64_t bits = static_cast<uint64_t>(value) & widthMask(dbits / 8);
      if (dsigned && dbits < 64 && (bits >> (dbits - 1))) bits |= ~widthMask(dbits / 8);  // sign-extend
      result = bits;
    }
    d[l] = result & regMask;
  });
}

// ------------------------------------------------------------------ cvta
// imm: window base; mode 0: to generic, 1: from generic (to.space).
void cvtaHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  uint64_t base = static_cast<uint64_t>(in.imm);
  uint64_t mask = widthMask(in.typeBytes);
  forLanes(c, m, [&](uint32_t l) {
    uint64_t v = a[l] & mask;
    if (in.mode == 0) {
      d[l] = (v + base) & mask;
    } else {
      if (base != 0 && (v < base || v >= base + kWindowBytes))
        c.fail(ErrorKind::Undefined, l,
               fmt::format("cvta.to: generic address {:#x} is not in the target state space", v));
      if (base == 0 && v < kGlobalBase && v >= kSharedWindowBase)
        c.fail(ErrorKind::Undefined, l,
               fmt::format("cvta.to.global: generic address {:#x} is a shared/local/const/param address", v));
      d[l] = (v - base) & mask;
    }
  });
}
void isspacepHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  uint64_t base = static_cast<uint64_t>(in.imm);
  forLanes(c, m, [&](uint32_t l) {
    uint64_t v = a[l];
    bool inWindow = base ? (v >= base && v < base + kWindowBytes)
                         : !(v >= kSharedWindowBase && v < kParamWindowBase + kWindowBytes);
    d[l] = inWindow ? 1 : 0;
  });
}

uint64_t windowOf(DecodeState& ds, int space) {
  switch (space) {
    case 0: return 0;  // global
    case 1: return kSharedWindowBase;
    case 2: return kLocalWindowBase;
    case 3: return kConstWindowBase;
    case 4: return kParamWindowBase;
  }
  ds.fail("cvta needs a state space (.global/.shared/.local/.const/.param)");
}

// ------------------------------------------------------------------ decoders
}  // namespace

namespace {
// The {...} list of a mov pack (mov.b64 d, {a, b}) or unpack (mov.b64 {a, b}, d) as ptxas
// 13 checks it (grammar corpus forms/mov_list_*, verdicts by ptxas). A vector register's
// element (v.x; the desugar pass made it a declared register whose name holds a '.') and a
// whole vector register (spelled v, expanded there to {v.x, v.y, ...}) are elements like any
// register. Refused, in ptxas's order:
// - float elements (a register of a float type or a float literal) beside integer ones (a
//   .u/.s register or an integer literal); .b registers go with both: "Vector with elements
//   of different types are not allowed in mov instruction";
// - a vector element beside an immediate: "Argument 1 of instruction 'mov': must be
//   register or constant" ({a, 7} is accepted, {v.x, 7} is not);
// - a register that is not exactly one part (the type's width / the count) wide:
//   "Arguments mismatch" (mov.b32 r, {a, b} with .u32 a and b);
// - a type other than .b16/.b32/.b64 (mov.u64 d, {a, b}): "Arguments mismatch"; so is a
//   packed register (d of a pack, the source of an unpack) of another width than the type.
void checkMovList(const DecodeState& ds, const ptx::Operand& list, ScalarType t) {
  using K = ptx::Operand::Kind;
  if (!isBits(t) || scalarTypeBytes(t) < 2)
    ds.fail(fmt::format("a mov pack or unpack list needs a .b16, .b32 or .b64 type, not .{}", scalarTypeName(t)));
  const uint32_t partBytes = scalarTypeBytes(t) / static_cast<uint32_t>(list.elements.size());
  const ptx::Operand* floatElement = nullptr;
  const ptx::Operand* integerElement = nullptr;
  const ptx::Operand* vectorElement = nullptr;
  const ptx::Operand* immediate = nullptr;
  for (const ptx::Operand& e : list.elements) {
    if (e.kind == K::Immediate) {
      immediate = &e;
      (e.isFloat ? floatElement : integerElement) = &e;
      continue;
    }
    const std::optional<ScalarType> type = ds.declaredRegisterType(e);
    if (!type) continue;
    if (e.name.find('.') != std::string::npos) vectorElement = &e;
    if (isFloat(*type)) floatElement = &e;
    else if (!isBits(*type) && *type != ScalarType::Pred) integerElement = &e;
  }
  auto spelling = [](const ptx::Operand& e) {
    return e.kind != K::Immediate ? e.name
           : e.isFloat            ? fmt::format("{:#x}", e.floatBits)
                                  : std::to_string(e.value);
  };
  if (floatElement && integerElement)
    ds.fail(fmt::format("'{}' and '{}' in one mov list: a float element beside an integer one (ptxas: elements of "
                        "different types)",
                        spelling(*floatElement), spelling(*integerElement)));
  if (vectorElement && immediate)
    ds.fail(fmt::format("the vector register element '{}' beside the immediate {} in one mov list (ptxas: must be "
                        "register or constant)",
                        vectorElement->name, spelling(*immediate)));
  for (const ptx::Operand& e : list.elements) {
    const std::optional<ScalarType> type = ds.declaredRegisterType(e);
    if (type && scalarTypeBytes(*type) != partBytes)
      ds.fail(fmt::format("'{}' is a .{} register; each element of this mov list is {} bits wide", e.name,
                          scalarTypeName(*type), 8 * partBytes));
  }
}
}  // namespace

void decodeMov(DecodeState& ds) {
  auto types = ds.mods.takeTypes();
  if (types.size() != 1) ds.fail("mov needs exactly one type");
  ScalarType t = types[0];
  ds.out.typeBytes = static_cast<uint8_t>(scalarTypeBytes(t));
  ds.expectOperands(2);
  const ptx::Operand& dst = ds.in.operands[0];
  const ptx::Operand& src = ds.in.operands[1];
  using K = ptx::Operand::Kind;
  if (dst.kind == K::Vector) {  // unpack
    // ptxas also unpacks an immediate (mov.b32 {lo, hi}, 0x00080007): its bits of type t.
    if (!ds.namesRegister(src) && src.kind != K::Immediate) ds.fail("mov unpack needs a register or immediate source");
    size_t n = dst.elements.size();
    if (n != 2 && n != 4) ds.fail("mov unpack needs 2 or 4 elements");
    ds.out.fn = &unpackHandler;
    checkMovList(ds, dst, t);
    ds.requireRegisterBytes(scalarTypeBytes(t), 2, 1);  // the packed source: the type's width
    ds.out.count = static_cast<uint8_t>(n);
    for (size_t i = 0; i < n; ++i)
      ds.out.d[i] = dst.elements[i].kind == K::Sink ? kNoSlot : ds.destination(dst.elements[i]);
    ds.out.s[0] = ds.source(src, t);
    return;
  }
  ds.out.d[0] = ds.destination(dst);
  // ptxas 13: mov.f32/.f64 takes registers of its type or of the bit type of its width.
  if (t == ScalarType::F32 || t == ScalarType::F64) ds.requireRegisterType(t, 0, src.kind == K::Vector ? 1 : 2);
  if (src.kind == K::Vector) {  // pack
    size_t n = src.elements.size();
    if (n != 2 && n != 4) ds.fail("mov pack needs 2 or 4 elements");
    ds.out.fn = &packHandler;
    checkMovList(ds, src, t);
    ds.requireRegisterBytes(scalarTypeBytes(t), 1, 0);  // the packed destination: the type's width
    ds.out.count = static_cast<uint8_t>(n);
    uint32_t part = scalarTypeBytes(t) / static_cast<uint32_t>(n);
    ScalarType pt = part == 1 ? ScalarType::B8 : part == 2 ? ScalarType::B16 : ScalarType::B32;
    for (size_t i = 0; i < n; ++i) ds.out.s[i] = ds.source(src.elements[i], pt);
    return;
  }
  if (src.kind == K::Symbol && !ds.namesRegister(src)) {  // address of a variable
    ds.symbolValue(src, 0);
    ds.out.fn = &addressOfHandler;
    return;
  }
  ds.out.fn = &movHandler;
  ds.out.s[0] = ds.source(src, t);
}

namespace {

// cvt to tf32 (PTX ISA 7.0/7.8): d is an f32 bit pattern with 10 fraction bits, the low 13
// bits zero; a keeps its f32 exponent range (subnormals included: ptxas takes no .ftz).
// Rounding: .rna nearest with ties away from zero, .rn nearest even, .rz toward zero, on the
// 13 dropped bits; a carry out of the fraction moves the exponent on (to infinity past the
// largest value). .satfinite gives +-0x7f7fe000 for results (and inputs) beyond it; .relu
// +0 for negative results and -0. NaN gives the canonical 0x7fffffff (unverified on
// hardware). Instr::mode: 0 rna, 1 rn, 2 rz; bit 2 .satfinite, bit 3 .relu.
constexpr uint8_t kTf32Satfinite = 4, kTf32Relu = 8;
uint32_t toTf32(uint32_t x, uint8_t mode) {
  if ((x & 0x7fffffffu) > 0x7f800000u) return fp::kCanonicalNaN32;
  const uint32_t sign = x & 0x80000000u, mag = x & 0x7fffffffu;
  uint32_t r = mag;
  if (mag != 0x7f800000u) {
    const uint32_t dropped = mag & 0x1fffu, kept = mag & ~0x1fffu;
    bool up = false;
    switch (mode & 3) {
      case 0: up = dropped >= 0x1000u; break;
      case 1: up = dropped > 0x1000u || (dropped == 0x1000u && (kept & 0x2000u)); break;
      default: break;
    }
    r = kept + (up ? 0x2000u : 0u);
  }
  if ((mode & kTf32Satfinite) && r >= 0x7f800000u) r = 0x7f7fe000u;
  if ((mode & kTf32Relu) && sign) return 0;
  return sign | r;
}

void cvtTf32Handler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  const uint64_t* a = c.reg(in.s[0]);
  forLanes(c, m, [&](uint32_t l) { d[l] = toTf32(static_cast<uint32_t>(a[l]), in.mode); });
}

// cvt.rna{.satfinite}.tf32.f32 (sm_80, PTX 7.0; .satfinite 8.1) and cvt.{rn,rz}{.relu}.tf32.f32
// (sm_90, PTX 7.8), as ptxas 13 takes them: d a .b32 register, a an .f32/.b32 one or an
// immediate; no .ftz/.sat, no .relu with .rna; .rn/.rz with .satfinite need sm_100.
void decodeCvtTf32(DecodeState& ds) {
  const int rnd = ds.mods.takeOneOf({"rna", "rn", "rz"});
  const bool relu = ds.mods.take("relu"), satfinite = ds.mods.take("satfinite");
  const auto types = ds.mods.takeTypes();
  const auto& written = ds.in.modifiers;
  const auto pos = [&](const char* m) { return std::find(written.begin(), written.end(), m) - written.begin(); };
  if (types.size() != 1 || types[0] != ScalarType::F32 || pos("tf32") > pos("f32"))
    ds.fail("unexpected instruction types for 'cvt' with .tf32 (only cvt.tf32.f32)");
  if (rnd < 0) ds.fail("cvt.tf32.f32 needs a rounding modifier: .rna, .rn or .rz");
  if (rnd == 0) {
    if (relu) ds.fail("modifier '.relu' cannot be combined with modifier '.rna'");
    ds.requireFeature("cvt.rna.tf32.f32", 70, 80);
    if (satfinite) ds.requireFeature("cvt.rna.satfinite.tf32.f32", 81, 80);
  } else {
    ds.requireFeature(rnd == 1 ? "cvt.rn.tf32.f32" : "cvt.rz.tf32.f32", 78, 90);
    if (satfinite)
      ds.fail("modifier '.satfinite' on cvt.rn/.rz.tf32.f32 requires .target sm_100 or higher (beyond qgpu's targets)");
  }
  ds.expectOperands(2);
  if (ds.declaredRegisterType(0) != ScalarType::B32) ds.fail("cvt.tf32.f32 needs a .b32 destination register (ptxas: arguments mismatch)");
  if (auto t = ds.declaredRegisterType(1); t && *t != ScalarType::F32 && *t != ScalarType::B32)
    ds.fail("cvt.tf32.f32 needs an .f32 or .b32 source register (ptxas: arguments mismatch)");
  ds.out.fn = &cvtTf32Handler;
  ds.out.mode = static_cast<uint8_t>(rnd | (satfinite ? kTf32Satfinite : 0) | (relu ? kTf32Relu : 0));
  ds.out.typeBytes = 4;
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  ds.out.s[0] = ds.source(ds.in.operands[1], ScalarType::F32);
}

}  // namespace

void decodeCvt(DecodeState& ds) {
  using enum ScalarType;
  if (ds.mods.take("pack")) return decodeCvtPackSat(ds);
  if (ds.mods.take("tf32")) return decodeCvtTf32(ds);
  const int f8 = ds.mods.takeOneOf({"e4m3x2", "e5m2x2"});
  if (f8 >= 0) return decodeCvtFp8(ds, f8 == 1);
  int irnd = ds.mods.takeOneOf({"rni", "rzi", "rmi", "rpi"});
  int frnd = ds.mods.takeOneOf({"rn", "rz", "rm", "rp"});
  ds.out.ftz = ds.mods.take("ftz");
  ds.out.sat = ds.mods.take("sat");
  const bool relu = ds.mods.take("relu"), satfinite = ds.mods.take("satfinite");
  auto types = ds.mods.takeTypes();
  if (types.size() != 2) ds.fail("cvt needs a destination and a source type");
  ScalarType dt = types[0], st = types[1];
  if (irnd >= 0 && frnd >= 0) ds.fail("cvt takes one rounding modifier");
  if (dt == F16x2 || dt == BF16x2) return decodeCvtPairFromF32(ds, dt == BF16x2, st, frnd, relu, satfinite);
  if (st == F16x2 || st == BF16x2 || dt == Pred || st == Pred)
    ds.fail(fmt::format("unexpected instruction types .{}.{} for 'cvt'", scalarTypeName(dt), scalarTypeName(st)));
  // The forms ptxas 13 accepts with .bf16 (its messages in quotes): none with .u8/.s8 ("Arguments
  // mismatch"), no .sat; f32 <-> bf16 from sm_80 (PTX 7.0 / 7.1), the others sm_90 / PTX 7.8;
  // f16 <-> bf16 and bf16 -> f32/f64 with or without .rn/.rz/.rm/.rp.
  const bool bf = dt == BF16 || st == BF16;
  if (bf) {
    auto byteType = [](ScalarType t) { return t == U8 || t == S8 || t == B8; };
    if (byteType(dt) || byteType(st)) ds.fail("cvt between .u8/.s8 and .bf16 is not a form ptxas accepts (arguments mismatch)");
    if (ds.out.sat) ds.fail("illegal modifier '.sat' for 'cvt' with .bf16");
    if (dt == BF16 && st == F32) ds.requireFeature("cvt.bf16.f32", 70, 80);
    else if (dt == F32 && st == BF16 && !ds.out.ftz) ds.requireFeature("cvt.f32.bf16", 71, 80);
    else ds.requireFeature(fmt::format("cvt.{}.{}{}", scalarTypeName(dt), scalarTypeName(st), ds.out.ftz ? ".ftz" : ""), 78, 90);
  }
  // .relu / .satfinite: f16 or bf16 from f32 only, rounded .rn or .rz, without .ftz or .sat.
  if (relu || satfinite) {
    const char* m = relu ? "relu" : "satfinite";
    if ((dt != F16 && dt != BF16) || st != F32) ds.fail(fmt::format("illegal modifier '.{}' for 'cvt.{}.{}'", m, scalarTypeName(dt), scalarTypeName(st)));
    if (frnd != 0 && frnd != 1) ds.fail(fmt::format("'.{}' needs rounding .rn or .rz", m));
    if (ds.out.ftz) ds.fail(fmt::format("modifier '.{}' cannot be combined with modifier '.ftz'", m));
    if (ds.out.sat) ds.fail(fmt::format("modifier '.{}' cannot be combined with modifier '.sat'", m));
    if (relu) ds.requireFeature("cvt.relu", 70, 80);
    if (satfinite) ds.requireFeature("cvt.satfinite", 81, 80);
  }
  static const Rounding kR[] = {Rounding::Nearest, Rounding::Zero, Rounding::Down, Rounding::Up};
  ds.out.rounding = irnd >= 0 ? kR[irnd] : frnd >= 0 ? kR[frnd] : Rounding::None;
  ds.out.imm = (irnd >= 0 ? kCvtIntRound : 0) | (relu ? kCvtRelu : 0) | (satfinite ? kCvtSatfinite : 0);
  bool fdst = isFloat(dt), fsrc = isFloat(st);
  uint32_t db = scalarTypeBytes(dt), sb = scalarTypeBytes(st);
  // Which rounding modifiers the ISA requires or forbids.
  if (fsrc && !fdst && irnd < 0) ds.fail("float-to-integer cvt needs .rni, .rzi, .rmi or .rpi");
  if (!fsrc && fdst && frnd < 0) ds.fail("integer-to-float cvt needs .rn, .rz, .rm or .rp");
  if (fsrc && fdst) {
    // ptxas: f16 <-> bf16 and bf16 -> f32/f64 take a rounding modifier or none (none: .rn).
    const bool optionalRounding = (dt == BF16 && st == F16) || (st == BF16 && dt != BF16);
    if (optionalRounding) {
      if (irnd >= 0) ds.fail(fmt::format("illegal rounding modifier for 'cvt.{}.{}'", scalarTypeName(dt), scalarTypeName(st)));
    } else {
      if (db < sb && frnd < 0) ds.fail("narrowing float cvt needs .rn, .rz, .rm or .rp");
      if (db > sb && (frnd >= 0 || irnd >= 0)) ds.fail("widening float cvt takes no rounding modifier");
      if (db == sb && frnd >= 0) ds.fail("same-size float cvt takes only integer rounding (.rni etc.)");
    }
  }
  if (!fsrc && !fdst && (frnd >= 0 || irnd >= 0)) ds.fail("integer-to-integer cvt takes no rounding");
  if (ds.out.ftz && dt != F32 && st != F32) ds.fail(".ftz needs an .f32 operand");
  ds.out.fn = &cvtHandler;
  ds.out.mode = static_cast<uint8_t>(dt);
  ds.out.count = static_cast<uint8_t>(st);
  ds.out.typeBytes = static_cast<uint8_t>(db);
  ds.expectOperands(2);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  if (ds.slotBytes(ds.out.d[0]) < db) ds.fail("cvt destination register is narrower than its type");
  if (bf && ds.slotBytes(ds.out.d[0]) != db)
    ds.fail(fmt::format("cvt.{}.{} needs a {}-bit destination register (ptxas: arguments mismatch)", scalarTypeName(dt), scalarTypeName(st), 8 * db));
  ds.out.dstBytes = static_cast<uint8_t>(ds.slotBytes(ds.out.d[0]));
  ds.out.s[0] = ds.source(ds.in.operands[1], st);
  // The registers' types where a half type is involved, as ptxas 13 checks them ("Arguments
  // mismatch" otherwise): each operand as one of its own type (d of dtype, a of stype: .f16
  // takes .f16 or .b16, .bf16 only .b16, .f32 .f32 or .b32, an integer type any integer or
  // bit register or .f16x2). With .bf16 every register has its type's width; otherwise it
  // may be wider, of a bit type for a float operand (.b32 for an .f16, not .u32 or .f16x2).
  if (dt == F16 || st == F16 || bf) {
    ds.requireOperandType(0, dt, !bf, "destination");
    ds.requireOperandType(1, st, !bf, "source");
  } else {
    // ptxas 13 checks an .f32/.f64 operand the same way: a register of its type, or of a bit
    // type of its width or wider (.b64 for an .f32); .u32/.s32/.f64 for an .f32 are refused.
    if (dt == F32 || dt == F64) ds.requireOperandType(0, dt, true, "destination");
    if (st == F32 || st == F64) ds.requireOperandType(1, st, true, "source");
  }
}

void decodeCvta(DecodeState& ds) {
  bool to = ds.mods.take("to");
  int space = ds.mods.takeOneOf({"global", "shared", "local", "const", "param"});
  auto types = ds.mods.takeTypes();
  if (types.size() != 1 || (types[0] != ScalarType::U32 && types[0] != ScalarType::U64))
    ds.fail("cvta needs .u32 or .u64");
  ds.out.fn = &cvtaHandler;
  ds.out.mode = to ? 1 : 0;
  ds.out.imm = static_cast<int64_t>(windowOf(ds, space));
  ds.out.typeBytes = static_cast<uint8_t>(scalarTypeBytes(types[0]));
  ds.expectOperands(2);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  if (ds.in.operands[1].kind == ptx::Operand::Kind::Symbol && !ds.namesRegister(ds.in.operands[1])) {
    // cvta.space d, var: generic address of a variable.
    int64_t window = ds.out.imm;
    ds.symbolValue(ds.in.operands[1], 0);
    ds.out.imm += to ? -window : window;
    ds.out.fn = &addressOfHandler;
    return;
  }
  ds.out.s[0] = ds.source(ds.in.operands[1], types[0]);
}

void decodeIsspacep(DecodeState& ds) {
  int space = ds.mods.takeOneOf({"global", "shared", "local", "const", "param"});
  ds.out.fn = &isspacepHandler;
  ds.out.imm = static_cast<int64_t>(windowOf(ds, space));
  ds.expectOperands(2);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  ds.out.s[0] = ds.source(ds.in.operands[1], ScalarType::U64);
}

}  // namespace qgpu
