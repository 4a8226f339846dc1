// Independent references of the packing cvt forms: each f16/bf16 element is the scalar cvt
// reference (LLVM APFloat, reference.cpp); fp8 has no APFloat semantics in LLVM 14, so its
// elements are found in a table of all 256 codes decoded from their bit fields (OCP FP8:
// e4m3 bias 7 without infinities, S.1111.111 NaN; e5m2 bias 15 as IEEE), by nearest search
// with ties to the even code; tf32 the same way, from a table of its 261,120 positive finite
// values decoded from (exponent, 10-bit fraction) fields, with ties away from zero for .rna
// and the IEEE overflow rules (the interpreter instead rounds the f32 bit pattern's low 13
// bits); cvt.pack.sat is written from the ISA's pseudocode with
// 128-bit clamps. Nothing here calls the interpreter's numerics.
#include "reference.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <llvm/ADT/APFloat.h>
#include <llvm/ADT/APInt.h>

namespace qgpu::oracle {
namespace {

__extension__ typedef __int128 s128;

std::vector<std::string> parts(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, '.')) out.push_back(t);
  return out;
}

// The positive finite codes of a format in increasing value (codes 0x00..0x7f without NaN
// and infinity) with their values.
struct Fp8Table {
  std::vector<uint32_t> codes;
  std::vector<double> values;
};
const Fp8Table& table(bool e5m2) {
  static Fp8Table e4, e5;
  Fp8Table& out = e5m2 ? e5 : e4;
  if (out.codes.empty())
    for (uint32_t code = 0; code < 0x80; ++code) {
      const double v = fp8Value(code, e5m2);
      if (std::isfinite(v)) {
        out.codes.push_back(code);
        out.values.push_back(v);
      }
    }
  return out;
}

// Round-to-nearest-even fp8 of the exact value x with .satfinite (|x| above the largest
// finite value, infinities included, gives the largest finite value of x's sign).
uint32_t toFp8(double x, bool e5m2, bool relu) {
  if (std::isnan(x)) return 0x7f;
  const Fp8Table& t = table(e5m2);
  const uint32_t sign = std::signbit(x) ? 0x80 : 0;
  const double ax = std::fabs(x);
  uint32_t code;
  if (ax >= t.values.back()) {
    code = t.codes.back();
  } else {
    // values[i] <= ax < values[i + 1]
    const size_t i = static_cast<size_t>(std::upper_bound(t.values.begin(), t.values.end(), ax) - t.values.begin()) - 1;
    const double lo = t.values[i], hi = t.values[i + 1];
    if (ax - lo < hi - ax) code = t.codes[i];
    else if (ax - lo > hi - ax) code = t.codes[i + 1];
    else code = (t.codes[i] & 1) ? t.codes[i + 1] : t.codes[i];  // tie: the even code
  }
  uint32_t r = sign | code;
  if (relu && sign) r = 0;  // negative and -0 -> +0
  return r;
}

// tf32: 1 sign, 8 exponent (bias 127), 10 fraction bits, stored as the f32 pattern with the
// low 13 bits zero. The positive finite values in increasing order, from their fields.
const std::vector<double>& tf32Values() {
  static std::vector<double> v;
  if (v.empty())
    for (uint32_t e = 0; e < 255; ++e)
      for (uint32_t f = 0; f < 1024; ++f)
        v.push_back(e == 0 ? std::ldexp(static_cast<double>(f), -126 - 10)
                           : std::ldexp(1024.0 + f, static_cast<int>(e) - 127 - 10));
  return v;
}
uint32_t tf32Code(size_t index) {  // index in tf32Values() -> the tf32 bit pattern
  return static_cast<uint32_t>(((index / 1024) << 23) | ((index % 1024) << 13));
}

uint32_t toTf32Reference(uint32_t bits, const PackedCvtCase& c) {
  float f;
  std::memcpy(&f, &bits, 4);
  if (std::isnan(f)) return 0x7fffffffu;
  const std::vector<double>& v = tf32Values();
  const double x = static_cast<double>(f), ax = std::fabs(x);
  const uint32_t sign = std::signbit(x) ? 0x80000000u : 0u;
  uint32_t mag;
  const double maxv = v.back(), beyond = std::ldexp(1.0, 128);  // the next value past the largest
  if (ax >= maxv) {
    // Between the largest value and 2^128 (infinity's place): .rz and .satfinite stay at the
    // largest value, the nearest modes go to infinity from the midpoint on (.rn: the largest
    // value's code is odd, so the tie goes to infinity too).
    const bool toInf = !std::isfinite(ax) || (!c.rz && ax >= (maxv + beyond) / 2);
    mag = toInf ? 0x7f800000u : tf32Code(v.size() - 1);
    if (c.satfinite) mag = tf32Code(v.size() - 1);
  } else {
    const size_t i = static_cast<size_t>(std::upper_bound(v.begin(), v.end(), ax) - v.begin()) - 1;  // v[i] <= ax < v[i+1]
    const double lo = v[i], hi = v[i + 1];
    size_t k;
    if (c.rz || ax == lo) k = i;
    else if (ax - lo < hi - ax) k = i;
    else if (ax - lo > hi - ax) k = i + 1;
    else k = c.rna ? i + 1 : (i % 2 == 0 ? i : i + 1);  // tie: away from zero, or the even code
    mag = tf32Code(k);
  }
  if (c.relu && sign) return 0;
  return sign | mag;
}

double f32ToDouble(uint64_t bits) {
  const uint32_t u = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &u, 4);
  return static_cast<double>(f);
}

// An f16 pattern's exact value, through APFloat.
double f16ToDouble(uint64_t bits) {
  llvm::APFloat h(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits & 0xffff));
  if (h.isNaN()) return std::numeric_limits<double>::quiet_NaN();
  bool lost;
  h.convert(llvm::APFloat::IEEEdouble(), llvm::RoundingMode::NearestTiesToEven, &lost);
  return h.convertToDouble();
}

// The f16 of an fp8 value (exact), through APFloat; NaN -> 0x7fff; .relu.
uint64_t fp8ToF16(uint32_t code, bool e5m2, bool relu) {
  const double v = fp8Value(code, e5m2);
  if (std::isnan(v)) return 0x7fff;
  llvm::APFloat d(v);
  bool lost;
  const auto st = d.convert(llvm::APFloat::IEEEhalf(), llvm::RoundingMode::NearestTiesToEven, &lost);
  if (st & llvm::APFloat::opInexact) throw std::runtime_error("fp8 value not exact in f16");
  uint64_t r = d.bitcastToAPInt().getZExtValue();
  if (relu && (r & 0x8000)) r = 0;
  return r;
}

}  // namespace

double fp8Value(uint32_t code, bool e5m2) {
  const int mant = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  const uint32_t e = (code >> mant) & (e5m2 ? 0x1f : 0xf), m = code & ((1u << mant) - 1);
  const bool neg = code & 0x80;
  double v;
  if (e5m2 && e == 0x1f) v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (!e5m2 && e == 0xf && m == 7) v = std::numeric_limits<double>::quiet_NaN();
  else if (e == 0) v = std::ldexp(static_cast<double>(m), 1 - bias - mant);
  else v = std::ldexp(static_cast<double>(m | (1u << mant)), static_cast<int>(e) - bias - mant);
  return neg ? -v : v;
}

PackedCvtCase parsePackedCvtCase(const std::string& spelling) {
  PackedCvtCase c;
  c.spelling = spelling;
  const auto p = parts(spelling);
  for (const auto& m : p) {
    if (m == "relu") c.relu = true;
    if (m == "satfinite") c.satfinite = true;
    if (m == "rz") c.rz = true;
  }
  const std::string& dst = p[p.size() - 2];
  const std::string& src = p.back();
  if (dst == "tf32") {
    c.kind = PackedCvtCase::Kind::Tf32FromF32;
    c.rna = p[1] == "rna";
    c.nsrc = 1;
  } else if (p[1] == "pack") {
    c.kind = PackedCvtCase::Kind::PackSat;
    const std::string& t = src == "b32" ? p[p.size() - 3] : dst;
    c.isSigned = t[0] == 's';
    c.width = std::stoi(t.substr(1));
    c.nsrc = c.width == 16 ? 2 : 3;
  } else if (dst == "f16x2" || dst == "bf16x2") {
    if (src == "f32") {
      c.kind = PackedCvtCase::Kind::PairFromF32;
      c.bf = dst == "bf16x2";
      c.nsrc = 2;
      std::string e = std::string("cvt.") + (c.rz ? "rz" : "rn") + (c.relu ? ".relu" : "") +
                      (c.satfinite ? ".satfinite" : "") + (c.bf ? ".bf16" : ".f16") + ".f32";
      c.element = parseCvtCase(e);
    } else {
      c.kind = PackedCvtCase::Kind::HalfPairFromFp8;
      c.e5m2 = src == "e5m2x2";
    }
  } else {
    c.e5m2 = dst == "e5m2x2";
    c.kind = src == "f32" ? PackedCvtCase::Kind::Fp8FromF32 : PackedCvtCase::Kind::Fp8FromHalfPair;
    c.nsrc = src == "f32" ? 2 : 1;
  }
  return c;
}

uint64_t expectPackedCvt(const PackedCvtCase& c, uint64_t a, uint64_t b, uint64_t c3) {
  using K = PackedCvtCase::Kind;
  switch (c.kind) {
    case K::PairFromF32:  // d[31:16] = cvt(a), d[15:0] = cvt(b)
      return (expectCvt(c.element, a & 0xffffffff) << 16) | expectCvt(c.element, b & 0xffffffff);
    case K::Fp8FromF32:  // d[15:8] = cvt(a), d[7:0] = cvt(b)
      return (uint64_t{toFp8(f32ToDouble(a), c.e5m2, c.relu)} << 8) | toFp8(f32ToDouble(b), c.e5m2, c.relu);
    case K::Fp8FromHalfPair:  // d[15:8] = cvt(a[31:16]), d[7:0] = cvt(a[15:0])
      return (uint64_t{toFp8(f16ToDouble(a >> 16), c.e5m2, c.relu)} << 8) | toFp8(f16ToDouble(a), c.e5m2, c.relu);
    case K::HalfPairFromFp8:  // d[31:16] = f16(a[15:8]), d[15:0] = f16(a[7:0])
      return (fp8ToF16((a >> 8) & 0xff, c.e5m2, c.relu) << 16) | fp8ToF16(a & 0xff, c.e5m2, c.relu);
    case K::Tf32FromF32: return toTf32Reference(static_cast<uint32_t>(a), c);
    case K::PackSat: {
      const int n = c.width;
      const s128 lo = c.isSigned ? -(s128{1} << (n - 1)) : 0, hi = c.isSigned ? (s128{1} << (n - 1)) - 1 : (s128{1} << n) - 1;
      auto sat = [&](uint64_t v) {
        s128 x = static_cast<int32_t>(static_cast<uint32_t>(v));
        x = std::min(std::max(x, lo), hi);
        return static_cast<uint64_t>(x) & ((uint64_t{1} << n) - 1);
      };
      uint64_t d = (sat(a) << n) | sat(b);  // td: b in bits n-1..0, a in 2n-1..n
      if (n < 16) d |= (c3 << (2 * n));     // c's low bits above them
      return d & 0xffffffff;
    }
  }
  throw std::runtime_error("no reference for " + c.spelling);
}

}  // namespace qgpu::oracle
