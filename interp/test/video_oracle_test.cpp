// Video-instruction oracle (issue #11 §2): every form of oracle_matrix.h's videoCases, with
// operand selectors, negations and merges varied, run through the decoded handler and
// compared bit for bit with a reference written here from the PTX ISA's pseudocode
// (§9.7.18): the instruction text is parsed again (not the decoder's fields), operands are
// cut out of the registers as bit fields and extended by subtracting 2^n, and every step is
// 128-bit integer arithmetic. >= 10^6 inputs per mnemonic (QGPU_ORACLE_N), over its forms:
// random words, integer edge values (0, 1, all ones, the sign bits of bytes, halves and
// words, their neighbours) and, for shifts, small amounts around 8, 16 and 32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "oracle/harness.h"
#include "qgpu/interp/oracle_matrix.h"

namespace qgpu::oracle {
namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, sep)) out.push_back(t);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// One instruction as written: its spelling and each operand's selector ("" if none).
struct Written {
  std::string spelling;
  std::vector<std::string> parts;  // spelling split at '.', once
  std::string dsel, asel, bsel;
  bool fourOperands = false;
  bool negA = false, negB = false, negC = false;
};

// The field `bits` wide at bit `lo` of v, as a signed (two's complement) or unsigned number.
i128 field(uint64_t v, unsigned lo, unsigned bits, bool isSigned) {
  const uint64_t raw = (v >> lo) & (bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
  i128 x = static_cast<i128>(raw);
  if (isSigned && (raw >> (bits - 1)) != 0) x -= i128{1} << bits;
  return x;
}

i128 clampRange(i128 x, unsigned bits, bool isSigned) {
  const i128 lo = isSigned ? -(i128{1} << (bits - 1)) : i128{0};
  const i128 hi = isSigned ? (i128{1} << (bits - 1)) - 1 : (i128{1} << bits) - 1;
  return x < lo ? lo : x > hi ? hi : x;
}

uint32_t low32(i128 x) { return static_cast<uint32_t>(static_cast<u128>(x) & 0xffffffffu); }

bool cmpHolds(const std::string& c, i128 a, i128 b) {
  if (c == "eq") return a == b;
  if (c == "ne") return a != b;
  if (c == "lt") return a < b;
  if (c == "le") return a <= b;
  if (c == "gt") return a > b;
  return a >= b;
}

// partSelectSignExtend: .b0-.b3 a byte, .h0/.h1 a half, none the word.
i128 partSelect(uint32_t v, const std::string& sel, bool isSigned) {
  if (sel.empty()) return field(v, 0, 32, isSigned);
  const unsigned k = static_cast<unsigned>(sel[1] - '0');
  return sel[0] == 'b' ? field(v, 8 * k, 8, isSigned) : field(v, 16 * k, 16, isSigned);
}

uint32_t referenceScalar(const Written& w, uint32_t a, uint32_t b, uint32_t c) {
  const auto& p = w.parts;
  const std::string& op = p[0];
  std::vector<std::string> types;
  for (const auto& x : p)
    if (x == "u32" || x == "s32") types.push_back(x);
  const bool isSet = op == "vset";
  const bool dSigned = !isSet && types[0] == "s32";
  const bool aSigned = types[isSet ? 0 : 1] == "s32", bSigned = types[isSet ? 1 : 2] == "s32";
  const i128 ta = partSelect(a, w.asel, aSigned);
  i128 tb = partSelect(b, w.bsel, bSigned);
  i128 tmp = 0;
  if (op == "vadd") tmp = ta + tb;
  else if (op == "vsub") tmp = ta - tb;
  else if (op == "vabsdiff") tmp = ta - tb < 0 ? tb - ta : ta - tb;
  else if (op == "vmin") tmp = ta < tb ? ta : tb;
  else if (op == "vmax") tmp = ta > tb ? ta : tb;
  else if (op == "vshl" || op == "vshr") {
    if (has(p, "clamp") && tb > 32) tb = 32;
    if (has(p, "wrap")) tb = tb & 0x1f;
    if (op == "vshl") {
      tmp = ta;
      for (i128 i = 0; i < tb; ++i) tmp *= 2;  // exact: no bits are lost
    } else {
      tmp = ta;
      for (i128 i = 0; i < tb; ++i) tmp = (tmp - (tmp < 0 && (tmp & 1) ? 1 : 0)) / 2;  // floor(tmp / 2)
    }
  } else if (isSet) {
    std::string c3;
    for (const char* k : {"eq", "ne", "lt", "le", "gt", "ge"})
      if (has(p, k)) c3 = k;
    tmp = cmpHolds(c3, ta, tb) ? 1 : 0;
  }
  // optSaturate: the destination's range, a byte or half one with a selector on d.
  if (has(p, "sat")) {
    const unsigned bits = w.dsel.empty() ? 32 : w.dsel[0] == 'b' ? 8 : 16;
    tmp = clampRange(tmp, bits, dSigned);
  }
  if (!w.dsel.empty()) {  // optMerge
    const unsigned k = static_cast<unsigned>(w.dsel[1] - '0');
    const unsigned bits = w.dsel[0] == 'b' ? 8 : 16, at = bits * k;
    const uint64_t fieldMask = ((uint64_t{1} << bits) - 1) << at;
    const uint64_t placed = (static_cast<uint64_t>(low32(tmp)) << at) & fieldMask;
    return static_cast<uint32_t>(placed | (c & ~fieldMask));
  }
  const i128 tc = field(c, 0, 32, dSigned);  // the third operand's sign is dtype's
  if (has(p, "add")) tmp = tmp + tc;
  if (has(p, "min")) tmp = tmp < tc ? tmp : tc;
  if (has(p, "max")) tmp = tmp > tc ? tmp : tc;
  return low32(tmp);
}

uint32_t referenceVmad(const Written& w, uint32_t a, uint32_t b, uint32_t c) {
  const auto& p = w.parts;
  const bool aSigned = p[2] == "s32", bSigned = p[3] == "s32";
  const i128 ta = partSelect(a, w.asel, aSigned), tb = partSelect(b, w.bsel, bSigned);
  const bool negProduct = w.negA != w.negB;
  const bool signedFinal = aSigned || bSigned || negProduct || w.negC;
  i128 tmp = ta * tb;
  i128 lsb = 0;
  uint32_t cv = c;
  if (has(p, "po")) {
    lsb = 1;
  } else if (negProduct) {
    tmp = -tmp - 1;  // ~tmp
    lsb = 1;
  } else if (w.negC) {
    cv = ~cv;
    lsb = 1;
  }
  const i128 c128 = field(cv, 0, 32, signedFinal);
  tmp = tmp + c128 + lsb;
  unsigned scale = has(p, "shr7") ? 7 : has(p, "shr15") ? 15 : 0;
  for (unsigned i = 0; i < scale; ++i) tmp = (tmp - ((tmp & 1) ? 1 : 0)) / 2;  // floor division
  // & 0xffffffffffffffff, read back as the final result's signedness
  i128 result = field(static_cast<uint64_t>(static_cast<u128>(tmp)), 0, 64, signedFinal);
  if (has(p, "sat")) result = clampRange(result, 32, signedFinal);
  return low32(result);
}

// SIMD: the elements of {b, a} that .hxy / .bxyzw name, element n-1 from the first digit.
uint32_t referenceSimd(const Written& w, uint32_t a, uint32_t b, uint32_t c) {
  const auto& p = w.parts;
  const std::string op = p[0].substr(0, p[0].size() - 1);
  const unsigned n = p[0].back() == '2' ? 2 : 4, bits = 32 / n;
  std::vector<std::string> types;
  for (const auto& x : p)
    if (x == "u32" || x == "s32") types.push_back(x);
  const bool isSet = op == "vset";
  const bool dSigned = !isSet && types[0] == "s32";
  const bool aSigned = types[isSet ? 0 : 1] == "s32", bSigned = types[isSet ? 1 : 2] == "s32";
  const uint64_t ab = (uint64_t{b} << 32) | a;
  const std::string aSel = w.asel.empty() ? (n == 2 ? "h10" : "b3210") : w.asel;
  const std::string bSel = w.bsel.empty() ? (n == 2 ? "h32" : "b7654") : w.bsel;
  const std::string mSel = w.dsel.empty() ? (n == 2 ? "h10" : "b3210") : w.dsel;
  std::vector<bool> mask(n, false);
  for (size_t k = 1; k < mSel.size(); ++k) mask[static_cast<size_t>(mSel[k] - '0')] = true;
  std::vector<i128> t(n);
  for (unsigned i = 0; i < n; ++i) {
    const unsigned srcA = static_cast<unsigned>(aSel[n - i] - '0'), srcB = static_cast<unsigned>(bSel[n - i] - '0');
    const i128 va = field(ab, bits * srcA, bits, aSigned), vb = field(ab, bits * srcB, bits, bSigned);
    if (op == "vadd") t[i] = va + vb;
    else if (op == "vsub") t[i] = va - vb;
    else if (op == "vavrg") {
      const i128 s = va + vb;
      t[i] = s >= 0 ? (s + 1) / 2 : (s - ((s & 1) ? 1 : 0)) / 2;  // (s + 1) >> 1, s >> 1
    } else if (op == "vabsdiff") t[i] = va > vb ? va - vb : vb - va;
    else if (op == "vmin") t[i] = va < vb ? va : vb;
    else if (op == "vmax") t[i] = va > vb ? va : vb;
    else {
      std::string c3;
      for (const char* k : {"eq", "ne", "lt", "le", "gt", "ge"})
        if (has(p, k)) c3 = k;
      t[i] = cmpHolds(c3, va, vb) ? 1 : 0;
    }
    if (has(p, "sat")) t[i] = clampRange(t[i], bits, dSigned);
  }
  if (has(p, "add")) {
    i128 d = c;
    for (unsigned i = 0; i < n; ++i)
      if (mask[i]) d += t[i];
    return low32(d);
  }
  uint64_t d = 0;
  for (unsigned i = 0; i < n; ++i) {
    const uint64_t e = mask[i] ? static_cast<uint64_t>(low32(t[i])) : (uint64_t{c} >> (bits * i));
    d |= (e & ((uint64_t{1} << bits) - 1)) << (bits * i);
  }
  return static_cast<uint32_t>(d);
}

uint32_t reference(const Written& w, uint32_t a, uint32_t b, uint32_t c) {
  const std::string& op = w.parts[0];
  if (op == "vmad") return referenceVmad(w, a, b, c);
  if (op.back() == '2' || op.back() == '4') return referenceSimd(w, a, b, c);
  return referenceScalar(w, a, b, c);
}

// The operand variants of one form: selectors, merges and negations as ptxas takes them.
std::vector<Written> variants(const std::string& spelling, uint64_t seed) {
  const auto p = split(spelling, '.');
  const std::string& op = p[0];
  Gen g(seed);
  std::vector<Written> out;
  const std::vector<std::string> scalarSel = {"", "b0", "b1", "b2", "b3", "h0", "h1"};
  if (op == "vmad") {
    const bool po = has(p, "po");
    // (-a, -b, -c): the product negated by exactly one of a, b, or c negated, not both.
    const std::vector<std::vector<bool>> negs = po ? std::vector<std::vector<bool>>{{0, 0, 0}, {1, 1, 0}}
                                                   : std::vector<std::vector<bool>>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
    for (const auto& ng : negs)
      for (int k = 0; k < 3; ++k) {
        Written w;
        w.spelling = spelling;
        w.parts = p;
        w.negA = ng[0], w.negB = ng[1], w.negC = ng[2];
        w.asel = scalarSel[g.below(7)], w.bsel = scalarSel[g.below(7)];
        out.push_back(w);
      }
    return out;
  }
  const bool simd = op.back() == '2' || op.back() == '4';
  if (simd) {
    const unsigned n = op.back() == '2' ? 2 : 4;
    const char prefix = n == 2 ? 'h' : 'b';
    std::vector<std::string> masks = {""};
    for (unsigned m = 1; m < (1u << n); ++m) {
      std::string s(1, prefix);
      for (int i = static_cast<int>(n) - 1; i >= 0; --i)
        if ((m >> i) & 1) s += static_cast<char>('0' + i);
      masks.push_back(s);
    }
    auto randomSel = [&]() {
      if (g.below(4) == 0) return std::string();
      std::string s(1, prefix);
      for (unsigned k = 0; k < n; ++k) s += static_cast<char>('0' + g.below(n == 2 ? 4 : 8));
      return s;
    };
    for (const auto& m : masks)
      for (int k = 0; k < 2; ++k) {
        Written w;
        w.spelling = spelling;
        w.parts = p;
        w.dsel = m, w.asel = randomSel(), w.bsel = randomSel();
        w.fourOperands = true;
        out.push_back(w);
      }
    return out;
  }
  const bool secondary = has(p, "add") || has(p, "min") || has(p, "max");
  const std::vector<std::string> dsels = secondary ? std::vector<std::string>{""} : scalarSel;
  for (const auto& d : dsels)
    for (int k = 0; k < (secondary ? 6 : 2); ++k) {
      Written w;
      w.spelling = spelling;
      w.parts = p;
      w.dsel = d;
      w.asel = scalarSel[g.below(7)], w.bsel = scalarSel[g.below(7)];
      w.fourOperands = secondary || !d.empty() || k == 1;  // with d's selector, c is needed; else c unused
      out.push_back(w);
    }
  return out;
}

std::string text(const Written& w) {
  auto sel = [](const std::string& s) { return s.empty() ? std::string() : "." + s; };
  std::string t = w.spelling + " %r4" + sel(w.dsel) + ", " + (w.negA ? "-" : "") + "%r1" + sel(w.asel) + ", " +
                  (w.negB ? "-" : "") + "%r2" + sel(w.bsel);
  if (w.fourOperands || w.spelling.rfind("vmad", 0) == 0) t += std::string(", ") + (w.negC ? "-" : "") + "%r3";
  return t + ";";
}

uint32_t operand(Gen& g, bool shiftAmount) {
  if (shiftAmount && g.below(2)) {
    static const uint32_t kNear[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 255, 0x10000};
    const uint32_t base = kNear[g.below(sizeof kNear / sizeof kNear[0])];
    return base | (g.below(4) == 0 ? static_cast<uint32_t>(g.u64()) & 0xffff0000u : 0u);
  }
  switch (g.below(4)) {
    case 0: return static_cast<uint32_t>(g.intBits(32));
    case 1: {
      static const uint32_t kEdges[] = {0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000u, 0xffffffffu,
                                        0x80808080u, 0x7f7f7f7fu, 0xff00ff00u, 0x00ff00ffu, 0x80007fffu, 0x7fff8000u};
      return kEdges[g.below(sizeof kEdges / sizeof kEdges[0])];
    }
    default: return static_cast<uint32_t>(g.u64());
  }
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(v));
  return buf;
}

class VideoOracle : public testing::TestWithParam<std::string> {};

TEST_P(VideoOracle, MatchesReference) {
  const std::string& mnemonic = GetParam();
  std::vector<Written> all;
  for (const std::string& form : videoCases(mnemonic))
    for (const Written& w : variants(form, std::hash<std::string>{}(form))) all.push_back(w);
  ASSERT_FALSE(all.empty());
  const uint64_t need = casesPerOp();
  const uint64_t perVariant = std::max<uint64_t>(kLanes, (need + all.size() - 1) / all.size());
  const bool shift = mnemonic == "vshl" || mnemonic == "vshr";
  Gen gen(std::hash<std::string>{}(mnemonic));
  uint64_t comparisons = 0, mismatches = 0;
  std::string examples;
  for (const Written& w : all) {
    OneInstr k(text(w));
    uint64_t* ra = k.lanes("%r1");
    uint64_t* rb = k.lanes("%r2");
    uint64_t* rc = k.lanes("%r3");
    uint64_t* rd = k.lanes("%r4");
    for (uint64_t base = 0; base < perVariant; base += kLanes) {
      uint32_t in[kLanes][3];
      for (uint32_t l = 0; l < kLanes; ++l) {
        in[l][0] = operand(gen, false);
        in[l][1] = operand(gen, shift);
        in[l][2] = operand(gen, false);
        ra[l] = in[l][0], rb[l] = in[l][1], rc[l] = in[l][2];
        rd[l] = 0x5a5a5a5a;
      }
      k.run();
      for (uint32_t l = 0; l < kLanes; ++l) {
        const uint32_t want = reference(w, in[l][0], in[l][1], in[l][2]);
        ++comparisons;
        if (static_cast<uint32_t>(rd[l]) != want && ++mismatches <= 8)
          examples += "  " + text(w) + " a=" + hex(in[l][0]) + " b=" + hex(in[l][1]) + " c=" + hex(in[l][2]) + " -> " +
                      hex(want) + " / " + hex(rd[l]) + "\n";
      }
    }
  }
  std::printf("[oracle] %s: %zu forms with selectors, %llu comparisons, %llu mismatches\n", mnemonic.c_str(),
              all.size(), static_cast<unsigned long long>(comparisons), static_cast<unsigned long long>(mismatches));
  EXPECT_GE(comparisons, need);
  EXPECT_EQ(mismatches, 0u) << mnemonic << " mismatches (a, b, c -> expected / got):\n" << examples;
}

INSTANTIATE_TEST_SUITE_P(Numerics, VideoOracle, testing::ValuesIn(videoMnemonics()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace qgpu::oracle
