// Comparison and selection (PTX ISA §9.7.6 setp/set/selp/slct) and predicate
// logic. Ordered float comparisons are false on NaN, unordered ones true.
#include <cmath>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"
#include "numerics.h"

namespace qgpu {
namespace {

// Instr::mode is a CmpOp (program.h); its spellings in the same order.
constexpr std::string_view kCmpNames[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi",
                                          "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

template <class T>
bool compare(CmpOp op, T a, T b) {
  using enum CmpOp;
  if constexpr (std::is_floating_point_v<T>) {
    bool unordered = std::isnan(a) || std::isnan(b);
    switch (op) {
      case Eq: return !unordered && a == b;
      case Ne: return !unordered && a != b;
      case Lt: return !unordered && a < b;
      case Le: return !unordered && a <= b;
      case Gt: return !unordered && a > b;
      case Ge: return !unordered && a >= b;
      case Equ: return unordered || a == b;
      case Neu: return unordered || a != b;
      case Ltu: return unordered || a < b;
      case Leu: return unordered || a <= b;
      case Gtu: return unordered || a > b;
      case Geu: return unordered || a >= b;
      case Num: return !unordered;
      case Nan: return unordered;
      default: break;
    }
    return false;
  } else {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case Eq: return a == b;
      case Ne: return a != b;
      case Lt: return a < b;
      case Le: return a <= b;
      case Gt: return a > b;
      case Ge: return a >= b;
      case Lo: return static_cast<U>(a) < static_cast<U>(b);
      case Ls: return static_cast<U>(a) <= static_cast<U>(b);
      case Hi: return static_cast<U>(a) > static_cast<U>(b);
      case Hs: return static_cast<U>(a) >= static_cast<U>(b);
      default: break;
    }
    return false;
  }
}

template <class T>
T flushIf(const Instr& in, T v) {
  if constexpr (std::is_same_v<T, float>) return in.ftz ? fp::flushSubnormal(v) : v;
  else return v;
}

// Instr::count: 0 = no BoolOp, 1 and, 2 or, 3 xor; imm bit 0: c negated.
inline bool combine(uint8_t boolOp, bool t, bool c) {
  switch (boolOp) {
    case 1: return t && c;
    case 2: return t || c;
    case 3: return t != c;
    default: return t;
  }
}

template <class T>
void setpHandler(const Instr& in, ExecContext& ctx, uint32_t m) {
  uint64_t* p = ctx.reg(in.d[0]);
  uint64_t* q = in.d[1] != kNoSlot ? ctx.reg(in.d[1]) : nullptr;
  const uint64_t* a = ctx.reg(in.s[0]);
  const uint64_t* b = ctx.reg(in.s[1]);
  const uint64_t* c = in.count ? ctx.reg(in.s[2]) : nullptr;
  bool negC = in.imm & 1;
  forLanes(ctx, m, [&](uint32_t l) {
    bool t = compare<T>(in.cmp(), flushIf(in, as<T>(a[l])), flushIf(in, as<T>(b[l])));
    bool cv = c ? (((c[l] & 1) != 0) != negC) : false;
    p[l] = combine(in.count, t, cv);
    if (q) q[l] = combine(in.count, !t, cv);
  });
}

// setp on f16/bf16 (element 0 = bits 15..0) and their x2 forms: p holds element 0's
// comparison, q (x2 only) element 1's, each combined with c. Values compare exactly in
// double; .ftz (f16 only) flushes subnormal inputs to zero.
template <bool BF, bool Pair>
void setpHalfHandler(const Instr& in, ExecContext& ctx, uint32_t m) {
  uint64_t* p = ctx.reg(in.d[0]);
  uint64_t* q = in.d[1] != kNoSlot ? ctx.reg(in.d[1]) : nullptr;
  const uint64_t* a = ctx.reg(in.s[0]);
  const uint64_t* b = ctx.reg(in.s[1]);
  const uint64_t* c = in.count ? ctx.reg(in.s[2]) : nullptr;
  const bool negC = in.imm & 1;
  auto value = [&](uint16_t h) {
    if (BF) return fp::bf16ToDouble(h);
    if (in.ftz && (h & 0x7c00) == 0) h &= 0x8000;
    return fp::halfToDouble(h);
  };
  auto cmpAt = [&](uint64_t x, uint64_t y, int k) {
    return compare<double>(in.cmp(), value(static_cast<uint16_t>(x >> (16 * k))),
                           value(static_cast<uint16_t>(y >> (16 * k))));
  };
  forLanes(ctx, m, [&](uint32_t l) {
    const bool cv = c ? (((c[l] & 1) != 0) != negC) : false;
    p[l] = combine(in.count, cmpAt(a[l], b[l], 0), cv);
    if (Pair && q) q[l] = combine(in.count, cmpAt(a[l], b[l], 1), cv);
  });
}

// set: d = the destination type's "true" pattern (Instr::imm bits 63..32: all ones of an
// integer type, 1.0 of a float type) when the combined comparison holds, else 0.
template <class T>
void setHandler(const Instr& in, ExecContext& ctx, uint32_t m) {
  uint64_t* d = ctx.reg(in.d[0]);
  const uint64_t* a = ctx.reg(in.s[0]);
  const uint64_t* b = ctx.reg(in.s[1]);
  const uint64_t* c = in.count ? ctx.reg(in.s[2]) : nullptr;
  const bool negC = in.imm & 1;
  const uint64_t yes = static_cast<uint64_t>(in.imm) >> 32;
  forLanes(ctx, m, [&](uint32_t l) {
    bool t = compare<T>(in.cmp(), flushIf(in, as<T>(a[l])), flushIf(in, as<T>(b[l])));
    bool cv = c ? (((c[l] & 1) != 0) != negC) : false;
    d[l] = combine(in.count, t, cv) ? yes : 0;
  });
}

// set with an f16/bf16 source (and the x2 forms, one 16-bit result per element, element 0 =
// bits 15..0): each element compares exactly in double, as setpHalfHandler does, and gives
// the true pattern (imm bits 63..32; per element for the x2 forms) or 0.
template <bool BF, bool Pair>
void setHalfHandler(const Instr& in, ExecContext& ctx, uint32_t m) {
  uint64_t* d = ctx.reg(in.d[0]);
  const uint64_t* a = ctx.reg(in.s[0]);
  const uint64_t* b = ctx.reg(in.s[1]);
  const uint64_t* c = in.count ? ctx.reg(in.s[2]) : nullptr;
  const bool negC = in.imm & 1;
  const uint64_t yes = static_cast<uint64_t>(in.imm) >> 32;
  auto value = [&](uint16_t h) {
    if (BF) return fp::bf16ToDouble(h);
    if (in.ftz && (h & 0x7c00) == 0) h &= 0x8000;
    return fp::halfToDouble(h);
  };
  auto cmpAt = [&](uint64_t x, uint64_t y, int k) {
    return compare<double>(in.cmp(), value(static_cast<uint16_t>(x >> (16 * k))),
                           value(static_cast<uint16_t>(y >> (16 * k))));
  };
  forLanes(ctx, m, [&](uint32_t l) {
    const bool cv = c ? (((c[l] & 1) != 0) != negC) : false;
    uint64_t r = combine(in.count, cmpAt(a[l], b[l], 0), cv) ? yes : 0;
    if (Pair && combine(in.count, cmpAt(a[l], b[l], 1), cv)) r |= yes << 16;
    d[l] = r;
  });
}

void selpHandler(const Instr& in, ExecContext& ctx, uint32_t m) {
  uint64_t* d = ctx.reg(in.d[0]);
  const uint64_t* a = ctx.reg(in.s[0]);
  const uint64_t* b = ctx.reg(in.s[1]);
  const uint64_t* c = ctx.reg(in.s[2]);
  forLanes(ctx, m, [&](uint32_t l) { d[l] = (c[l] & 1) ? a[l] : b[l]; });
}

template <bool FloatSel>
void slctHandler(const Instr& in, ExecContext& ctx, uint32_t m) {
  uint64_t* d = ctx.reg(in.d[0]);
  const uint64_t* a = ctx.reg(in.s[0]);
  const uint64_t* b = ctx.reg(in.s[1]);
  const uint64_t* c = ctx.reg(in.s[2]);
  forLanes(ctx, m, [&](uint32_t l) {
    bool pickA;
    if constexpr (FloatSel) {
      float cv = as<float>(c[l]);
      if (in.ftz) cv = fp::flushSubnormal(cv);
      pickA = !std::isnan(cv) && cv >= 0.0f;
    } else {
      pickA = as<int32_t>(c[l]) >= 0;
    }
    d[l] = pickA ? a[l] : b[l];
  });
}

// Predicate logic: mode 0 and, 1 or, 2 xor, 3 not.
void predLogicHandler(const Instr& in, ExecContext& ctx, uint32_t m) {
  uint64_t* d = ctx.reg(in.d[0]);
  const uint64_t* a = ctx.reg(in.s[0]);
  const uint64_t* b = in.mode == 3 ? nullptr : ctx.reg(in.s[1]);
  forLanes(ctx, m, [&](uint32_t l) {
    bool x = a[l] & 1;
    switch (in.mode) {
      case 0: d[l] = x && (b[l] & 1); break;
      case 1: d[l] = x || (b[l] & 1); break;
      case 2: d[l] = x != ((b[l] & 1) != 0); break;
      default: d[l] = !x;
    }
  });
}

template <class T> struct SetpH {
  static void run(const Instr& in, ExecContext& c, uint32_t m) { setpHandler<T>(in, c, m); }
};
template <class T> struct SetH {
  static void run(const Instr& in, ExecContext& c, uint32_t m) { setHandler<T>(in, c, m); }
};

CmpOp takeCmp(DecodeState& ds, ScalarType t) {
  using enum CmpOp;
  for (size_t i = 0; i < std::size(kCmpNames); ++i)
    if (ds.mods.take(kCmpNames[i])) {
      const CmpOp c = static_cast<CmpOp>(i);
      bool floatOnly = c >= Equ;
      bool intOnly = c >= Lo && c <= Hs;
      if (isFloat(t) && intOnly) ds.fail(fmt::format(".{} is not a float comparison", kCmpNames[i]));
      if (!isFloat(t) && floatOnly) ds.fail(fmt::format(".{} is only for floats", kCmpNames[i]));
      // As ptxas (CUDA 13) decides: .bN compares only for equality, and the unsigned
      // comparisons need an unsigned type ("Mismatch between instruction type and comparison").
      if (isBits(t) && c != Eq && c != Ne)
        ds.fail(fmt::format(".{} needs a signed or unsigned type; .{} compares only .eq/.ne", kCmpNames[i], scalarTypeName(t)));
      if (isSigned(t) && intOnly)
        ds.fail(fmt::format(".{} is an unsigned comparison; use .{} or an unsigned type", kCmpNames[i],
                            kCmpNames[i - static_cast<size_t>(Lo) + static_cast<size_t>(Lt)]));
      return c;
    }
  ds.fail("missing comparison operator (.eq, .lt, ...)");
}

void decodeCompareCommon(DecodeState& ds, ScalarType t, size_t firstSrc) {
  ds.out.mode = static_cast<uint8_t>(takeCmp(ds, t));  // Instr::cmp()
  int boolOp = ds.mods.takeOneOf({"and", "or", "xor"});
  ds.out.count = static_cast<uint8_t>(boolOp + 1);
  ds.out.ftz = ds.mods.take("ftz");
  if (ds.out.ftz && t != ScalarType::F32 && t != ScalarType::F16 && t != ScalarType::F16x2)
    ds.fail(".ftz needs .f32, .f16 or .f16x2");
  size_t n = ds.in.operands.size();
  if (n != firstSrc + 2 + (boolOp >= 0 ? 1 : 0))
    ds.fail(fmt::format("'{}' takes {} operands here, got {}", ds.in.opcode,
                        firstSrc + 2 + (boolOp >= 0 ? 1 : 0), n));
  ds.out.s[0] = ds.source(ds.in.operands[firstSrc], t);
  ds.out.s[1] = ds.source(ds.in.operands[firstSrc + 1], t);
  if (boolOp >= 0) {
    bool neg = false;
    ds.out.s[2] = ds.predicate(ds.in.operands[firstSrc + 2], &neg);
    ds.out.imm |= neg ? 1 : 0;
  }
}

}  // namespace

void decodeSetp(DecodeState& ds) {
  auto types = ds.mods.takeTypes();
  if (types.size() != 1) ds.fail("setp needs exactly one type");
  ScalarType t = types[0];
  const bool half = t == ScalarType::F16 || t == ScalarType::F16x2 || t == ScalarType::BF16 || t == ScalarType::BF16x2;
  const bool pair = t == ScalarType::F16x2 || t == ScalarType::BF16x2;
  if (half) {
    const bool bf = t == ScalarType::BF16 || t == ScalarType::BF16x2;
    // ptxas: "Feature 'setp.bf16' requires .target sm_90 or higher", f16 sm_53 / PTX 4.2.
    if (bf) ds.requireFeature(std::string("setp.") + scalarTypeName(t), 78, 90);
    else ds.requireFeature(std::string("setp.") + scalarTypeName(t), 42, 53);
    ds.out.fn = bf ? (pair ? &setpHalfHandler<true, true> : &setpHalfHandler<true, false>)
                   : (pair ? &setpHalfHandler<false, true> : &setpHalfHandler<false, false>);
    if (!ds.in.operands.empty() && !ds.in.operands[0].pairName.empty() && !pair)
      ds.fail(fmt::format("predicate output q not allowed for setp.{} (only the x2 forms have p|q)", scalarTypeName(t)));
  } else {
    ds.out.fn = pickByType<SetpH, true>(t);
  }
  if (!ds.out.fn) ds.fail(fmt::format("setp does not support .{}", scalarTypeName(t)));
  if (ds.in.operands.empty()) ds.fail("setp needs operands");
  const ptx::Operand& dst = ds.in.operands[0];
  ds.out.d[0] = ds.destination(dst);
  if (ds.slotBytes(ds.out.d[0]) != 1) ds.fail("setp destination must be a predicate");
  if (!dst.pairName.empty()) {
    ptx::Operand q = dst;
    q.name = dst.pairName;
    q.pairName.clear();
    ds.out.d[1] = ds.destination(q);
    if (ds.slotBytes(ds.out.d[1]) != 1) ds.fail("setp second destination must be a predicate");
  }
  decodeCompareCommon(ds, t, 1);
  if (half)  // ptxas: "Arguments mismatch" for an f16x2 compare of .b16 registers and back
    for (int i = 0; i < 2; ++i)
      if (ds.namesRegister(ds.in.operands[1 + i]) && ds.slotBytes(ds.out.s[i]) != (pair ? 4u : 2u))
        ds.fail(fmt::format("setp.{} needs {}-bit operands", scalarTypeName(t), pair ? 32 : 16));
  ds.requireRegisterType(t, 1, 3);  // the two compared operands (halves: .bN or the half type)
}

// set.CmpOp{.BoolOp}{.ftz}.dtype.stype as ptxas 13 accepts it (its messages in quotes):
// .u32/.s32/.f32 from the non-half types; .f16/.bf16 from those and .f16 (.bf16 also from
// .bf16); .u16/.s16/.u32/.s32 from .f16/.bf16; .u32/.s32 or the same type from .f16x2/.bf16x2.
void decodeSet(DecodeState& ds) {
  using enum ScalarType;
  auto types = ds.mods.takeTypes();
  if (types.size() != 2) ds.fail("set needs a destination and a source type");
  const ScalarType dt = types[0], st = types[1];
  auto isHalf = [](ScalarType t) { return t == F16 || t == BF16 || t == F16x2 || t == BF16x2; };
  const bool halfSrc = isHalf(st), pair = st == F16x2 || st == BF16x2;
  const bool intDst = dt == U16 || dt == S16 || dt == U32 || dt == S32;
  bool ok;
  if (pair) ok = dt == U32 || dt == S32 || dt == st;
  else if (halfSrc) ok = intDst || dt == BF16 || (dt == F16 && st == F16);
  else ok = dt == U32 || dt == S32 || dt == F32 || dt == F16 || dt == BF16;
  if (!ok || st == Pred || st == B8 || st == U8 || st == S8)
    ds.fail(fmt::format("unexpected instruction types .{}.{} for 'set'", scalarTypeName(dt), scalarTypeName(st)));
  if (dt == BF16 || st == BF16) ds.requireFeature("set.bf16", 78, 90);
  else if (dt == BF16x2) ds.requireFeature("set.bf16x2", 78, 90);
  else if (halfSrc && intDst) ds.requireFeature("half precision floating point set instruction with integer result", 65, 53);
  else if (halfSrc || dt == F16) ds.requireFeature("f16 arithemetic and compare instructions", 42, 53);
  // The true pattern of one destination element.
  const uint64_t yes = dt == F32 ? 0x3f800000u : dt == F16 || dt == F16x2 ? 0x3c00u
                     : dt == BF16 || dt == BF16x2 ? 0x3f80u : dt == U16 || dt == S16 || pair ? 0xffffu : 0xffffffffu;
  ds.out.imm |= static_cast<int64_t>(yes << 32);
  if (halfSrc) {
    const bool bf = st == BF16 || st == BF16x2;
    ds.out.fn = bf ? (pair ? &setHalfHandler<true, true> : &setHalfHandler<true, false>)
                   : (pair ? &setHalfHandler<false, true> : &setHalfHandler<false, false>);
  } else {
    ds.out.fn = pickByType<SetH, true>(st);
  }
  if (!ds.out.fn) ds.fail(fmt::format("set does not support .{}", scalarTypeName(st)));
  if (ds.in.operands.empty()) ds.fail("set needs operands");
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  decodeCompareCommon(ds, st, 1);
  if (ds.out.ftz && (dt == BF16 || dt == BF16x2)) ds.fail("illegal modifier '.ftz' for 'set' with a .bf16 result");
  // ptxas: "Arguments mismatch" for a 16-bit result in a 32-bit register (and back) and for
  // half-precision sources that are not registers of their width.
  if (halfSrc || dt == F16 || dt == BF16) {
    const uint32_t dbytes = scalarTypeBytes(dt);
    if (ds.slotBytes(ds.out.d[0]) != dbytes) ds.fail(fmt::format("set.{}.{} needs a {}-bit destination", scalarTypeName(dt), scalarTypeName(st), 8 * dbytes));
    if (halfSrc)
      for (int i = 0; i < 2; ++i)
        if (!ds.namesRegister(ds.in.operands[1 + i]) || ds.slotBytes(ds.out.s[i]) != scalarTypeBytes(st))
          ds.fail(fmt::format("set.{}.{} needs {}-bit register sources", scalarTypeName(dt), scalarTypeName(st), 8 * scalarTypeBytes(st)));
    // The registers' types, as ptxas 13 checks them when a half type is involved: the sources
    // as operands of type stype, the destination as one of type dtype, except that a .bf16
    // result takes .b16/.u16/.s16 registers (not .f16) and a .bf16x2 one any 32-bit register.
    ds.requireRegisterType(st, 1, 3);
    if (dt == BF16) ds.requireOperandType(0, U16, false, "destination");
    else if (dt != BF16x2) ds.requireOperandType(0, dt, false, "destination");
  } else if (dt == F32 || st == F32 || st == F64) {
    // ptxas 13 checks the registers the same way where an .f32/.f64 is involved: the sources
    // as operands of type stype, the destination (.u32/.s32/.f32) as one of type dtype, each
    // of exactly its type's width.
    if (st == F32 || st == F64) ds.requireRegisterType(st, 1, 3);
    ds.requireOperandType(0, dt, false, "destination");
  }
}

void decodeSelp(DecodeState& ds) {
  auto types = ds.mods.takeTypes();
  if (types.size() != 1 || types[0] == ScalarType::Pred) ds.fail("selp needs one data type");
  ds.expectOperands(4);
  ds.out.fn = &selpHandler;
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  ds.out.s[0] = ds.source(ds.in.operands[1], types[0]);
  ds.out.s[1] = ds.source(ds.in.operands[2], types[0]);
  bool negated = false;  // selp d, a, b, !p is selp d, b, a, p (ptxas accepts it)
  ds.out.s[2] = ds.predicate(ds.in.operands[3], &negated);
  if (negated) std::swap(ds.out.s[0], ds.out.s[1]);
  // ptxas 13: selp.f32/.f64 takes registers of its type or of the bit type of its width.
  if (types[0] == ScalarType::F32 || types[0] == ScalarType::F64) ds.requireRegisterType(types[0], 0, 3);
}

void decodeSlct(DecodeState& ds) {
  ds.out.ftz = ds.mods.take("ftz");
  auto types = ds.mods.takeTypes();
  if (types.size() != 2) ds.fail("slct needs .dtype.ctype");
  if (types[1] != ScalarType::S32 && types[1] != ScalarType::F32) ds.fail("slct selector must be .s32 or .f32");
  ds.expectOperands(4);
  ds.out.fn = types[1] == ScalarType::F32 ? &slctHandler<true> : &slctHandler<false>;
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  ds.out.s[0] = ds.source(ds.in.operands[1], types[0]);
  ds.out.s[1] = ds.source(ds.in.operands[2], types[0]);
  ds.out.s[2] = ds.source(ds.in.operands[3], types[1]);
}

void decodePredicateLogic(DecodeState& ds) {
  auto types = ds.mods.takeTypes();
  if (types.size() != 1 || types[0] != ScalarType::Pred) ds.fail("expected .pred");
  const std::string& op = ds.in.opcode;
  ds.out.mode = op == "and" ? 0 : op == "or" ? 1 : op == "xor" ? 2 : 3;
  ds.out.fn = &predLogicHandler;
  ds.expectOperands(ds.out.mode == 3 ? 2 : 3);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  ds.out.s[0] = ds.predicate(ds.in.operands[1]);
  if (ds.out.mode != 3) ds.out.s[1] = ds.predicate(ds.in.operands[2]);
}

}  // namespace qgpu
