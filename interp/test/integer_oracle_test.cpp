// Integer oracle (issue #4): every form in qgpu::oracle::integerCases() runs
// through the real decoded handler on 10^6 inputs (edge patterns, small and
// large magnitudes, shift/field positions around the width) and is compared
// with straightforward 128-bit reference arithmetic written from the PTX ISA
// definitions (and the corner-case decisions of docs/semantics.md: x/0 and
// x%0 give all ones, INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <sstream>

#include "oracle/harness.h"
#include "qgpu/interp/oracle_matrix.h"

namespace qgpu::oracle {
namespace {

__extension__ typedef __int128 s128;
__extension__ typedef unsigned __int128 u128;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, sep)) out.push_back(t);
  return out;
}

u128 mask(int bits) { return bits >= 128 ? ~u128{0} : (u128{1} << bits) - 1; }
// Value of an n-bit pattern as a mathematical integer.
s128 val(uint64_t x, int n, bool sgn) {
  s128 v = static_cast<s128>(static_cast<u128>(x) & mask(n));
  if (sgn && ((v >> (n - 1)) & 1)) v -= s128{1} << n;
  return v;
}
uint64_t wrap(s128 v, int n) { return static_cast<uint64_t>(static_cast<u128>(v) & mask(n)); }
uint64_t bit(uint64_t x, int i) { return (x >> i) & 1; }
s128 clamp(s128 v, s128 lo, s128 hi) { return v < lo ? lo : v > hi ? hi : v; }

std::string reg(int bits, int i) {
  return (bits == 16 ? "%h" : bits == 32 ? "%r" : "%rd") + std::to_string(i);
}

struct IntCase {
  std::string spelling, op;
  std::vector<std::string> mods;
  int n = 32;
  bool sgn = false;
  bool chain = false;  // add.cc+addc.cc+addc (3 limbs)
  bool has(const std::string& m) const { return std::find(mods.begin(), mods.end(), m) != mods.end(); }
};

IntCase parse(const std::string& s) {
  IntCase c;
  c.spelling = s;
  c.chain = s.find('+') != std::string::npos;
  auto first = split(split(s, '+')[0], '.');
  c.op = first[0];
  // The type is the last token that names one (prmt.b32.f4e has its mode last).
  size_t ti = first.size() - 1;
  auto isType = [](const std::string& x) {
    if (x.size() < 2 || (x[0] != 'u' && x[0] != 's' && x[0] != 'b')) return false;
    for (size_t i = 1; i < x.size(); ++i)
      if (!std::isdigit(static_cast<unsigned char>(x[i]))) return false;
    return true;
  };
  while (ti > 0 && !isType(first[ti])) --ti;
  std::string t = first[ti];
  for (size_t i = 1; i < first.size(); ++i)
    if (i != ti) c.mods.push_back(first[i]);
  c.n = std::stoi(t.substr(1));
  c.sgn = t[0] == 's';
  return c;
}

struct Plan {
  std::string body;
  std::vector<std::pair<std::string, int>> in;  // register, bit width
  std::vector<std::pair<std::string, int>> out;
};

Plan plan(const IntCase& c, uint32_t lut) {
  const int n = c.n;
  Plan p;
  auto src = [&](int bits, int i) { p.in.push_back({reg(bits, i), bits}); return reg(bits, i); };
  auto dst = [&](int bits, int i) { p.out.push_back({reg(bits, i), bits}); return reg(bits, i); };
  const std::string& op = c.op;
  std::string head = split(c.spelling, '+')[0];
  if (c.spelling.find('+') != std::string::npos) {  // 3-limb carry chain
    auto parts = split(c.spelling, '+');
    std::string d1 = dst(n, 7), d2 = dst(n, 8), d3 = dst(n, 9);
    std::string a1 = src(n, 1), a2 = src(n, 2), a3 = src(n, 3), b1 = src(n, 4), b2 = src(n, 5), b3 = src(n, 6);
    p.body = parts[0] + " " + d1 + ", " + a1 + ", " + b1 + ";\n" + parts[1] + " " + d2 + ", " + a2 + ", " + b2 +
             ";\n" + parts[2] + " " + d3 + ", " + a3 + ", " + b3 + ";";
    return p;
  }
  std::string d, a, b, x, y;
  if (op == "setp") {
    p.out.push_back({"%p1", 1});
    d = "%p1";
    a = src(n, 1);
    b = src(n, 2);
  }
  else if (op == "mul" && c.has("wide")) { d = dst(2 * n, 4); a = src(n, 1); b = src(n, 2); }
  else if (op == "mad" && c.has("wide")) { d = dst(2 * n, 4); a = src(n, 1); b = src(n, 2); x = src(2 * n, 3); }
  else if (op == "not" || op == "cnot") { d = dst(n, 4); a = src(n, 1); }
  else if (op == "bfe") { d = dst(n, 4); a = src(n, 1); b = src(32, 2); x = src(32, 3); }
  else if (op == "bfind" || op == "popc" || op == "clz") { d = dst(32, 4); a = src(n, 1); }
  else if (op == "bfi") { d = dst(n, 4); a = src(n, 1); b = src(n, 2); x = src(32, 5); y = src(32, 6); }
  else if (op == "shl" || op == "shr") { d = dst(n, 4); a = src(n, 1); b = src(32, 5); }
  else if (op == "abs" || op == "neg" || op == "brev") { d = dst(n, 4); a = src(n, 1); }
  else if (op == "mad" || op == "mad24" || op == "sad" || op == "prmt" || op == "shf" || op == "lop3" ||
           op == "dp4a" || op == "dp2a") { d = dst(n, 4); a = src(n, 1); b = src(n, 2); x = src(n, 3); }
  else { d = dst(n, 4); a = src(n, 1); b = src(n, 2); }
  p.body = head + " " + d + ", " + a;
  for (const std::string& r : {b, x, y})
    if (!r.empty()) p.body += ", " + r;
  if (op == "lop3") p.body += ", " + std::to_string(lut);
  p.body += ";";
  return p;
}

// The reference: inputs in[] (masked to their widths) -> outputs.
std::array<uint64_t, 3> reference(const IntCase& c, const uint64_t* in, uint32_t lut) {
  const int n = c.n;
  const bool s = c.sgn;
  const std::string& op = c.op;
  const s128 A = val(in[0], n, s), B = val(in[1], n, s), C = val(in[2], n, s);
  const s128 smin = -(s128{1} << (n - 1)), smax = (s128{1} << (n - 1)) - 1;
  if (c.chain) {
    u128 x = 0, y = 0;  // 3n <= 192 bits: work limb by limb with explicit carries
    uint64_t outs[3];
    bool sub = op == "sub";
    u128 carry = sub ? 1 : 0;
    for (int i = 0; i < 3; ++i) {
      x = static_cast<u128>(in[i]) & mask(n);
      y = static_cast<u128>(in[3 + i]) & mask(n);
      if (sub) y = ~y & mask(n);
      u128 t = x + y + carry;
      outs[i] = static_cast<uint64_t>(t & mask(n));
      carry = t >> n;
    }
    return {outs[0], outs[1], outs[2]};
  }
  if (op == "setp") {
    const std::string& k = c.mods.at(0);
    s128 ua = static_cast<s128>(static_cast<u128>(in[0]) & mask(n)), ub = static_cast<s128>(static_cast<u128>(in[1]) & mask(n));
    bool r = k == "eq" ? A == B : k == "ne" ? A != B : k == "lt" ? A < B : k == "le" ? A <= B : k == "gt" ? A > B
           : k == "ge" ? A >= B : k == "lo" ? ua < ub : k == "ls" ? ua <= ub : k == "hi" ? ua > ub : ua >= ub;
    return {r ? 1u : 0u};
  }
  if (op == "and") return {in[0] & in[1]};
  if (op == "or") return {in[0] | in[1]};
  if (op == "xor") return {in[0] ^ in[1]};
  if (op == "not") return {static_cast<uint64_t>(~in[0] & mask(n))};
  if (op == "cnot") return {in[0] == 0 ? 1u : 0u};
  if (op == "mad" && c.has("wide")) {
    s128 P = A * B;  // 2n <= 64 bits
    return {wrap(P + val(in[2], 2 * n, s), 2 * n)};
  }
  if (op == "add") return {wrap(c.has("sat") ? clamp(A + B, smin, smax) : A + B, n)};
  if (op == "sub") return {wrap(c.has("sat") ? clamp(A - B, smin, smax) : A - B, n)};
  if (op == "mul" || op == "mad") {
    // Full product; for u64 it can exceed s128, so use u128 for the unsigned case.
    u128 P = s ? static_cast<u128>(A * B) : static_cast<u128>(A) * static_cast<u128>(B);
    if (c.has("wide")) return {static_cast<uint64_t>(P & mask(2 * n))};
    u128 part = c.has("hi") ? (s ? static_cast<u128>(static_cast<s128>(P) >> n) : P >> n) : P;
    if (op == "mul") return {static_cast<uint64_t>(part & mask(n))};
    if (c.has("sat")) return {wrap(clamp(val(static_cast<uint64_t>(part & mask(n)), n, true) + C, smin, smax), n)};
    return {static_cast<uint64_t>((part + static_cast<u128>(C)) & mask(n))};
  }
  if (op == "div") {
    if (B == 0) return {static_cast<uint64_t>(mask(n))};
    if (s && A == smin && B == -1) return {wrap(smin, n)};
    return {wrap(A / B, n)};
  }
  if (op == "rem") {
    if (B == 0) return {static_cast<uint64_t>(mask(n))};
    if (s && A == smin && B == -1) return {0};
    return {wrap(A % B, n)};
  }
  if (op == "min") return {wrap(A < B ? A : B, n)};
  if (op == "max") return {wrap(A > B ? A : B, n)};
  if (op == "sad") return {wrap(C + (A > B ? A - B : B - A), n)};
  if (op == "abs") return {wrap(A < 0 ? -A : A, n)};
  if (op == "neg") return {wrap(-A, n)};
  if (op == "mul24" || op == "mad24") {
    s128 P = val(in[0], 24, s) * val(in[1], 24, s);
    s128 part = c.has("hi") ? (P >> 16) : P;
    return {wrap(op == "mad24" ? part + C : part, 32)};
  }
  if (op == "bfe") {
    uint64_t pos = in[1] & 0xff, len = in[2] & 0xff;
    int msb = n - 1;
    uint64_t avail = pos > static_cast<uint64_t>(msb) ? 0 : std::min<uint64_t>(len, n - pos);
    uint64_t field = avail ? static_cast<uint64_t>((static_cast<u128>(in[0]) >> pos) & mask(static_cast<int>(avail))) : 0;
    uint64_t sbit = (s && len) ? bit(in[0], static_cast<int>(std::min<uint64_t>(pos + len - 1, msb))) : 0;
    u128 r = field | (sbit ? (~mask(static_cast<int>(avail))) : 0);
    return {static_cast<uint64_t>(r & mask(n))};
  }
  if (op == "bfind") {
    uint64_t x = static_cast<uint64_t>(in[0] & mask(n));
    if (s && A < 0) x = static_cast<uint64_t>(~x & mask(n));
    if (x == 0) return {0xffffffffu};
    int pos = 63 - __builtin_clzll(x);
    return {static_cast<uint64_t>(c.has("shiftamt") ? n - 1 - pos : pos)};
  }
  if (op == "bfi") {
    uint64_t pos = in[2] & 0xff, len = in[3] & 0xff;
    uint64_t avail = pos > static_cast<uint64_t>(n - 1) ? 0 : std::min<uint64_t>(len, n - pos);
    u128 m = avail ? (mask(static_cast<int>(avail)) << pos) : 0;
    u128 r = ((static_cast<u128>(in[1]) & ~m) | ((static_cast<u128>(in[0]) << (avail ? pos : 0)) & m)) & mask(n);
    return {static_cast<uint64_t>(r)};
  }
  if (op == "shl") {
    uint64_t k = in[1];
    return {k >= static_cast<uint64_t>(n) ? 0 : static_cast<uint64_t>((static_cast<u128>(in[0]) << k) & mask(n))};
  }
  if (op == "shr") {
    uint64_t k = in[1];
    if (s) return {wrap(A >> std::min<uint64_t>(k, n - 1), n)};
    return {k >= static_cast<uint64_t>(n) ? 0 : static_cast<uint64_t>((static_cast<u128>(in[0]) & mask(n)) >> k)};
  }
  if (op == "popc") return {static_cast<uint64_t>(__builtin_popcountll(in[0]))};
  if (op == "clz") {
    uint64_t x = in[0];
    return {static_cast<uint64_t>(x == 0 ? n : __builtin_clzll(x) - (64 - n))};
  }
  if (op == "brev") {
    uint64_t r = 0;
    for (int i = 0; i < n; ++i) r |= bit(in[0], i) << (n - 1 - i);
    return {r};
  }
  if (op == "prmt") {
    uint64_t src = (in[1] << 32) | in[0];
    auto byte = [&](uint64_t i) { return (src >> (8 * (i & 7))) & 0xff; };
    uint64_t sel = in[2], r = 0;
    std::string m = c.mods.empty() ? "" : c.mods.back();
    uint64_t cs = sel & 3;
    for (uint64_t i = 0; i < 4; ++i) {
      uint64_t v;
      if (m.empty()) {
        uint64_t nib = (sel >> (4 * i)) & 0xf;
        v = byte(nib & 7);
        if (nib & 8) v = (v >> 7) ? 0xff : 0;  // replicate the sign bit
      } else if (m == "f4e") v = byte(cs + i);
      else if (m == "b4e") v = byte(cs - i);
      else if (m == "rc8") v = byte(cs);
      else if (m == "ecl") v = byte(std::max(cs, i));
      else if (m == "ecr") v = byte(std::min(cs, i));
      else v = byte((cs & 1) * 2 + (i & 1));  // rc16
      r |= v << (8 * i);
    }
    return {r};
  }
  if (op == "shf") {
    uint64_t k = in[2] & 0xffffffff;
    k = c.has("clamp") ? std::min<uint64_t>(k, 32) : (k & 31);
    u128 both = (static_cast<u128>(in[1]) << 32) | in[0];
    if (c.has("l")) return {static_cast<uint64_t>(((both << k) >> 32) & 0xffffffff)};
    return {static_cast<uint64_t>((both >> k) & 0xffffffff)};
  }
  if (op == "lop3") {
    uint64_t r = 0;
    for (int k = 0; k < 8; ++k) {
      if (!((lut >> k) & 1)) continue;
      uint64_t ta = (k & 4) ? in[0] : ~in[0], tb = (k & 2) ? in[1] : ~in[1], tc = (k & 1) ? in[2] : ~in[2];
      r |= ta & tb & tc;
    }
    return {r & 0xffffffff};
  }
  if (op == "dp4a" || op == "dp2a") {
    bool as = c.mods.size() >= 1 && c.mods[c.mods.size() - 1][0] == 's';
    if (op == "dp2a") as = c.mods.size() >= 2 && c.mods[1][0] == 's';
    else as = c.mods.size() >= 1 && c.mods[0][0] == 's';
    bool bs = s;
    s128 acc = val(in[2], 32, s || as);
    if (op == "dp4a") {
      for (int i = 0; i < 4; ++i) acc += val(in[0] >> (8 * i), 8, as) * val(in[1] >> (8 * i), 8, bs);
    } else {
      int k = c.has("hi") ? 2 : 0;
      for (int i = 0; i < 2; ++i) acc += val(in[0] >> (16 * i), 16, as) * val(in[1] >> (8 * (k + i)), 8, bs);
    }
    return {wrap(acc, 32)};
  }
  if (op == "bmsk" || op == "szext") {
    // Written from the ISA's prose, not its pseudocode: a field [pos, pos + width) cut at
    // bit 32, positions and widths wrapping modulo 32 (.wrap) or saturating at 32 (.clamp).
    const bool clampMode = c.has("clamp");
    auto amount = [&](uint64_t v) { return clampMode ? std::min<uint64_t>(v, 32) : v % 32; };
    if (op == "bmsk") {
      const uint64_t pos = amount(in[0]), width = amount(in[1]);
      uint64_t r = 0;
      for (uint64_t i = pos; i < pos + width && i < 32; ++i) r |= uint64_t{1} << i;
      return {r};
    }
    const uint64_t width = amount(in[1]);  // szext: the low `width` bits of a, extended
    if (width == 0) return {0};
    return {wrap(val(in[0], static_cast<int>(width), s), 32)};
  }
  throw std::runtime_error("no integer reference for " + c.spelling);
}

std::string testName(const testing::TestParamInfo<std::string>& info) {
  std::string s;
  for (char ch : info.param) s += (ch == '.' || ch == '+') ? '_' : ch;
  return s;
}

class IntegerOracle : public testing::TestWithParam<std::string> {};

TEST_P(IntegerOracle, Matches128BitReference) {
  const IntCase c = parse(GetParam());
  const uint64_t n = casesPerOp();
  const int luts = c.op == "lop3" ? 256 : 1;
  Gen gen(std::hash<std::string>{}(c.spelling));
  uint64_t comparisons = 0, mismatches = 0;
  std::string examples;
  for (int lut = 0; lut < luts; ++lut) {
    Plan p = plan(c, static_cast<uint32_t>(lut));
    OneInstr k(p.body);
    std::vector<uint64_t*> ins, outs;
    for (auto& [r, w] : p.in) ins.push_back(k.lanes(r));
    for (auto& [r, w] : p.out) outs.push_back(k.lanes(r));
    const uint64_t per = (n + luts - 1) / luts;
    for (uint64_t base = 0; base < per; base += kLanes) {
      uint64_t vals[kLanes][8] = {};
      for (uint32_t l = 0; l < kLanes; ++l)
        for (size_t i = 0; i < p.in.size(); ++i) {
          int w = p.in[i].second;
          bool amount = w == 32 && w != c.n && c.op != "mad";  // shift amount / field position / length
          if (c.op == "bmsk" || (c.op == "szext" && i == 1)) amount = true;  // bit position / width
          uint64_t v = amount && gen.below(4) != 0 ? gen.below(80) : gen.intBits(w);
          vals[l][i] = v & static_cast<uint64_t>(mask(w));
          ins[i][l] = vals[l][i];
        }
      k.run();
      for (uint32_t l = 0; l < kLanes; ++l) {
        auto want = reference(c, vals[l], static_cast<uint32_t>(lut));
        for (size_t o = 0; o < outs.size(); ++o) {
          ++comparisons;
          if (outs[o][l] == want[o]) continue;
          if (++mismatches <= 8) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "  lut %d in %#llx %#llx %#llx %#llx -> %#llx / %#llx\n", lut,
                          static_cast<unsigned long long>(vals[l][0]), static_cast<unsigned long long>(vals[l][1]),
                          static_cast<unsigned long long>(vals[l][2]), static_cast<unsigned long long>(vals[l][3]),
                          static_cast<unsigned long long>(want[o]), static_cast<unsigned long long>(outs[o][l]));
            examples += buf;
          }
        }
      }
    }
  }
  std::printf("[oracle] %s: %llu comparisons, %llu mismatches\n", c.spelling.c_str(),
              static_cast<unsigned long long>(comparisons), static_cast<unsigned long long>(mismatches));
  EXPECT_GE(comparisons, n);
  EXPECT_EQ(mismatches, 0u) << c.spelling << ":\n" << examples;
}

INSTANTIATE_TEST_SUITE_P(Numerics, IntegerOracle, testing::ValuesIn(integerCases()), testName);

}  // namespace
}  // namespace qgpu::oracle
