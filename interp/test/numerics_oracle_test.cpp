// Numeric oracle (issue #4): every floating-point instruction form and every
// cvt form listed in qgpu/interp/oracle_matrix.h is run through the real
// decoded handler on >= 10^6 inputs and compared bit for bit with an
// independent reference (LLVM APFloat + the PTX rules, oracle/reference.cpp).
// Inputs: the full cross product of special values (signed zeros,
// subnormals, min/max normals, infinities, quiet and signalling NaNs with
// payloads, halfway addends), then random bit patterns and structured
// classes (short mantissas, tiny/huge exponents, half-ulp addends,
// cancellation, values near integers).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>

#include "oracle/harness.h"
#include "oracle/reference.h"
#include "qgpu/interp/oracle_matrix.h"

namespace qgpu::oracle {
namespace {

std::string testName(const testing::TestParamInfo<std::string>& info) {
  std::string s;
  for (char ch : info.param) s += (ch == '.' || ch == '+') ? '_' : ch;
  return s;
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(v));
  return buf;
}

struct Tally {
  uint64_t comparisons = 0, mismatches = 0;
  std::string examples;
  template <class Describe>
  void check(bool ok, Describe&& what) {
    ++comparisons;
    if (ok) return;
    if (++mismatches <= 8) examples += "  " + what() + "\n";
  }
  void report(const std::string& name, uint64_t need) {
    std::printf("[oracle] %s: %llu comparisons, %llu mismatches\n", name.c_str(),
                static_cast<unsigned long long>(comparisons), static_cast<unsigned long long>(mismatches));
    EXPECT_GE(comparisons, need);
    EXPECT_EQ(mismatches, 0u) << name << " mismatches (inputs -> expected / got):\n" << examples;
  }
};

// ------------------------------------------------------------------ float
std::string reg(int width, bool pair, int i) {
  if (pair || width == 32) return "%r" + std::to_string(i);
  if (width == 16) return "%h" + std::to_string(i);
  return "%rd" + std::to_string(i);
}

class FloatOracle : public testing::TestWithParam<std::string> {};

TEST_P(FloatOracle, MatchesAPFloat) {
  const FloatCase fc = parseFloatCase(GetParam());
  const int w = fc.bf ? kBF16 : fc.width;  // the format code (Gen, reference)
  const int rw = fc.width;                 // element storage width (registers)
  // setp.f16x2/.bf16x2 write p|q: element 0's comparison to %p1, element 1's to %p2.
  const bool predPair = fc.predicateResult && fc.pair;
  // set: the destination register has the destination type's width.
  const std::string dreg = fc.id == FOp::Set ? (fc.setDstBits == 16 ? "%h4" : "%r4") : reg(rw, fc.pair, 4);
  std::string body = fc.spelling + " " + (predPair ? std::string("%p1|%p2") : fc.predicateResult ? std::string("%p1") : dreg);
  for (int i = 1; i <= fc.nsrc; ++i) body += ", " + reg(rw, fc.pair, i);
  body += ";";
  OneInstr k(body);
  uint64_t* src[3] = {nullptr, nullptr, nullptr};
  for (int i = 0; i < fc.nsrc; ++i) src[i] = k.lanes(reg(rw, fc.pair, i + 1));
  uint64_t* dst = k.lanes(fc.predicateResult ? "%p1" : dreg);
  const uint64_t* dst2 = predPair ? k.lanes("%p2") : nullptr;

  FloatCase elem = fc;
  elem.pair = false;
  Gen gen(std::hash<std::string>{}(fc.spelling));
  const auto& sp = gen.specials(w);
  const uint64_t n = casesPerOp();
  uint64_t crossSize = 1;
  for (int i = 0; i < fc.nsrc; ++i) crossSize *= sp.size();
  const uint64_t emask = rw == 64 ? ~uint64_t{0} : (uint64_t{1} << rw) - 1;

  // Unary 16-bit forms are exhaustive: every pattern of each element (10^6 > 2^16).
  const bool exhaustive = fc.nsrc == 1 && storageBits(w) == 16;
  auto operand = [&](uint64_t idx, int i, uint64_t first) -> uint64_t {
    if (exhaustive) return idx & 0xffff;
    if (idx < crossSize) {
      uint64_t d = idx;
      for (int j = 0; j < i; ++j) d /= sp.size();
      return sp[d % sp.size()];
    }
    if (i == 0 || gen.below(2)) return gen.floatBits(w);
    return gen.related(w, first);
  };
  Tally t;
  for (uint64_t base = 0; base < n; base += kLanes) {
    uint64_t in[kLanes][3] = {};
    for (uint32_t l = 0; l < kLanes; ++l) {
      uint64_t idx = base + l;
      for (int e = 0; e < (fc.pair ? 2 : 1); ++e) {
        uint64_t first = 0;
        for (int i = 0; i < fc.nsrc; ++i) {
          uint64_t v = operand(fc.pair && e == 1 ? (idx * 7919 + 13) % (crossSize + n) : idx, i, first);
          if (i == 0) first = v;
          in[l][i] |= (v & emask) << (16 * e);
        }
      }
      for (int i = 0; i < fc.nsrc; ++i) src[i][l] = in[l][i];
    }
    k.run();
    for (uint32_t l = 0; l < kLanes; ++l) {
      uint64_t got = dst2 ? (dst[l] | (dst2[l] << 16)) : dst[l];
      bool ok;
      uint64_t want = 0;
      if (fc.id == FOp::Sqrt) {
        ok = sqrtCorrect(elem, in[l][0], got);
      } else if (fc.pair) {
        for (int e = 0; e < 2; ++e) {
          auto h = [&](int i) { return (in[l][i] >> (16 * e)) & 0xffff; };
          want |= expectFloat(elem, h(0), h(1), h(2)) << (16 * e);
        }
        ok = got == want;
      } else {
        want = expectFloat(elem, in[l][0], in[l][1], in[l][2]);
        ok = got == want;
      }
      t.check(ok, [&] {
        return hex(in[l][0]) + " " + hex(in[l][1]) + " " + hex(in[l][2]) + " -> " +
               (fc.id == FOp::Sqrt ? std::string("(not correctly rounded)") : hex(want)) + " / " + hex(got);
      });
    }
  }
  t.report(fc.spelling, n);
}

INSTANTIATE_TEST_SUITE_P(Numerics, FloatOracle, testing::ValuesIn(floatCases()), testName);

// ------------------------------------------------------------------ cvt
std::string cvtReg(const std::string& t, int i) {
  int b = regBits(t);
  return (b == 16 ? "%h" : b == 32 ? "%r" : "%rd") + std::to_string(i);
}

class CvtOracle : public testing::TestWithParam<std::string> {};

TEST_P(CvtOracle, MatchesReference) {
  const CvtCase cc = parseCvtCase(GetParam());
  const std::string d = cvtReg(cc.dst, 4), s = cvtReg(cc.src, 1);
  OneInstr k(cc.spelling + " " + d + ", " + s + ";");
  uint64_t* src = k.lanes(s);
  uint64_t* dst = k.lanes(d);
  Gen gen(std::hash<std::string>{}(cc.spelling));
  const int sb = typeBits(cc.src);
  const bool fsrc = isFloatType(cc.src);
  const auto& sp = gen.specials(fsrc ? cc.sf : 64);
  const uint64_t n = casesPerOp();
  const uint64_t smask = sb == 64 ? ~uint64_t{0} : (uint64_t{1} << sb) - 1;
  Tally t;
  for (uint64_t base = 0; base < n; base += kLanes) {
    uint64_t in[kLanes];
    for (uint32_t l = 0; l < kLanes; ++l) {
      uint64_t idx = base + l;
      uint64_t v;
      if (fsrc && sb == 16 && idx < 0x10000) {
        v = idx;  // 16-bit float sources: every pattern first
      } else if (fsrc) {
        if (idx < sp.size()) v = sp[idx];
        else if (gen.below(3) == 0) v = cc.sf == kBF16 ? gen.nearInteger(32) >> 16 : gen.nearInteger(sb);  // bf16: truncated f32
        else v = gen.floatBits(cc.sf);
      } else {
        v = (idx < (sb == 8 ? 256u : 0u)) ? idx : gen.intBits(sb);
      }
      in[l] = v & smask;
      src[l] = in[l];
    }
    k.run();
    for (uint32_t l = 0; l < kLanes; ++l) {
      uint64_t want = expectCvt(cc, in[l]);
      t.check(dst[l] == want, [&] { return hex(in[l]) + " -> " + hex(want) + " / " + hex(dst[l]); });
    }
  }
  t.report(cc.spelling, n);
}

INSTANTIATE_TEST_SUITE_P(Numerics, CvtOracle, testing::ValuesIn(cvtCases()), testName);

// ------------------------------------------------------------------ packing cvt
// f16x2/bf16x2 from two f32 and fp8 pairs from two f32: random f32 classes, a third of them
// (fp8) at or next to the midpoint of two neighbouring fp8 values (the ties); fp8 pairs from
// an f16x2: every f16 pattern of the low element; f16x2 from fp8: every 16-bit pattern;
// cvt.pack.sat: integer edge classes for a and b, random bits for c; tf32: f32 classes, ties
// of the dropped 13 bits and extreme exponents.
class PackedCvtOracle : public testing::TestWithParam<std::string> {};

TEST_P(PackedCvtOracle, MatchesReference) {
  const PackedCvtCase pc = parsePackedCvtCase(GetParam());
  using K = PackedCvtCase::Kind;
  const bool to16 = pc.kind == K::Fp8FromF32 || pc.kind == K::Fp8FromHalfPair;  // 16-bit destination
  const std::string d = to16 ? "%h4" : "%r4";
  // Source registers: f32 / s32 / b32 / f16x2 in %r1..%r3, an fp8 pair in %h1.
  const std::string s0 = pc.kind == K::HalfPairFromFp8 ? "%h1" : "%r1";
  std::string body = pc.spelling + " " + d + ", " + s0;
  for (int i = 2; i <= pc.nsrc; ++i) body += ", %r" + std::to_string(i);
  OneInstr k(body + ";");
  uint64_t* src[3] = {k.lanes(s0), pc.nsrc > 1 ? k.lanes("%r2") : nullptr, pc.nsrc > 2 ? k.lanes("%r3") : nullptr};
  uint64_t* dst = k.lanes(d);
  Gen gen(std::hash<std::string>{}(pc.spelling));
  const uint64_t n = std::max<uint64_t>(casesPerOp(), pc.kind == K::Fp8FromHalfPair ? (1u << 20) : 0);
  // f32 values at, or one f32 ulp beside, the midpoint of two neighbouring fp8 values.
  auto fp8Tie = [&]() -> uint64_t {
    const uint32_t code = gen.below(pc.e5m2 ? 0x7b : 0x7e);  // both neighbours finite
    const double mid = (fp8Value(code, pc.e5m2) + fp8Value(code + 1, pc.e5m2)) / 2;
    uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(mid));  // exact: 5 significant bits
    bits += static_cast<uint32_t>(static_cast<int>(gen.below(3)) - 1);
    return bits | (gen.below(2) ? 0x80000000u : 0u);
  };
  auto f32Input = [&](uint64_t idx, int i) -> uint64_t {
    const auto& sp = gen.specials(32);
    if (idx < sp.size() * sp.size()) return sp[i == 0 ? idx % sp.size() : idx / sp.size()];
    if ((pc.kind == K::Fp8FromF32) && gen.below(3) == 0) return fp8Tie();
    return gen.floatBits(32);
  };
  Tally t;
  for (uint64_t base = 0; base < n; base += kLanes) {
    uint64_t in[kLanes][3] = {};
    for (uint32_t l = 0; l < kLanes; ++l) {
      const uint64_t idx = base + l;
      switch (pc.kind) {
        case K::PairFromF32:
        case K::Fp8FromF32:
          in[l][0] = f32Input(idx, 0);
          in[l][1] = f32Input(idx, 1);
          break;
        case K::Fp8FromHalfPair: in[l][0] = (idx & 0xffff) | (gen.floatBits(16) << 16); break;
        case K::HalfPairFromFp8: in[l][0] = idx & 0xffff; break;
        case K::Tf32FromF32: {
          // specials and random classes; a third at or one f32 ulp beside a tf32 tie (the 13
          // dropped bits 0x1000), a sixth with the extreme exponents (subnormals, overflow).
          const uint32_t pick = idx < gen.specials(32).size() ? 6 : gen.below(6);
          uint32_t x = static_cast<uint32_t>(idx < gen.specials(32).size() ? gen.specials(32)[idx] : gen.floatBits(32));
          if (pick < 2) x = (x & ~0x1fffu) | (0x1000u + static_cast<uint32_t>(static_cast<int>(gen.below(3)) - 1));
          else if (pick == 2) x = (x & 0x807fffffu) | (gen.below(2) ? 0x7f000000u : 0u) | (gen.below(2) << 23);
          in[l][0] = x;
          break;
        }
        case K::PackSat:
          in[l][0] = gen.intBits(32);
          in[l][1] = gen.intBits(32);
          in[l][2] = gen.bits(32);
          break;
      }
      for (int i = 0; i < pc.nsrc; ++i) src[i][l] = in[l][i];
    }
    k.run();
    for (uint32_t l = 0; l < kLanes; ++l) {
      const uint64_t want = expectPackedCvt(pc, in[l][0], in[l][1], in[l][2]);
      t.check(dst[l] == want, [&] {
        return hex(in[l][0]) + " " + hex(in[l][1]) + " " + hex(in[l][2]) + " -> " + hex(want) + " / " + hex(dst[l]);
      });
    }
  }
  t.report(pc.spelling, std::min<uint64_t>(n, casesPerOp()));
}

INSTANTIATE_TEST_SUITE_P(Numerics, PackedCvtOracle, testing::ValuesIn(packedCvtCases()), testName);

}  // namespace
}  // namespace qgpu::oracle
