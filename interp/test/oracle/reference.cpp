// Independent references of the numeric oracle (LLVM APFloat plus the PTX rules).
#include "reference.h"

#include <sstream>
#include <stdexcept>

#include <llvm/ADT/APFloat.h>
#include <llvm/ADT/APInt.h>
#include <llvm/ADT/APSInt.h>

namespace qgpu::oracle {
namespace {

__extension__ typedef __int128 s128;

using llvm::APFloat;
using llvm::APInt;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, '.')) out.push_back(t);
  return out;
}

const llvm::fltSemantics& sem(int width) {
  if (width == kBF16) return APFloat::BFloat();
  return width == 16 ? APFloat::IEEEhalf() : width == 32 ? APFloat::IEEEsingle() : APFloat::IEEEdouble();
}
llvm::RoundingMode mode(Rm r) {
  switch (r) {
    case Rm::RZ: return llvm::RoundingMode::TowardZero;
    case Rm::RM: return llvm::RoundingMode::TowardNegative;
    case Rm::RP: return llvm::RoundingMode::TowardPositive;
    default: return llvm::RoundingMode::NearestTiesToEven;
  }
}
APFloat mk(int width, uint64_t bits) { return APFloat(sem(width), APInt(static_cast<unsigned>(storageBits(width)), bits)); }
uint64_t bitsOf(const APFloat& f) { return f.bitcastToAPInt().getZExtValue(); }

int mantBits(int w) { return w == kBF16 ? 7 : w == 16 ? 10 : w == 32 ? 23 : 52; }
uint64_t signBit(int w) { return uint64_t{1} << (storageBits(w) - 1); }
uint64_t expMask(int w) { return (signBit(w) - 1) & ~((uint64_t{1} << mantBits(w)) - 1); }
bool isNaNBits(int w, uint64_t x) { return (x & expMask(w)) == expMask(w) && (x & ((uint64_t{1} << mantBits(w)) - 1)); }
bool isSubBits(int w, uint64_t x) { return (x & expMask(w)) == 0 && (x & ((uint64_t{1} << mantBits(w)) - 1)); }
uint64_t flush(int w, uint64_t x) { return isSubBits(w, x) ? (x & signBit(w)) : x; }
uint64_t canonicalNaN(int w) { return storageBits(w) == 16 ? 0x7fff : w == 32 ? 0x7fffffff : 0x7fffffffffffffff; }
uint64_t quiet(int w, uint64_t x) { return x | (uint64_t{1} << (mantBits(w) - 1)); }
uint64_t one(int w) { return w == kBF16 ? 0x3f80 : w == 16 ? 0x3c00 : w == 32 ? 0x3f800000 : 0x3ff0000000000000; }

Rm parseRm(const std::string& m) {
  if (m == "rz" || m == "rzi") return Rm::RZ;
  if (m == "rm" || m == "rmi") return Rm::RM;
  if (m == "rp" || m == "rpi") return Rm::RP;
  return Rm::RN;
}

// .sat: clamp to [0, 1]; NaN and every value <= 0 (including -0) -> +0.
uint64_t saturateBits(int w, uint64_t x) {
  if (isNaNBits(w, x)) return 0;
  APFloat v = mk(w, x);
  if (v.isNegative() || v.isZero()) return 0;
  if (v.compare(mk(w, one(w))) != APFloat::cmpLessThan) return one(w);
  return x;
}

// The PTX result rules on top of the IEEE value.
uint64_t finish(const FloatCase& c, APFloat v) {
  const int w = c.bf ? kBF16 : c.width;
  uint64_t r = v.isNaN() ? canonicalNaN(w) : bitsOf(v);
  if (c.ftz) r = flush(w, r);
  if (c.sat) r = saturateBits(w, r);
  if (c.relu && !isNaNBits(w, r) && (r & signBit(w))) r = 0;  // negative and -0 -> +0
  return r;
}

}  // namespace

FloatCase parseFloatCase(const std::string& spelling) {
  FloatCase c;
  c.spelling = spelling;
  auto parts = split(spelling);
  c.op = parts[0];
  std::string t = parts.back();
  c.width = t == "f64" ? 64 : t == "f32" ? 32 : 16;
  c.pair = t == "f16x2" || t == "bf16x2";
  c.bf = t == "bf16" || t == "bf16x2";
  size_t modEnd = parts.size() - 1;
  if (c.op == "set") {  // set.CMP[.ftz].DTYPE.STYPE
    c.setDst = parts[--modEnd];
    const std::string& d = c.setDst;
    c.setDstBits = d == "u16" || d == "s16" || d == "f16" || d == "bf16" ? 16 : 32;
    c.setTrue = d == "f32" ? 0x3f800000 : d == "f16" || d == "f16x2" ? 0x3c00 : d == "bf16" || d == "bf16x2" ? 0x3f80
              : c.setDstBits == 16 || c.pair ? 0xffff : 0xffffffff;
  }
  for (size_t i = 1; i < modEnd; ++i) {
    const std::string& m = parts[i];
    if (m == "ftz") c.ftz = true;
    else if (m == "relu") c.relu = true;
    else if (m == "NaN") c.nanMode = true;
    else if (m == "xorsign") c.xorsign = true;
    else if (m == "abs") continue;  // .xorsign.abs
    else if (m == "sat") c.sat = true;
    else if (m == "rn" || m == "rz" || m == "rm" || m == "rp") c.rm = parseRm(m);
    else c.cls = m;
  }
  if (c.op == "fma" || c.op == "mad") c.nsrc = 3;
  else if (c.op == "rcp" || c.op == "sqrt" || c.op == "abs" || c.op == "neg" || c.op == "testp") c.nsrc = 1;
  c.predicateResult = c.op == "testp" || c.op == "setp";
  if (c.op == "set") {
    c.id = FOp::Set;
    return c;
  }
  static const std::pair<const char*, FOp> ids[] = {
      {"add", FOp::Add}, {"sub", FOp::Sub}, {"mul", FOp::Mul}, {"fma", FOp::Fma}, {"mad", FOp::Fma},
      {"div", FOp::Div}, {"rcp", FOp::Rcp}, {"sqrt", FOp::Sqrt}, {"min", FOp::Min}, {"max", FOp::Max},
      {"abs", FOp::Abs}, {"neg", FOp::Neg}, {"copysign", FOp::Copysign}, {"testp", FOp::Testp},
      {"setp", FOp::Setp}};
  bool found = false;
  for (auto [name, id] : ids)
    if (c.op == name) c.id = id, found = true;
  if (!found) throw std::runtime_error("no reference for " + spelling);
  return c;
}

uint64_t expectFloat(const FloatCase& c, uint64_t a, uint64_t b, uint64_t c3) {
  const int w = c.bf ? kBF16 : c.width;
  const auto rm = mode(c.rm);
  if (c.id == FOp::Copysign) return (b & ~signBit(w)) | (a & signBit(w));
  if (c.id == FOp::Testp) {
    APFloat x = mk(w, a);
    if (c.cls == "finite") return x.isFinite();
    if (c.cls == "infinite") return x.isInfinity();
    if (c.cls == "number") return !x.isNaN();
    if (c.cls == "notanumber") return x.isNaN();
    if (c.cls == "normal") return x.isNormal() || x.isZero();  // the ISA counts +-0 as normal
    if (c.cls == "subnormal") return x.isDenormal();
    throw std::runtime_error("testp class " + c.cls);
  }
  if (c.ftz) {
    a = flush(w, a);
    b = flush(w, b);
    c3 = flush(w, c3);
  }
  APFloat x = mk(w, a), y = mk(w, b), z = mk(w, c3);
  if (c.id == FOp::Setp || c.id == FOp::Set) {
    if (c.id == FOp::Set) {
      FloatCase p = c;
      p.id = FOp::Setp;
      p.ftz = false;  // the inputs are flushed already
      return expectFloat(p, a, b, c3) ? c.setTrue : 0;
    }
    auto r = x.compare(y);
    bool un = r == APFloat::cmpUnordered;
    const std::string& k = c.cls;
    bool lt = r == APFloat::cmpLessThan, eq = r == APFloat::cmpEqual, gt = r == APFloat::cmpGreaterThan;
    if (k == "eq") return eq;
    if (k == "ne") return lt || gt;
    if (k == "lt") return lt;
    if (k == "le") return lt || eq;
    if (k == "gt") return gt;
    if (k == "ge") return gt || eq;
    if (k == "equ") return un || eq;
    if (k == "neu") return un || lt || gt;
    if (k == "ltu") return un || lt;
    if (k == "leu") return un || lt || eq;
    if (k == "gtu") return un || gt;
    if (k == "geu") return un || gt || eq;
    if (k == "num") return !un;
    if (k == "nan") return un;
    throw std::runtime_error("setp " + k);
  }
  if (c.id == FOp::Abs || c.id == FOp::Neg) {
    if (w == 64) return c.id == FOp::Abs ? a & ~signBit(w) : a ^ signBit(w);  // bit operations
    if (isNaNBits(w, a)) return canonicalNaN(w);  // f32 NaN: canonical (docs/semantics.md)
    return c.id == FOp::Abs ? a & ~signBit(w) : a ^ signBit(w);  // a was flushed if .ftz
  }
  if (c.id == FOp::Min || c.id == FOp::Max) {
    // The ISA's min/max: .xorsign.abs works on magnitudes and signs the (non-NaN) result
    // with the XOR of the operands' signs; .NaN makes any NaN operand give NaN.
    const uint64_t xs = (a ^ b) & signBit(w);
    if (c.xorsign) {
      x.clearSign();
      y.clearSign();
    }
    bool na = x.isNaN(), nb = y.isNaN();
    if ((na && nb) || (c.nanMode && (na || nb))) return canonicalNaN(w);
    APFloat r = na ? y : nb ? x : c.id == FOp::Min ? llvm::minimum(x, y) : llvm::maximum(x, y);
    uint64_t bits = bitsOf(r);
    if (c.xorsign) bits = (bits & ~signBit(w)) | xs;
    return bits;
  }
  // Arithmetic. NaN inputs: f32/f16 give the canonical NaN; f64 propagates
  // the first NaN operand (a, then b, then c), quieted.
  int n = c.nsrc;
  uint64_t in[3] = {a, b, c3};
  if (c.id == FOp::Rcp) in[0] = a;
  for (int i = 0; i < n; ++i)
    if (isNaNBits(w, in[i])) {
      if (w != 64) return c.sat ? 0 : canonicalNaN(w);
      return quiet(w, in[i]);
    }
  APFloat r = x;
  if (c.id == FOp::Add) r.add(y, rm);
  else if (c.id == FOp::Sub) r.subtract(y, rm);
  else if (c.id == FOp::Mul) r.multiply(y, rm);
  else if (c.id == FOp::Fma && w == kBF16) {
    // bf16: a*b is exact in quad (16-bit significands) but a*b + c may need ~520 bits, so
    // the sum is taken toward zero in quad with a sticky last bit (round to odd at 113
    // bits, 113 >= 8 + 2) and rounded once to bf16. APFloat's own bf16 fusedMultiplyAdd is
    // not trusted after the half-precision bug below.
    bool lost;
    APFloat xq = x, yq = y, zq = z;
    const auto& q = APFloat::IEEEquad();
    xq.convert(q, rm, &lost);
    yq.convert(q, rm, &lost);
    zq.convert(q, rm, &lost);
    xq.multiply(yq, rm);  // exact
    const auto status = xq.add(zq, llvm::RoundingMode::TowardZero);
    if ((status & APFloat::opInexact) && xq.isFiniteNonZero()) {
      APInt bits = xq.bitcastToAPInt();
      bits.setBit(0);  // the sticky bit
      xq = APFloat(q, bits);
    }
    xq.convert(sem(w), rm, &lost);
    r = xq;
  } else if (c.id == FOp::Fma && w == 16) {
    // LLVM 14's fusedMultiplyAdd misrounds some half results near the
    // subnormal range (0x07e3 * 0x31cb + 0x8002 is 363.50012 units of 2^-24,
    // so RN gives 0x016c; APFloat says 0x016b). For halves the exact a*b + c
    // fits IEEE quad (22-bit product, exponents 2^-48..2^32), so compute it
    // exactly there and round once.
    bool lost;
    APFloat xq = x, yq = y, zq = z;
    xq.convert(APFloat::IEEEquad(), rm, &lost);
    yq.convert(APFloat::IEEEquad(), rm, &lost);
    zq.convert(APFloat::IEEEquad(), rm, &lost);
    xq.multiply(yq, rm);  // exact
    xq.add(zq, rm);       // exact
    xq.convert(sem(16), rm, &lost);
    r = xq;
  } else if (c.id == FOp::Fma) r.fusedMultiplyAdd(y, z, rm);
  else if (c.id == FOp::Div) r.divide(y, rm);
  else if (c.id == FOp::Rcp) {
    r = mk(w, one(w));
    r.divide(x, rm);
  } else throw std::runtime_error("no reference for " + c.spelling);
  return finish(c, r);
}

bool sqrtCorrect(const FloatCase& c, uint64_t a, uint64_t r) {
  const int w = c.width;
  if (c.ftz) a = flush(w, a);
  APFloat x = mk(w, a);
  if (x.isNaN()) return r == (w == 64 ? quiet(w, a) : canonicalNaN(w));
  if (x.isZero()) return r == a;  // sqrt(+-0) = +-0
  if (x.isNegative()) return r == canonicalNaN(w);
  if (x.isInfinity()) return r == a;
  // r must be a positive normal number (sqrt of any positive finite value is).
  APFloat y = mk(w, r);
  if (!y.isFiniteNonZero() || y.isNegative() || y.isDenormal()) return false;
  // Squares and midpoints are exact in IEEE quad (113 >= 2 * (53 + 1) bits).
  const auto& q = APFloat::IEEEquad();
  bool lost;
  auto toQ = [&](APFloat v) {
    v.convert(q, llvm::RoundingMode::NearestTiesToEven, &lost);
    return v;
  };
  auto sq = [&](APFloat v) {
    v.multiply(v, llvm::RoundingMode::NearestTiesToEven);
    return v;
  };
  APFloat xq = toQ(x), rq = toQ(y);
  APFloat up = y, down = y;
  up.next(false);
  down.next(true);
  APFloat upq = toQ(up), downq = toQ(down);
  auto lessEq = [](const APFloat& p, const APFloat& s) {
    auto k = p.compare(s);
    return k == APFloat::cmpLessThan || k == APFloat::cmpEqual;
  };
  auto less = [](const APFloat& p, const APFloat& s) { return p.compare(s) == APFloat::cmpLessThan; };
  switch (c.rm) {
    case Rm::RZ:
    case Rm::RM: return lessEq(sq(rq), xq) && less(xq, sq(upq));
    case Rm::RP: return less(sq(downq), xq) && lessEq(xq, sq(rq));
    default: {
      APFloat half(q, "0.5");
      APFloat lo = rq, hi = rq;
      lo.add(downq, llvm::RoundingMode::NearestTiesToEven);
      lo.multiply(half, llvm::RoundingMode::NearestTiesToEven);
      hi.add(upq, llvm::RoundingMode::NearestTiesToEven);
      hi.multiply(half, llvm::RoundingMode::NearestTiesToEven);
      return less(sq(lo), xq) && less(xq, sq(hi));
    }
  }
}

// ------------------------------------------------------------------ cvt
int typeBits(const std::string& t) { return t == "bf16" ? 16 : std::stoi(t.substr(1)); }
bool isFloatType(const std::string& t) { return t[0] == 'f' || t == "bf16"; }
bool isSignedType(const std::string& t) { return t[0] == 's'; }
int regBits(const std::string& t) { return std::max(16, typeBits(t)); }

CvtCase parseCvtCase(const std::string& spelling) {
  CvtCase c;
  c.spelling = spelling;
  auto parts = split(spelling);
  c.dst = parts[parts.size() - 2];
  c.src = parts.back();
  for (size_t i = 1; i + 2 < parts.size(); ++i) {
    const std::string& m = parts[i];
    if (m == "ftz") c.ftz = true;
    else if (m == "sat") c.sat = true;
    else if (m == "relu") c.relu = true;
    else if (m == "satfinite") c.satfinite = true;
    else {
      c.hasRound = true;
      c.intRound = m.size() == 3;
      c.rm = parseRm(m);
    }
  }
  c.sb = typeBits(c.src);
  c.db = typeBits(c.dst);
  c.rb = regBits(c.dst);
  c.fsrc = isFloatType(c.src);
  c.fdst = isFloatType(c.dst);
  c.ssrc = isSignedType(c.src);
  c.sdst = isSignedType(c.dst);
  c.sf = c.src == "bf16" ? kBF16 : c.sb;
  c.df = c.dst == "bf16" ? kBF16 : c.db;
  return c;
}

uint64_t expectCvt(const CvtCase& c, uint64_t a) {
  const int sb = c.sb, db = c.db, rb = c.rb;
  const uint64_t dmask = db == 64 ? ~uint64_t{0} : (uint64_t{1} << db) - 1;
  const uint64_t rmask = rb == 64 ? ~uint64_t{0} : (uint64_t{1} << rb) - 1;
  auto intResult = [&](s128 v) {  // value already in range of dst
    uint64_t bits = static_cast<uint64_t>(v) & dmask;
    if (c.sdst && db < rb && (bits >> (db - 1) & 1)) bits |= ~dmask;  // sign-extend
    return bits & rmask;
  };
  s128 lo = c.sdst ? -(s128{1} << (db - 1)) : 0;
  s128 hi = c.sdst ? (s128{1} << (db - 1)) - 1 : (s128{1} << db) - 1;
  auto clamp = [&](s128 v) { return v < lo ? lo : v > hi ? hi : v; };
  const uint64_t smask = sb == 64 ? ~uint64_t{0} : (uint64_t{1} << sb) - 1;
  a &= smask;

  if (!c.fsrc) {
    s128 v = static_cast<s128>(a);
    if (c.ssrc && (a >> (sb - 1) & 1)) v -= s128{1} << sb;
    if (!c.fdst) return intResult(c.sat ? clamp(v) : v);
    APFloat f(sem(c.df));
    APInt ai(128, static_cast<uint64_t>(v), false);
    ai.insertBits(APInt(64, static_cast<uint64_t>(v >> 64)), 64);
    f.convertFromAPInt(ai, true, mode(c.rm));
    uint64_t r = bitsOf(f);
    if (c.ftz && db == 32) r = flush(32, r);
    if (c.sat) r = saturateBits(c.df, r);
    return r & rmask;
  }
  // Float source.
  uint64_t x = a;
  if (c.ftz && sb == 32) x = flush(32, x);
  APFloat f = mk(c.sf, x);
  if (!c.fdst) {
    if (f.isNaN()) return intResult((sb == 64 || db == 64) ? (s128{1} << (db - 1)) : 0);
    if (f.isInfinity()) return intResult(f.isNegative() ? lo : hi);
    f.roundToIntegral(mode(c.rm));
    llvm::APSInt out(128, false);
    bool exact;
    auto st = f.convertToInteger(out, llvm::RoundingMode::TowardZero, &exact);
    if (st & APFloat::opInvalidOp) return intResult(f.isNegative() ? lo : hi);  // beyond 2^127
    s128 v = static_cast<s128>(out.extractBitsAsZExtValue(64, 0)) |
             (static_cast<s128>(out.extractBitsAsZExtValue(64, 64)) << 64);
    return intResult(clamp(v));
  }
  // Float to float.
  uint64_t r;
  if (f.isNaN()) {
    r = canonicalNaN(c.df);
  } else {
    if (c.intRound) f.roundToIntegral(mode(c.rm));
    bool lost;
    // LLVM 14's APFloat::convert misrounds some subnormal sources when
    // narrowing (f32 0x0000169a -> f16 gives 0x0001 in RN; the exact value
    // is ~2^-136.5, so +0 is right). Widening to IEEE quad is exact and the
    // quad value is normal, so go through it.
    f.convert(APFloat::IEEEquad(), llvm::RoundingMode::NearestTiesToEven, &lost);
    f.convert(sem(c.df), mode(c.rm), &lost);
    // .satfinite: an infinite result is the largest finite value of its sign.
    if (c.satfinite && f.isInfinity()) f = APFloat::getLargest(sem(c.df), f.isNegative());
    r = bitsOf(f);
    if (c.relu && (r & signBit(c.df))) r = 0;  // negative and -0 -> +0
  }
  if (c.ftz && db == 32) r = flush(32, r);
  if (c.sat) r = saturateBits(c.df, r);
  return r & rmask;
}

}  // namespace qgpu::oracle
