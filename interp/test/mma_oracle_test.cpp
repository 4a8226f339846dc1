// mma.sync oracle: every supported mma form runs through the real decoded handler on a
// 32-lane warp with random fragments; the reference scatters each lane's registers into
// the A, B, C matrices with the fragment layouts of the PTX ISA ("Matrix Fragments for
// mma.m16n8k8/k16/k32, m8n8k16"), written out again here, and computes D itself:
// - s8/u8 → s32 (exact): C + sum of the products in int64, then wrapped to 32 bits, or
//   clamped to the s32 range with .satfinite. C is drawn near the s32 limits often, so
//   both wrap-around and saturation occur.
// - f16/bf16 → f32 (the interpreter's model, docs/semantics.md): starting from C, one f32
//   fma.rn per k in increasing k. Each step is the numeric oracle's own fma.rn.f32
//   reference (LLVM APFloat plus the PTX NaN rule); the f16 inputs are widened to f32 by
//   APFloat here, bf16 by its definition (the top half of an f32).
// >= 10^6 multiply-adds per form (QGPU_ORACLE_N).
#include <gtest/gtest.h>

#include <cstdio>

#include <fmt/format.h>
#include <llvm/ADT/APFloat.h>
#include <llvm/ADT/APInt.h>

#include "oracle/harness.h"
#include "oracle/reference.h"
#include "qgpu/interp/oracle_matrix.h"

namespace qgpu::oracle {
namespace {

struct MmaForm {
  std::string spelling;  // without operands
  uint32_t m, n, k;
  bool integer, bf16, aSigned, bSigned, satfinite;
  uint32_t aRegs, bRegs, cRegs;
};

// The form of a spelling of oracle::mmaCases() (the one list `qgpu coverage` reads too).
MmaForm parseForm(const std::string& spelling) {
  MmaForm f{};
  f.spelling = spelling;
  auto has = [&](const char* part) { return spelling.find(part) != std::string::npos; };
  const std::string shape = has(".m8n8k16.") ? "m8n8k16" : has(".m16n8k8.") ? "m16n8k8" : has(".m16n8k16.") ? "m16n8k16" : "m16n8k32";
  f.integer = has(".s32.");
  f.bf16 = has(".bf16.");
  f.satfinite = has(".satfinite.");
  // The last four parts: dtype, atype, btype, ctype.
  std::vector<std::string> parts;
  for (size_t b = 0, e; b <= spelling.size(); b = e + 1) {
    e = spelling.find('.', b);
    if (e == std::string::npos) e = spelling.size();
    parts.push_back(spelling.substr(b, e - b));
  }
  const size_t n = parts.size();
  f.aSigned = parts[n - 3] == "s8";
  f.bSigned = parts[n - 2] == "s8";
  f.m = shape == "m8n8k16" ? 8 : 16;
  f.n = 8;
  f.k = shape == "m16n8k8" ? 8 : shape == "m16n8k32" ? 32 : 16;
  if (f.integer) {
    f.aRegs = f.k == 32 ? 4 : f.m == 16 ? 2 : 1;
    f.bRegs = f.k == 32 ? 2 : 1;
  } else {
    f.aRegs = f.k == 16 ? 4 : 2;
    f.bRegs = f.k == 16 ? 2 : 1;
  }
  f.cRegs = f.m == 8 ? 2 : 4;
  return f;
}

std::vector<MmaForm> mmaForms() {
  std::vector<MmaForm> forms;
  for (const std::string& s : mmaCases()) forms.push_back(parseForm(s));
  return forms;
}

// (row, column) of element i of lane l's fragment (g = l / 4, t = l % 4), as the ISA's
// tables give them, one formula per operand and element width.
struct Pos {
  uint32_t r, c;
};
Pos posA(const MmaForm& f, uint32_t l, uint32_t i) {
  const uint32_t g = l / 4, t = l % 4;
  if (!f.integer) return {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
  if (f.k == 32) return {g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)};
  if (f.m == 16) return {g + 8 * (i >> 2), 4 * t + (i & 3)};
  return {g, 4 * t + i};
}
Pos posB(const MmaForm& f, uint32_t l, uint32_t i) {
  const uint32_t g = l / 4, t = l % 4;
  if (!f.integer) return {2 * t + (i & 1) + 8 * (i >> 1), g};
  if (f.k == 32) return {4 * t + (i & 3) + 16 * (i >> 2), g};
  return {4 * t + i, g};
}
Pos posC(const MmaForm& f, uint32_t l, uint32_t i) {
  const uint32_t g = l / 4, t = l % 4;
  if (f.m == 8) return {g, 2 * t + i};
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}

uint32_t f32OfHalf(uint32_t h, bool bf16) {
  if (bf16) return h << 16;
  llvm::APFloat x(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h));
  bool lost = false;
  x.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return static_cast<uint32_t>(x.bitcastToAPInt().getZExtValue());
}

// A 16-bit input: special values often, else a value of moderate magnitude (so that sums
// cancel and round), of either format.
uint32_t halfInput(Gen& g, bool bf16) {
  if (g.below(4) == 0) return static_cast<uint32_t>(g.floatBits(bf16 ? kBF16 : 16));
  const uint32_t sign = g.below(2);
  if (bf16) return (sign << 15) | ((127 - 6 + g.below(12)) << 7) | g.below(128);
  return (sign << 15) | ((15 - 6 + g.below(12)) << 10) | g.below(1024);
}
uint32_t f32Input(Gen& g) {
  if (g.below(4) == 0) return static_cast<uint32_t>(g.floatBits(32));
  return (g.below(2) << 31) | ((127 - 4 + g.below(10)) << 23) | g.below(1u << 23);
}
uint32_t byteInput(Gen& g) {
  static const uint32_t kEdge[] = {0x00, 0x01, 0x7f, 0x80, 0x81, 0xff};
  return g.below(3) == 0 ? kEdge[g.below(6)] : g.below(256);
}
uint32_t s32Input(Gen& g) {
  switch (g.below(4)) {
    case 0: return 0x7fffffffu - g.below(1u << 22);  // near INT32_MAX
    case 1: return 0x80000000u + g.below(1u << 22);  // near INT32_MIN
    default: return static_cast<uint32_t>(g.intBits(32));
  }
}

std::string testName(const testing::TestParamInfo<MmaForm>& info) {
  std::string s;
  for (char ch : info.param.spelling) s += ch == '.' ? '_' : ch;
  return s;
}

class MmaOracle : public testing::TestWithParam<MmaForm> {};

TEST_P(MmaOracle, MatchesTheFragmentLayoutsAndTheAccumulationModel) {
  const MmaForm f = GetParam();
  auto list = [](uint32_t first, uint32_t n) {
    std::string s;
    for (uint32_t i = 0; i < n; ++i) s += fmt::format("{}%q{}", i ? ", " : "", first + i);
    return "{" + s + "}";
  };
  // D: %q0.., A: %q4.., B: %q8.., C: %q10..
  OneInstr k(".reg .b32 %q<16>;\n  " + f.spelling + " " + list(0, f.cRegs) + ", " + list(4, f.aRegs) + ", " +
             list(8, f.bRegs) + ", " + list(10, f.cRegs) + ";");
  uint64_t* D[4];
  uint64_t* A[4];
  uint64_t* B[2];
  uint64_t* C[4];
  for (uint32_t i = 0; i < 4; ++i) {
    D[i] = k.lanes(fmt::format("%q{}", i));
    A[i] = k.lanes(fmt::format("%q{}", 4 + i));
    C[i] = k.lanes(fmt::format("%q{}", 10 + i));
  }
  for (uint32_t i = 0; i < 2; ++i) B[i] = k.lanes(fmt::format("%q{}", 8 + i));
  const FloatCase fma = parseFloatCase("fma.rn.f32");
  Gen gen(std::hash<std::string>{}(f.spelling));
  const uint64_t n = casesPerOp();
  const uint32_t perReg = f.integer ? 4 : 2, elemBits = f.integer ? 8 : 16;
  uint64_t products = 0, comparisons = 0, mismatches = 0;
  std::string examples;
  while (products < n) {
    uint32_t a[16][32] = {}, b[32][8] = {}, c[16][8] = {};
    for (uint32_t l = 0; l < kLanes; ++l) {
      // One operand's registers of lane l: random elements packed perReg to a register, each
      // also placed in the plain matrix at its fragment position.
      const auto fill = [&](uint32_t regs, uint64_t** lanes, auto position, auto& matrix) {
        for (uint32_t r = 0; r < regs; ++r) {
          uint32_t word = 0;
          for (uint32_t e = 0; e < perReg; ++e) {
            const uint32_t v = f.integer ? byteInput(gen) : halfInput(gen, f.bf16);
            word |= v << (elemBits * e);
            const Pos p = position(f, l, r * perReg + e);
            matrix[p.r][p.c] = v;
          }
          lanes[r][l] = word;
        }
      };
      fill(f.aRegs, A, posA, a);
      fill(f.bRegs, B, posB, b);
      for (uint32_t r = 0; r < f.cRegs; ++r) {
        const uint32_t v = f.integer ? s32Input(gen) : f32Input(gen);
        const Pos p = posC(f, l, r);
        c[p.r][p.c] = v;
        C[r][l] = v;
        D[r][l] = 0xdeadbeef;
      }
    }
    k.run();
    products += uint64_t{f.m} * f.n * f.k;
    for (uint32_t l = 0; l < kLanes; ++l)
      for (uint32_t r = 0; r < f.cRegs; ++r) {
        const Pos p = posC(f, l, r);
        uint32_t want;
        if (f.integer) {
          int64_t acc = static_cast<int32_t>(c[p.r][p.c]);
          for (uint32_t kk = 0; kk < f.k; ++kk) {
            const int64_t x = f.aSigned ? static_cast<int8_t>(a[p.r][kk]) : int64_t{a[p.r][kk]};
            const int64_t y = f.bSigned ? static_cast<int8_t>(b[kk][p.c]) : int64_t{b[kk][p.c]};
            acc += x * y;
          }
          if (f.satfinite) acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
          want = static_cast<uint32_t>(acc & 0xffffffff);
        } else {
          uint64_t acc = c[p.r][p.c];
          for (uint32_t kk = 0; kk < f.k; ++kk)
            acc = expectFloat(fma, f32OfHalf(a[p.r][kk], f.bf16), f32OfHalf(b[kk][p.c], f.bf16), acc);
          want = static_cast<uint32_t>(acc);
        }
        ++comparisons;
        if (static_cast<uint32_t>(D[r][l]) == want && (D[r][l] >> 32) == 0) continue;
        if (++mismatches <= 8)
          examples += fmt::format("  lane {} d{} = D[{}][{}]: want {:#010x} got {:#x}\n", l, r, p.r, p.c, want, D[r][l]);
      }
  }
  std::printf("[oracle] %s: %llu multiply-adds, %llu results compared, %llu mismatches\n", f.spelling.c_str(),
              static_cast<unsigned long long>(products), static_cast<unsigned long long>(comparisons),
              static_cast<unsigned long long>(mismatches));
  EXPECT_GE(products, n);
  EXPECT_EQ(mismatches, 0u) << f.spelling << ":\n" << examples;
}

INSTANTIATE_TEST_SUITE_P(Forms, MmaOracle, testing::ValuesIn(mmaForms()), testName);

}  // namespace
}  // namespace qgpu::oracle
