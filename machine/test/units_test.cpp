// The f32 division and square-root micro-code against the oracle's correctly rounded
// numerics (interp/src/numerics.h), exhaustively over special values and on many random
// operands in every rounding mode, subnormal results and exact ties included.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "numerics.h"  // the oracle's reference arithmetic (interp/src)
#include "qgpu/interp/error.h"
#include "qgpu/machine/units.h"

namespace qgpu::machine {
namespace {

uint32_t runFDiv(uint32_t a, uint32_t b, uint8_t fl) {
  MInstr in;
  in.ty = 3;
  in.fl = fl;
  in.op = MOp::FDivInit;
  uint64_t t = computeLane(in, a, b, 0);
  in.op = MOp::FDivStep;
  for (int i = 0; i < 7; ++i) t = computeLane(in, t, b, 0);
  in.op = MOp::FDivFin;
  in.ty = 2;
  return static_cast<uint32_t>(computeLane(in, t, a, b));
}

uint32_t runFSqrt(uint32_t a, uint8_t fl) {
  MInstr in;
  in.ty = 3;
  in.fl = fl;
  in.op = MOp::FSqrtStep;
  uint64_t t = 0;
  for (int i = 0; i < 7; ++i) t = computeLane(in, t, a, 0);
  in.op = MOp::FSqrtFin;
  in.ty = 2;
  return static_cast<uint32_t>(computeLane(in, t, a, 0));
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

const Rounding kModes[] = {Rounding::Nearest, Rounding::Zero, Rounding::Down, Rounding::Up};

uint32_t randomOperand(std::mt19937_64& rng) {
  static const uint32_t kEdge[] = {0, 0x80000000, 1, 2, 3, 5, 0x007fffff, 0x00800000, 0x3f800000, 0x40000000,
                                   0x40400000, 0x7f7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x4b000001};
  switch (rng() % 4) {
    case 0: return kEdge[rng() % std::size(kEdge)] ^ (rng() % 2 ? 0x80000000u : 0);
    case 1: return static_cast<uint32_t>(rng() % 0x01000000) ^ (rng() % 2 ? 0x80000000u : 0);  // tiny / subnormal
    default: return static_cast<uint32_t>(rng());
  }
}

TEST(MachineUnits, FDivMatchesCorrectRounding) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 200000; ++i) {
    uint32_t a = randomOperand(rng), b = randomOperand(rng);
    for (uint32_t m = 0; m < 4; ++m) {
      float ref = fp::canonical(fp::div(std::bit_cast<float>(a), std::bit_cast<float>(b), kModes[m]));
      ASSERT_EQ(runFDiv(a, b, static_cast<uint8_t>(m << 2)), bits(ref))
          << std::hex << a << " / " << b << " mode " << m;
    }
  }
  // Exact ties at subnormal precision: k * 2^-149 / 2 for odd k.
  for (uint32_t k = 1; k < 4000; k += 2)
    for (uint32_t m = 0; m < 4; ++m)
      ASSERT_EQ(runFDiv(k, 0x40000000, static_cast<uint8_t>(m << 2)),
                bits(fp::div(std::bit_cast<float>(k), 2.0f, kModes[m])))
          << k << " mode " << m;
}

TEST(MachineUnits, FSqrtMatchesCorrectRounding) {
  std::mt19937_64 rng(98);
  for (int i = 0; i < 200000; ++i) {
    uint32_t a = randomOperand(rng);
    for (uint32_t m = 0; m < 4; ++m) {
      float ref = fp::canonical(fp::sqrt(std::bit_cast<float>(a), kModes[m]));
      ASSERT_EQ(runFSqrt(a, static_cast<uint8_t>(m << 2)), bits(ref)) << std::hex << a << " mode " << m;
    }
  }
}

TEST(MachineUnits, FtzFlushesSubnormalOperandsAndResults) {
  EXPECT_EQ(runFDiv(0x00000010, 0x3f800000, kFlFtz), 0u);            // subnormal dividend -> 0
  EXPECT_EQ(runFDiv(0x3f800000, 0x00000010, kFlFtz), 0x7f800000u);   // subnormal divisor -> 1/0
  EXPECT_EQ(runFDiv(0x00800000, 0x40000000, kFlFtz), 0u);            // subnormal result -> 0
  EXPECT_EQ(runFDiv(0x00800000, 0x40000000, 0), 0x00400000u);
  EXPECT_EQ(runFSqrt(0x80000010, kFlFtz), 0x80000000u);              // -subnormal -> -0
}

// The 64-bit multiply micro-code (the sequences lower.cpp emits, docs/machine.md §2.1) against
// the exact 128-bit product: each step is one 32x32 product of halves.
uint64_t mulp(MOp op, uint8_t fl, bool isSigned, uint64_t a, uint64_t b, uint64_t c) {
  MInstr in;
  in.op = op;
  in.ty = typeCode(8, isSigned);
  in.fl = fl;
  return computeLane(in, a, b, c);
}

uint64_t randomWord(std::mt19937_64& rng) {
  static const uint64_t kEdges[] = {0, 1, ~0ull, 0x8000000000000000ull, 0x7fffffffffffffffull, 0xffffffffull,
                                    0x100000000ull, 0x80000000ull, 0xffffffff00000000ull, 0x00000001ffffffffull};
  if (rng() % 4 == 0) return kEdges[rng() % std::size(kEdges)];
  return rng();
}

// One unsigned integer step of `bytes`-byte operands.
uint64_t step(MOp op, uint32_t bytes, uint64_t a, uint64_t b, uint64_t c = 0) {
  MInstr in;
  in.op = op;
  in.ty = typeCode(bytes, false);
  return computeLane(in, a, b, c);
}

uint64_t mulHi64(uint64_t a, uint64_t b, bool sgn) {
  uint64_t t = mulp(MOp::MulP, kFlMulShr32, sgn, a, b, 0);
  t = mulp(MOp::MulP, kFlMulBHigh, sgn, a, b, t);
  uint64_t u = mulp(MOp::MulPC, kFlMulAHigh, sgn, a, b, t);
  u = mulp(MOp::MulPC, kFlMulAHigh | kFlMulBHigh | kFlMulCHigh, sgn, a, b, u);
  return mulp(MOp::MulP, kFlMulAHigh, sgn, t, 1, u);
}

TEST(MachineUnits, Mul64MicroCodeGivesTheExactProduct) {
  __extension__ typedef __int128 s128;
  __extension__ typedef unsigned __int128 u128;
  std::mt19937_64 rng(64);
  for (int i = 0; i < 200000; ++i) {
    uint64_t a = randomWord(rng), b = randomWord(rng), c = randomWord(rng);
    for (bool sgn : {false, true}) {
      // lo (+ c), on 32-bit units whatever the signedness: t = lo32(aH*bL); t = lo32(aL*bH + t);
      // t <<= 32; u = aL*bL (MULWIDE); d = u + t + c
      uint64_t t = step(MOp::MulLo, 4, step(MOp::Shr, 8, a, 32), b);
      t = step(MOp::MadLo, 4, a, step(MOp::Shr, 8, b, 32), t);
      t = step(MOp::Shl, 8, t, 32);
      const uint64_t u = step(MOp::Add, 8, step(MOp::MulWide, 4, a, b), t);
      ASSERT_EQ(step(MOp::Add, 8, u, c), a * b + c) << std::hex << a << " " << b;
      // a cross product skipped where a high half is zero
      if ((b >> 32) == 0) {
        ASSERT_EQ(step(MOp::Add, 8, step(MOp::MulWide, 4, a, b), step(MOp::Shl, 8, step(MOp::MulLo, 4, step(MOp::Shr, 8, a, 32), b), 32)),
                  a * b);
      }
      // hi: t = aL*bL >> 32; t += aL*bH; u = lo32(t) + aH*bL; u = hi32(u) + aH*bH; d = u + hi32(t)
      uint64_t hi = mulHi64(a, b, sgn);
      uint64_t want = sgn ? static_cast<uint64_t>(static_cast<u128>(static_cast<s128>(static_cast<int64_t>(a)) *
                                                                    static_cast<int64_t>(b)) >> 64)
                          : static_cast<uint64_t>(static_cast<u128>(a) * b >> 64);
      ASSERT_EQ(hi, want) << std::hex << a << " " << b << (sgn ? " signed" : " unsigned");
    }
  }
}

// The small conversion units against the oracle's numerics: f16 -> f32 for all 65,536
// inputs; f32 -> f16 and rounding to integral in every mode on random and f16-range inputs.
uint64_t convert(MOp op, uint8_t fl, uint64_t a) {
  MInstr in;
  in.op = op;
  in.fl = fl;
  in.ty = typeCode(op == MOp::H2F ? 2 : 4, false);
  return computeLane(in, a, 0, 0);
}

uint32_t halfRangeOperand(std::mt19937_64& rng) {
  if (rng() % 2) return randomOperand(rng);
  uint32_t exp = static_cast<uint32_t>(127 - 27 + rng() % 45);  // 2^-27 .. 2^17: f16 subnormals to overflow
  return static_cast<uint32_t>((rng() % 2) << 31 | exp << 23 | (rng() & 0x7fffff));
}

TEST(MachineUnits, HalfConversionsMatchTheOracle) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float ref = fp::canonical(static_cast<float>(fp::halfToDouble(static_cast<uint16_t>(h))));
    ASSERT_EQ(convert(MOp::H2F, 0, h), bits(ref)) << std::hex << h;
  }
  std::mt19937_64 rng(16);
  for (int i = 0; i < 200000; ++i) {
    uint32_t a = halfRangeOperand(rng);
    for (uint32_t m = 0; m < 4; ++m) {
      uint16_t ref = fp::floatToHalf(static_cast<double>(std::bit_cast<float>(a)), kModes[m]);
      ASSERT_EQ(convert(MOp::F2H, static_cast<uint8_t>(m << 2), a), ref) << std::hex << a << " mode " << m;
    }
  }
  EXPECT_EQ(convert(MOp::F2H, kFlSat, 0x40000000), 0x3c00u);  // .sat: 2 -> 1
  EXPECT_EQ(convert(MOp::F2H, kFlSat, 0x7fc00000), 0u);       // .sat: NaN -> +0
  EXPECT_EQ(convert(MOp::F2H, kFlFtz, 0x00000001), 0u);       // .ftz flushes the f32 input
}

TEST(MachineUnits, RoundToIntegralMatchesTheOracle) {
  std::mt19937_64 rng(17);
  for (int i = 0; i < 200000; ++i) {
    uint32_t a = rng() % 2 ? randomOperand(rng)
                           : static_cast<uint32_t>((rng() % 2) << 31 | (120 + rng() % 12) << 23 | (rng() & 0x7fffff));
    for (uint32_t m = 0; m < 4; ++m) {
      float x = std::bit_cast<float>(a);
      float ref = fp::canonical(std::isnan(x) ? x : static_cast<float>(fp::roundToIntegral(x, kModes[m])));
      ASSERT_EQ(convert(MOp::FRndI, static_cast<uint8_t>(m << 2), a), bits(ref)) << std::hex << a << " mode " << m;
    }
  }
}

// mul.f64 micro-code (DSIG, MULP high half, DSTICKY, DMULFIN) against the oracle's correctly
// rounded fp::mul (MPFR for directed modes) in every rounding mode: random bit patterns,
// subnormals, products that overflow or underflow, exact halfway cases, special values.
uint64_t runDMul(uint64_t a, uint64_t b, uint32_t mode) {
  MInstr in;
  in.ty = typeCode(8, false);
  in.op = MOp::DSig;
  uint64_t ma = computeLane(in, a, 0, 0), mb = computeLane(in, b, 0, 0);
  in.op = MOp::DSticky;
  uint64_t hi = computeLane(in, mulHi64(ma, mb, false), ma, mb);
  in.op = MOp::DMulFin;
  in.fl = static_cast<uint8_t>(mode << 2);
  return computeLane(in, hi, a, b);
}

uint64_t randomDouble(std::mt19937_64& rng) {
  static const uint64_t kEdge[] = {0, 1, 2, 0x000fffffffffffffull, 0x0010000000000000ull, 0x3ff0000000000000ull,
                                   0x3ff8000000000000ull, 0x7fefffffffffffffull, 0x7ff0000000000000ull,
                                   0x7ff8000000000000ull, 0x7ff0000000000001ull, 0x3fe0000000000000ull,
                                   0x4340000000000001ull, 0x3cb0000000000000ull};
  uint64_t sign = (rng() & 1) << 63;
  switch (rng() % 5) {
    case 0: return kEdge[rng() % std::size(kEdge)] | sign;
    case 1: return (rng() & ((1ull << 52) - 1)) | sign;                                   // subnormal
    case 2: return (rng() & ((1ull << 52) - 1)) | (uint64_t{1023 - 520 + rng() % 1040} << 52) | sign;  // products near the range ends
    case 3: return (rng() & ~((1ull << 40) - 1) & ((1ull << 52) - 1)) | (uint64_t{1023 + rng() % 8} << 52) | sign;  // short significands: exact and halfway products
    default: return rng();
  }
}

TEST(MachineUnits, DMulMicroCodeMatchesCorrectRounding) {
  std::mt19937_64 rng(1064);
  for (int i = 0; i < 200000; ++i) {
    uint64_t a = randomDouble(rng), b = randomDouble(rng);
    for (uint32_t m = 0; m < 4; ++m) {
      uint64_t ref = std::bit_cast<uint64_t>(fp::mul(std::bit_cast<double>(a), std::bit_cast<double>(b), kModes[m]));
      ASSERT_EQ(runDMul(a, b, m), ref) << std::hex << a << " * " << b << " mode " << m;
    }
  }
}

uint64_t runD(MOp op, uint32_t mode, uint64_t a, uint64_t b, uint32_t width = 8) {
  MInstr in;
  in.op = op;
  in.ty = typeCode(width, false);
  in.fl = static_cast<uint8_t>(mode << 2);
  return computeLane(in, a, b, 0);
}

TEST(MachineUnits, F64AddAndConversionsMatchCorrectRounding) {
  std::mt19937_64 rng(1065);
  for (int i = 0; i < 200000; ++i) {
    uint64_t a = randomDouble(rng), b = randomDouble(rng);
    if (rng() % 4 == 0) b = (a ^ (1ull << 63)) + (rng() % 64) - 32;            // near cancellation
    if (rng() % 4 == 0) b = (b & 0x800fffffffffffffull) | (a & 0x7ff0000000000000ull);  // equal exponents
    const double x = std::bit_cast<double>(a), y = std::bit_cast<double>(b);
    for (uint32_t m = 0; m < 4; ++m) {
      ASSERT_EQ(runD(MOp::FAdd, m, a, b), std::bit_cast<uint64_t>(fp::add(x, y, kModes[m])))
          << std::hex << a << " + " << b << " mode " << m;
      const double ny = std::isnan(y) ? y : -y;
      ASSERT_EQ(runD(MOp::FSub, m, a, b), std::bit_cast<uint64_t>(fp::add(x, ny, kModes[m])))
          << std::hex << a << " - " << b << " mode " << m;
      float ref = std::isnan(x) ? std::bit_cast<float>(0x7fffffffu) : fp::roundToFloat(x, kModes[m]);
      ASSERT_EQ(runD(MOp::D2F, m, a, 0), bits(ref)) << std::hex << a << " mode " << m;
    }
  }
}

// f64 div and sqrt micro-code as lower.cpp emits it (15 radix-16 groups) against the oracle's
// correctly rounded fp::div / fp::sqrt in every rounding mode.
uint64_t op64(MOp op, uint8_t fl, uint64_t a, uint64_t b, uint64_t c) {
  MInstr in;
  in.op = op;
  in.ty = typeCode(8, false);
  in.fl = fl;
  return computeLane(in, a, b, c);
}

uint64_t runDDiv(uint64_t a, uint64_t b, uint32_t mode) {
  const uint64_t sa = op64(MOp::DSig, 0, a, 0, 0), sb = op64(MOp::DSig, 0, b, 0, 0);
  uint64_t r = sa, q = 0;
  for (int g = 0; g < 15; ++g) {
    uint8_t fl = static_cast<uint8_t>((g == 0 ? kFlFirstGroup : 0) | (g == 14 ? kFlLastGroup : 0));
    uint64_t nq = op64(MOp::DDivQ, fl, r, q, sb);
    if (g < 14) r = op64(MOp::DDivR, fl, r, q, sb);
    q = nq;
  }
  return op64(MOp::DDivFin, static_cast<uint8_t>(mode << 2), q, a, b);
}

uint64_t runDSqrt(uint64_t a, uint32_t mode) {
  const uint64_t n = op64(MOp::DSqrtN, 0, a, 0, 0);
  uint64_t r = 0, q = 0;
  for (int g = 0; g < 15; ++g) {
    uint8_t fl = static_cast<uint8_t>((g == 0 ? kFlFirstGroup : 0) | (g == 14 ? kFlLastGroup : 0));
    uint64_t nr = g < 14 ? op64(MOp::DSqrtR, fl, r, q, n) : r;
    q = op64(MOp::DSqrtQ, fl, r, q, n);
    r = nr;
  }
  return op64(MOp::DSqrtFin, static_cast<uint8_t>(mode << 2), q, a, 0);
}

TEST(MachineUnits, F64DivAndSqrtMatchCorrectRounding) {
  std::mt19937_64 rng(1066);
  for (int i = 0; i < 100000; ++i) {
    uint64_t a = randomDouble(rng), b = randomDouble(rng);
    if (rng() % 8 == 0) a = std::bit_cast<uint64_t>(std::bit_cast<double>(b) * static_cast<double>(rng() % 1000));  // exact quotients
    const double x = std::bit_cast<double>(a), y = std::bit_cast<double>(b);
    for (uint32_t m = 0; m < 4; ++m) {
      ASSERT_EQ(runDDiv(a, b, m), std::bit_cast<uint64_t>(fp::div(x, y, kModes[m])))
          << std::hex << a << " / " << b << " mode " << m;
      ASSERT_EQ(runDSqrt(a, m), std::bit_cast<uint64_t>(fp::sqrt(x, kModes[m]))) << std::hex << a << " mode " << m;
    }
  }
  // Perfect squares and their neighbours.
  for (uint64_t k = 1; k < 3000; ++k) {
    double sq = static_cast<double>(k) * static_cast<double>(k);
    for (uint64_t bitsv : {std::bit_cast<uint64_t>(sq), std::bit_cast<uint64_t>(sq) + 1, std::bit_cast<uint64_t>(sq) - 1})
      for (uint32_t m = 0; m < 4; ++m)
        ASSERT_EQ(runDSqrt(bitsv, m), std::bit_cast<uint64_t>(fp::sqrt(std::bit_cast<double>(bitsv), kModes[m])))
            << std::hex << bitsv << " mode " << m;
  }
}

uint64_t runDFma(uint64_t a, uint64_t b, uint64_t c, uint32_t mode) {
  const uint64_t ma = op64(MOp::DSig, kFlSig53, a, 0, 0), mb = op64(MOp::DSig, kFlSig53, b, 0, 0);
  uint64_t hi = op64(MOp::DFmaPack, 0, mulHi64(ma, mb, false), a, b);
  uint64_t lo = op64(MOp::DFmaLo, 0, ma * mb, a, b);
  const uint8_t fl = static_cast<uint8_t>(mode << 2);
  uint64_t sum = op64(MOp::DFmaSum, fl, hi, lo, c);
  return op64(MOp::DFmaFin, fl, sum, hi, c);
}

TEST(MachineUnits, F64FmaMatchesCorrectRounding) {
  std::mt19937_64 rng(1067);
  for (int i = 0; i < 200000; ++i) {
    uint64_t a = randomDouble(rng), b = randomDouble(rng), c = randomDouble(rng);
    const double x = std::bit_cast<double>(a), y = std::bit_cast<double>(b);
    switch (rng() % 4) {
      case 0: c = std::bit_cast<uint64_t>(-(x * y)) + (rng() % 5) - 2; break;  // cancellation
      case 1: c = (c & 0x800fffffffffffffull) | (uint64_t{(((a >> 52) & 0x7ff) + ((b >> 52) & 0x7ff) + rng() % 200) % 2047} << 52); break;
      default: break;
    }
    const double z = std::bit_cast<double>(c);
    for (uint32_t m = 0; m < 4; ++m)
      ASSERT_EQ(runDFma(a, b, c, m), std::bit_cast<uint64_t>(fp::fma(x, y, z, kModes[m])))
          << std::hex << a << " * " << b << " + " << c << " mode " << m;
  }
}

TEST(MachineUnits, IntegerToF64RoundsOnce) {
  MInstr in;
  in.op = MOp::I2F;
  in.ty = typeCode(8, true);
  const uint64_t big = (1ull << 53) + 1;  // halfway between two doubles
  const uint64_t lo = std::bit_cast<uint64_t>(0x1p53), hi = std::bit_cast<uint64_t>(0x1p53 + 2);
  const uint64_t expect[4] = {lo, lo, lo, hi};  // rn (ties to even), rz, rm, rp
  for (uint32_t m = 0; m < 4; ++m) {
    in.fl = static_cast<uint8_t>(m | kFlI2FDest64);
    EXPECT_EQ(computeLane(in, big, 0, 0), expect[m]) << "mode " << m;
    EXPECT_EQ(computeLane(in, 0 - big, 0, 0), (m == 2 ? hi : m == 3 ? lo : expect[m]) | (1ull << 63)) << "mode " << m;
  }
  in.fl = kFlI2FDest64;
  EXPECT_EQ(computeLane(in, 0, 0, 0), 0u);
  EXPECT_EQ(computeLane(in, 0x8000000000000000ull, 0, 0), std::bit_cast<uint64_t>(-0x1p63));
}

TEST(MachineUnits, SixtyFourBitMultipliesAreNotSingleSteps) {
  for (MOp op : {MOp::MulLo, MOp::MulHi, MOp::MadLo}) {
    MInstr in;
    in.op = op;
    in.ty = typeCode(8, false);
    EXPECT_THROW(computeLane(in, 3, 5, 0), Error) << opName(op);
    in.ty = typeCode(4, false);
    EXPECT_NO_THROW(computeLane(in, 3, 5, 0)) << opName(op);
  }
}

}  // namespace
}  // namespace qgpu::machine
