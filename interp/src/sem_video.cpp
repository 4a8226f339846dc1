// The video instructions (PTX ISA §9.7.18), as the ISA's pseudocode writes them:
//   scalar  vop.dtype.atype.btype{.sat}{.secop}  d{.dsel}, a{.asel}, b{.bsel}{, c}
//           vop = vadd vsub vabsdiff vmin vmax; vshl/vshr (btype .u32, .clamp or .wrap);
//           vset.atype.btype.cmp (no dtype, no .sat); .secop = .add .min .max
//   vmad    vmad.dtype.atype.btype{.po}{.sat}{.shr7|.shr15}  d, {-}a{.asel}, {-}b{.bsel}, {-}c
//   SIMD    vop2/vop4.dtype.atype.btype{.sat|.add}  d{.mask}, a{.asel}, b{.bsel}, c
//           vop = vadd vsub vavrg vabsdiff vmin vmax; vset2/vset4.atype.btype.cmp{.add}
// Scalar: a and b (a byte .b0-.b3, a half .h0/.h1 or the word) are sign- or zero-extended by
// their type, the operation is exact (in 128 bits: a shift by 32 of a 33-bit value too), .sat
// clamps to dtype's range (of the byte or half when d has a selector), then the secondary
// operation with c (extended by dtype) or the merge of the result's low byte/half into c at
// d's selector; d is the low 32 bits. With four operands and neither, c is read and unused.
// SIMD: elements are selected from the eight bytes / four halves of {b, a} (.hxy: element 1
// from half x, element 0 from half y; .bxyzw likewise), operated on exactly, clamped with .sat
// to the element range; then merged (positions in the mask from the results, the others from
// c) or, with .add, the masked results are added to c. All of it is the ISA's pseudocode read
// literally; none of it is verified on hardware (docs/semantics.md).
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"

namespace qgpu {
namespace {

__extension__ typedef __int128 s128;

// Instr::mode: the operation.
enum class VOp : uint8_t { Add, Sub, Absdiff, Min, Max, Shl, Shr, Set, Mad, Avrg };

// Instr::imm fields.
struct VideoFields {
  uint32_t asel = 0, bsel = 0;  // scalar: 0 word, 1-4 byte 0-3, 5-6 half 0-1; SIMD: 3 bits per element
  uint32_t dsel = 0;            // scalar: as asel; SIMD: the element mask
  bool asigned = false, bsigned = false, dsigned = false, sat = false;
  uint32_t secop = 0;           // 0 none, 1 add, 2 min, 3 max
  bool clamp = false;           // vshl/vshr .clamp (else .wrap)
  uint32_t cmp = 0;             // eq ne lt le gt ge
  bool negProduct = false, negC = false, po = false;
  uint32_t scale = 0;           // vmad: 0, 7 or 15

  int64_t pack() const {
    uint64_t v = asel | (uint64_t{bsel} << 12) | (uint64_t{dsel} << 24) | (uint64_t{asigned} << 28) |
                 (uint64_t{bsigned} << 29) | (uint64_t{dsigned} << 30) | (uint64_t{sat} << 31) |
                 (uint64_t{secop} << 32) | (uint64_t{clamp} << 34) | (uint64_t{cmp} << 35) |
                 (uint64_t{negProduct} << 38) | (uint64_t{negC} << 39) | (uint64_t{po} << 40) |
                 (uint64_t{scale} << 41);
    return static_cast<int64_t>(v);
  }
  static VideoFields unpack(int64_t imm) {
    const uint64_t v = static_cast<uint64_t>(imm);
    VideoFields f;
    f.asel = v & 0xfff;
    f.bsel = (v >> 12) & 0xfff;
    f.dsel = (v >> 24) & 0xf;
    f.asigned = (v >> 28) & 1;
    f.bsigned = (v >> 29) & 1;
    f.dsigned = (v >> 30) & 1;
    f.sat = (v >> 31) & 1;
    f.secop = (v >> 32) & 3;
    f.clamp = (v >> 34) & 1;
    f.cmp = (v >> 35) & 7;
    f.negProduct = (v >> 38) & 1;
    f.negC = (v >> 39) & 1;
    f.po = (v >> 40) & 1;
    f.scale = (v >> 41) & 31;
    return f;
  }
};

// The scalar operand part: the word, byte k (sel 1 + k) or half k (sel 5 + k), extended.
int64_t part(uint32_t v, uint32_t sel, bool sgn) {
  if (sel == 0) return sgn ? int64_t{static_cast<int32_t>(v)} : int64_t{v};
  if (sel <= 4) {
    const uint32_t b = (v >> (8 * (sel - 1))) & 0xff;
    return sgn ? int64_t{static_cast<int8_t>(b)} : int64_t{b};
  }
  const uint32_t h = (v >> (16 * (sel - 5))) & 0xffff;
  return sgn ? int64_t{static_cast<int16_t>(h)} : int64_t{h};
}

s128 clampTo(s128 x, s128 lo, s128 hi) { return std::min(std::max(x, lo), hi); }

// .sat: the range of dtype, of a byte or half when d has a selector.
s128 saturate(s128 t, bool sgn, uint32_t dsel) {
  const int bits = dsel == 0 ? 32 : dsel <= 4 ? 8 : 16;
  const s128 lo = sgn ? -(s128{1} << (bits - 1)) : 0;
  const s128 hi = sgn ? (s128{1} << (bits - 1)) - 1 : (s128{1} << bits) - 1;
  return clampTo(t, lo, hi);
}

bool compare(uint32_t cmp, int64_t a, int64_t b) {
  switch (cmp) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

uint32_t scalarVideo(VOp op, const VideoFields& f, uint32_t a, uint32_t b, uint32_t c) {
  const int64_t ta = part(a, f.asel, f.asigned);
  int64_t tb = part(b, f.bsel, f.bsigned);
  s128 t = 0;
  switch (op) {
    case VOp::Add: t = s128{ta} + tb; break;
    case VOp::Sub: t = s128{ta} - tb; break;
    case VOp::Absdiff: t = ta > tb ? s128{ta} - tb : s128{tb} - ta; break;
    case VOp::Min: t = std::min(ta, tb); break;
    case VOp::Max: t = std::max(ta, tb); break;
    case VOp::Shl:
    case VOp::Shr:
      tb = f.clamp ? std::min<int64_t>(tb, 32) : (tb & 31);
      t = op == VOp::Shl ? s128{ta} * (s128{1} << tb) : s128{ta >> tb};
      break;
    case VOp::Set: t = compare(f.cmp, ta, tb) ? 1 : 0; break;
    default: break;
  }
  if (f.sat) t = saturate(t, f.dsigned, f.dsel);
  if (f.dsel != 0) {  // merge the low byte/half into c
    const uint32_t k = f.dsel <= 4 ? f.dsel - 1 : f.dsel - 5;
    const uint32_t width = f.dsel <= 4 ? 8 : 16, shift = width * k;
    const uint32_t mask = ((1u << width) - 1) << shift;
    return ((static_cast<uint32_t>(t) << shift) & mask) | (c & ~mask);
  }
  const s128 tc = f.dsigned ? s128{static_cast<int32_t>(c)} : s128{c};
  switch (f.secop) {
    case 1: t += tc; break;
    case 2: t = std::min(t, tc); break;
    case 3: t = std::max(t, tc); break;
    default: break;
  }
  return static_cast<uint32_t>(t);
}

uint32_t vmad(const VideoFields& f, uint32_t a, uint32_t b, uint32_t c) {
  const s128 ta = part(a, f.asel, f.asigned), tb = part(b, f.bsel, f.bsigned);
  const bool signedFinal = f.asigned || f.bsigned || f.negProduct || f.negC;
  s128 t = ta * tb;
  s128 lsb = 0;
  uint32_t cc = c;
  if (f.po) lsb = 1;
  else if (f.negProduct) t = ~t, lsb = 1;
  else if (f.negC) cc = ~cc, lsb = 1;
  t += (signedFinal ? s128{static_cast<int32_t>(cc)} : s128{cc}) + lsb;
  s128 r = t >> f.scale;  // arithmetic: t is negative only when the final result is signed
  r = static_cast<s128>(static_cast<uint64_t>(r));  // & 0xffff'ffff'ffff'ffff
  if (signedFinal) r = static_cast<int64_t>(static_cast<uint64_t>(r));
  if (f.sat) r = signedFinal ? clampTo(r, INT32_MIN, INT32_MAX) : clampTo(r, 0, UINT32_MAX);
  return static_cast<uint32_t>(r);
}

// SIMD: n elements of `width` bits.
uint32_t simdVideo(VOp op, const VideoFields& f, uint32_t n, uint32_t a, uint32_t b, uint32_t c) {
  const uint32_t width = 32 / n;
  const uint64_t both = (uint64_t{b} << 32) | a;
  const uint64_t emask = (uint64_t{1} << width) - 1;
  auto element = [&](uint32_t sel, uint32_t i, bool sgn) {
    const uint32_t src = (sel >> (3 * i)) & 7;
    const uint64_t raw = (both >> (width * src)) & emask;
    const uint64_t signBit = uint64_t{1} << (width - 1);
    return sgn && (raw & signBit) ? static_cast<int64_t>(raw) - static_cast<int64_t>(uint64_t{1} << width)
                                  : static_cast<int64_t>(raw);
  };
  const bool add = f.secop == 1;
  uint32_t d = add ? c : 0;
  for (uint32_t i = 0; i < n; ++i) {
    const int64_t va = element(f.asel, i, f.asigned), vb = element(f.bsel, i, f.bsigned);
    int64_t t = 0;
    switch (op) {
      case VOp::Add: t = va + vb; break;
      case VOp::Sub: t = va - vb; break;
      case VOp::Avrg: t = va + vb >= 0 ? (va + vb + 1) >> 1 : (va + vb) >> 1; break;
      case VOp::Absdiff: t = va > vb ? va - vb : vb - va; break;
      case VOp::Min: t = std::min(va, vb); break;
      case VOp::Max: t = std::max(va, vb); break;
      case VOp::Set: t = compare(f.cmp, va, vb) ? 1 : 0; break;
      default: break;
    }
    if (f.sat) {
      const int64_t lo = f.dsigned ? -(int64_t{1} << (width - 1)) : 0;
      const int64_t hi = f.dsigned ? (int64_t{1} << (width - 1)) - 1 : static_cast<int64_t>(emask);
      t = std::clamp(t, lo, hi);
    }
    const bool in = (f.dsel >> i) & 1;
    if (add) {
      if (in) d += static_cast<uint32_t>(t);
    } else {
      const uint64_t v = in ? static_cast<uint64_t>(t) : (uint64_t{c} >> (width * i));
      d |= static_cast<uint32_t>((v & emask) << (width * i));
    }
  }
  return d;
}

template <int Kind>  // 0 scalar, 1 vmad, 2 two-way SIMD, 4 four-way
void videoHandler(const Instr& in, ExecContext& ctx, uint32_t m) {
  uint64_t* d = ctx.reg(in.d[0]);
  const uint64_t* a = ctx.reg(in.s[0]);
  const uint64_t* b = ctx.reg(in.s[1]);
  const uint64_t* c = in.s[2] == kNoSlot ? nullptr : ctx.reg(in.s[2]);
  const VideoFields f = VideoFields::unpack(in.imm);
  const VOp op = static_cast<VOp>(in.mode);
  forLanes(ctx, m, [&](uint32_t l) {
    const uint32_t av = static_cast<uint32_t>(a[l]), bv = static_cast<uint32_t>(b[l]);
    const uint32_t cv = c ? static_cast<uint32_t>(c[l]) : 0;
    uint32_t r;
    if constexpr (Kind == 0) r = scalarVideo(op, f, av, bv, cv);
    else if constexpr (Kind == 1) r = vmad(f, av, bv, cv);
    else r = simdVideo(op, f, Kind, av, bv, cv);
    d[l] = r;
  });
}

// ------------------------------------------------------------------ decoding
// An operand's video selector ("%r2.b0" -> "b0"): the operand without it, and the suffix.
ptx::Operand withoutSelector(const ptx::Operand& op, std::string* sel) {
  sel->clear();
  using K = ptx::Operand::Kind;
  if (op.kind != K::Register && op.kind != K::Symbol) return op;
  const size_t dot = op.name.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 2 > op.name.size()) return op;
  const std::string s = op.name.substr(dot + 1);
  if ((s[0] != 'b' && s[0] != 'h') || !std::all_of(s.begin() + 1, s.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    return op;
  ptx::Operand out = op;
  out.name = op.name.substr(0, dot);
  *sel = s;
  return out;
}

struct VideoOperands {
  std::string dsel, asel, bsel, csel;
  ptx::Operand d, a, b, c;
};

VideoOperands videoOperands(DecodeState& ds, size_t lo, size_t hi) {
  ds.expectOperands(lo, hi);
  VideoOperands v;
  const auto& ops = ds.in.operands;
  v.d = withoutSelector(ops[0], &v.dsel);
  v.a = withoutSelector(ops[1], &v.asel);
  v.b = withoutSelector(ops[2], &v.bsel);
  if (ops.size() > 3) v.c = withoutSelector(ops[3], &v.csel);
  return v;
}

// Scalar selectors: b0-b3 -> 1-4, h0/h1 -> 5/6, none -> 0.
uint32_t scalarSelector(DecodeState& ds, const std::string& s, const char* which) {
  if (s.empty()) return 0;
  static const char* kSel[] = {"b0", "b1", "b2", "b3", "h0", "h1"};
  for (uint32_t i = 0; i < 6; ++i)
    if (s == kSel[i]) return i + 1;
  ds.fail(fmt::format("video selector .{} on {} (scalar video instructions take .b0-.b3, .h0, .h1)", s, which));
}

// A register (or, where `immediates`, an immediate) 32-bit video operand.
uint32_t videoSource(DecodeState& ds, const ptx::Operand& op, bool immediates, const char* which) {
  if (op.kind == ptx::Operand::Kind::Immediate) {
    if (!immediates) ds.fail(fmt::format("{} must be a register (SIMD video instructions take no immediates)", which));
    if (op.isFloat) ds.fail(fmt::format("{} must be an integer", which));
  } else if (!ds.namesRegister(op)) {
    ds.fail(fmt::format("{} must be a 32-bit register or an immediate", which));
  }
  ptx::Operand plain = op;
  plain.minus = false;
  const uint32_t slot = ds.source(plain, ScalarType::U32);
  if (op.kind != ptx::Operand::Kind::Immediate && ds.slotBytes(slot) != 4) ds.fail(fmt::format("{} must be a 32-bit register (ptxas: arguments mismatch)", which));
  return slot;
}

void videoRegisterTypes(DecodeState& ds) {
  for (size_t i = 0; i < ds.in.operands.size(); ++i) {
    if (auto t = ds.declaredRegisterType(i); t && isFloat(*t))
      ds.fail("video instructions take .b32/.u32/.s32 registers (ptxas: arguments mismatch)");
  }
}

// dtype.atype.btype (or atype.btype for vset), each .u32 or .s32.
std::vector<ScalarType> videoTypes(DecodeState& ds, size_t n) {
  auto types = ds.mods.takeTypes();
  bool ok = types.size() == n;
  for (ScalarType t : types) ok = ok && (t == ScalarType::U32 || t == ScalarType::S32);
  if (!ok) ds.fail(fmt::format("unexpected instruction types for '{}' (.u32 or .s32: {} of them)", ds.in.opcode, n));
  return types;
}

int takeCmp(DecodeState& ds) {
  const int cmp = ds.mods.takeOneOf({"eq", "ne", "lt", "le", "gt", "ge"});
  if (cmp < 0) ds.fail(fmt::format("'{}' needs a comparison: .eq .ne .lt .le .gt .ge", ds.in.opcode));
  return cmp;
}

VOp videoOp(Opcode op) {
  switch (op) {
    case Opcode::Vadd: case Opcode::Vadd2: case Opcode::Vadd4: return VOp::Add;
    case Opcode::Vsub: case Opcode::Vsub2: case Opcode::Vsub4: return VOp::Sub;
    case Opcode::Vabsdiff: case Opcode::Vabsdiff2: case Opcode::Vabsdiff4: return VOp::Absdiff;
    case Opcode::Vmin: case Opcode::Vmin2: case Opcode::Vmin4: return VOp::Min;
    case Opcode::Vmax: case Opcode::Vmax2: case Opcode::Vmax4: return VOp::Max;
    case Opcode::Vshl: return VOp::Shl;
    case Opcode::Vshr: return VOp::Shr;
    case Opcode::Vset: case Opcode::Vset2: case Opcode::Vset4: return VOp::Set;
    case Opcode::Vavrg2: case Opcode::Vavrg4: return VOp::Avrg;
    default: return VOp::Mad;
  }
}

}  // namespace

// vadd vsub vabsdiff vmin vmax vshl vshr vset, as ptxas 13 takes them: immediates for a, b, c;
// no selector on c; d's selector only with c and without a secondary operation.
void decodeVideo(DecodeState& ds) {
  const VOp op = videoOp(ds.out.opcode);
  VideoFields f;
  const bool set = op == VOp::Set, shift = op == VOp::Shl || op == VOp::Shr;
  if (set) f.cmp = static_cast<uint32_t>(takeCmp(ds));
  if (shift) {
    const int mode = ds.mods.takeOneOf({"clamp", "wrap"});
    if (mode < 0) ds.fail(fmt::format("'{}' needs .clamp or .wrap", ds.in.opcode));
    f.clamp = mode == 0;
  }
  if (!set) f.sat = ds.mods.take("sat");
  const int sec = ds.mods.takeOneOf({"add", "min", "max"});
  f.secop = static_cast<uint32_t>(sec + 1);
  const auto types = videoTypes(ds, set ? 2 : 3);
  f.dsigned = !set && isSigned(types[0]);
  f.asigned = isSigned(types[set ? 0 : 1]);
  f.bsigned = isSigned(types[set ? 1 : 2]);
  if (shift && f.bsigned) ds.fail(fmt::format("'{}' needs a .u32 shift amount type", ds.in.opcode));
  VideoOperands v = videoOperands(ds, 3, 4);
  videoRegisterTypes(ds);
  f.asel = scalarSelector(ds, v.asel, "a");
  f.bsel = scalarSelector(ds, v.bsel, "b");
  f.dsel = scalarSelector(ds, v.dsel, "d");
  if (!v.csel.empty()) ds.fail("a video selector is not allowed on c");
  if (f.dsel && ds.in.operands.size() < 4) ds.fail("a video selector on d needs c, the operand merged into");
  if (f.dsel && f.secop) ds.fail("a video instruction cannot have both a selector on d and a secondary operation");
  if (f.secop && ds.in.operands.size() < 4) ds.fail("a secondary operation needs c");
  ds.out.fn = &videoHandler<0>;
  ds.out.mode = static_cast<uint8_t>(op);
  ds.out.imm = f.pack();
  ds.out.typeBytes = 4;
  ds.out.d[0] = ds.destination(v.d);
  if (ds.slotBytes(ds.out.d[0]) != 4) ds.fail("d must be a 32-bit register (ptxas: arguments mismatch)");
  ds.out.s[0] = videoSource(ds, v.a, true, "a");
  ds.out.s[1] = videoSource(ds, v.b, true, "b");
  if (ds.in.operands.size() > 3) ds.out.s[2] = videoSource(ds, v.c, true, "c");
}

// vmad: negation of a, b (the product, when exactly one is negated) or c; .po without negation;
// one of .shr7/.shr15; no selector on d or c.
void decodeVmad(DecodeState& ds) {
  VideoFields f;
  f.po = ds.mods.take("po");
  f.sat = ds.mods.take("sat");
  const int scale = ds.mods.takeOneOf({"shr7", "shr15"});
  if (scale >= 0 && ds.mods.takeOneOf({"shr7", "shr15"}) >= 0) ds.fail("vmad takes one of .shr7 and .shr15");
  f.scale = scale < 0 ? 0 : scale == 0 ? 7 : 15;
  const auto types = videoTypes(ds, 3);
  f.dsigned = isSigned(types[0]);
  f.asigned = isSigned(types[1]);
  f.bsigned = isSigned(types[2]);
  VideoOperands v = videoOperands(ds, 4, 4);
  videoRegisterTypes(ds);
  if (!v.dsel.empty()) ds.fail("a video selector is not allowed on vmad's d");
  if (!v.csel.empty()) ds.fail("a video selector is not allowed on vmad's c");
  f.asel = scalarSelector(ds, v.asel, "a");
  f.bsel = scalarSelector(ds, v.bsel, "b");
  const auto& ops = ds.in.operands;
  if (ops[0].minus) ds.fail("vmad's d cannot be negated");
  f.negProduct = ops[1].minus != ops[2].minus;
  f.negC = ops[3].minus;
  if (f.negProduct && f.negC) ds.fail("vmad: operand negation limited to either (a xor b) or c");
  if (f.po && (f.negProduct || f.negC)) ds.fail("vmad: .po cannot be combined with operand negation");
  ds.out.fn = &videoHandler<1>;
  ds.out.mode = static_cast<uint8_t>(VOp::Mad);
  ds.out.imm = f.pack();
  ds.out.typeBytes = 4;
  ds.out.d[0] = ds.destination(v.d);
  if (ds.slotBytes(ds.out.d[0]) != 4) ds.fail("d must be a 32-bit register (ptxas: arguments mismatch)");
  ds.out.s[0] = videoSource(ds, v.a, true, "a");
  ds.out.s[1] = videoSource(ds, v.b, true, "b");
  ds.out.s[2] = videoSource(ds, v.c, true, "c");
}

// vadd2 ... vset2, vadd4 ... vset4: four register operands; .sat or .add (vset: .add only).
void decodeVideoSimd(DecodeState& ds) {
  const VOp op = videoOp(ds.out.opcode);
  const std::string& name = ds.in.opcode;
  const uint32_t n = name.back() == '2' ? 2 : 4;
  const bool set = op == VOp::Set;
  VideoFields f;
  if (set) f.cmp = static_cast<uint32_t>(takeCmp(ds));
  if (!set) f.sat = ds.mods.take("sat");
  const bool add = ds.mods.take("add");
  if (ds.mods.takeOneOf({"min", "max"}) >= 0) ds.fail(fmt::format("illegal secondary operation for '{}' (only .add)", name));
  if (add && f.sat) ds.fail("illegal combination of .sat and .add");
  f.secop = add ? 1 : 0;
  const auto types = videoTypes(ds, set ? 2 : 3);
  f.dsigned = !set && isSigned(types[0]);
  f.asigned = isSigned(types[set ? 0 : 1]);
  f.bsigned = isSigned(types[set ? 1 : 2]);
  VideoOperands v = videoOperands(ds, 4, 4);
  videoRegisterTypes(ds);
  const char prefix = n == 2 ? 'h' : 'b';
  // .hxy / .bxyzw: digit k (from the left) names the source of element n-1-k.
  auto selector = [&](const std::string& s, uint32_t dflt, const char* which) -> uint32_t {
    if (s.empty()) return dflt;
    const uint32_t limit = n == 2 ? 4 : 8;
    if (s.size() != n + 1 || s[0] != prefix) ds.fail(fmt::format("incorrect video selector .{} for {} of '{}'", s, which, name));
    uint32_t sel = 0;
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t digit = static_cast<uint32_t>(s[1 + k] - '0');
      if (digit >= limit) ds.fail(fmt::format("unknown video selector .{}", s));
      sel |= digit << (3 * (n - 1 - k));
    }
    return sel;
  };
  const uint32_t aDefault = n == 2 ? (1u << 3 | 0u) : (3u << 9 | 2u << 6 | 1u << 3 | 0u);
  const uint32_t bDefault = n == 2 ? (3u << 3 | 2u) : (7u << 9 | 6u << 6 | 5u << 3 | 4u);
  f.asel = selector(v.asel, aDefault, "a");
  f.bsel = selector(v.bsel, bDefault, "b");
  // The mask: element digits in decreasing order (.h10, .b320, ...).
  f.dsel = (1u << n) - 1;
  if (!v.dsel.empty()) {
    const std::string& s = v.dsel;
    bool ok = s.size() >= 2 && s[0] == prefix;
    uint32_t mask = 0, last = n;
    for (size_t k = 1; ok && k < s.size(); ++k) {
      const uint32_t digit = static_cast<uint32_t>(s[k] - '0');
      ok = digit < last;
      last = digit;
      mask |= 1u << digit;
    }
    if (!ok) ds.fail(fmt::format("incorrect video selector .{} for d of '{}'", s, name));
    f.dsel = mask;
  }
  if (!v.csel.empty()) ds.fail("a video selector is not allowed on c");
  ds.out.fn = n == 2 ? &videoHandler<2> : &videoHandler<4>;
  ds.out.mode = static_cast<uint8_t>(op);
  ds.out.imm = f.pack();
  ds.out.typeBytes = 4;
  ds.out.d[0] = ds.destination(v.d);
  if (ds.slotBytes(ds.out.d[0]) != 4) ds.fail("d must be a 32-bit register (ptxas: arguments mismatch)");
  ds.out.s[0] = videoSource(ds, v.a, false, "a");
  ds.out.s[1] = videoSource(ds, v.b, false, "b");
  ds.out.s[2] = videoSource(ds, v.c, false, "c");
}

}  // namespace qgpu
