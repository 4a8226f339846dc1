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
  const auto& sp = gen.specials(fsrc ? sb : 64);
  const uint64_t n = casesPerOp();
  const uint64_t smask = sb == 64 ? ~uint64_t{0} : (uint64_t{1} << sb) - 1;
  Tally t;
  for (uint64_t base = 0; base < n; base += kLanes) {
    uint64_t in[kLanes];
    for (uint32_t l = 0; l < kLanes; ++l) {
      uint64_t idx = base + l;
      uint64_t v;
      if (fsrc) {
        if (idx < sp.size()) v = sp[idx];
        else v = gen.below(3) == 0 ? gen.nearInteger(sb) : gen.floatBits(sb);
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

}  // namespace
}  // namespace qgpu::oracle
