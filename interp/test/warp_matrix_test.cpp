// ldmatrix, mma.sync and cp.async through the whole executor: ldmatrix's data movement
// against a reference written here from the ISA's description, ldmatrix feeding mma as
// real kernels do (against a plain matrix product), the 32-lane-warp requirement (a
// launch error at W=4, undefined behaviour for a partial warp), and cp.async's copies,
// src-size zero fill and ignore-src at both warp widths. mma's arithmetic over random and
// special inputs is in the numeric oracle (mma_oracle_test.cpp).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "test_util.h"

namespace qgpu {
namespace {

using test::bytesOfU32;
using test::TestLaunch;
using test::u32Of;

std::string sm80() { return ".version 7.8\n.target sm_80\n.address_size 64\n"; }

// The error a launch throws ("" if none), and its kind.
std::string errorOf(const TestLaunch& t, ErrorKind* kind = nullptr) {
  try {
    test::run(t);
  } catch (const Error& e) {
    if (kind) *kind = e.kind();
    return e.what();
  }
  return "";
}

// ------------------------------------------------------------------------------ ldmatrix
// 1 KiB of shared memory holds 512 distinct b16 values (value = index * 7 + 3); lane l
// supplies the row address table[l] (a byte offset, 16-byte aligned). Every lane stores its
// n result registers to out[l * 4 + j].
std::string ldmatrixKernel(const std::string& spelling, uint32_t n) {
  std::string regs, stores;
  for (uint32_t j = 0; j < n; ++j) {
    regs += fmt::format("{}%r{}", j ? ", " : "", 10 + j);
    stores += fmt::format("  st.global.u32 [%rd5+{}], %r{};\n", 4 * j, 10 + j);
  }
  return sm80() + fmt::format(R"(
.visible .entry k(.param .u64 in, .param .u64 table, .param .u64 out)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 sm[1024];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [table];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  // thread t copies bytes [32t, 32t + 32) of the input into shared memory
  mul.wide.u32 %rd4, %r1, 32;
  add.u64 %rd4, %rd1, %rd4;
  mul.lo.u32 %r2, %r1, 32;
  ld.global.v4.u32 {{%r3, %r4, %r5, %r6}}, [%rd4];
  st.shared.v4.u32 [%r2], {{%r3, %r4, %r5, %r6}};
  ld.global.v4.u32 {{%r3, %r4, %r5, %r6}}, [%rd4+16];
  st.shared.v4.u32 [%r2+16], {{%r3, %r4, %r5, %r6}};
  bar.sync 0;
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd4, %rd2, %rd4;
  ld.global.u32 %r7, [%rd4];
  {} {{{}}}, [%r7];
  mul.wide.u32 %rd5, %r1, 16;
  add.u64 %rd5, %rd3, %rd5;
{}  ret;
}}
)",
                              spelling, regs, stores);
}

TEST(Ldmatrix, MovesEachLanesFragmentAsTheIsaDescribes) {
  std::vector<uint16_t> smem(512);
  for (uint32_t i = 0; i < 512; ++i) smem[i] = static_cast<uint16_t>(i * 7 + 3);
  std::vector<uint8_t> in(1024);
  std::memcpy(in.data(), smem.data(), 1024);
  std::mt19937 rng(7);
  for (uint32_t n : {1u, 2u, 4u})
    for (bool trans : {false, true}) {
      SCOPED_TRACE(fmt::format("x{}{}", n, trans ? ".trans" : ""));
      // Lane l's row address: a random 16-byte row of the 64 in shared memory.
      std::vector<uint32_t> table(32);
      for (uint32_t& a : table) a = 16 * (rng() % 64);
      TestLaunch t;
      t.ptx = ldmatrixKernel(fmt::format("ldmatrix.sync.aligned.m8n8.x{}{}.shared.b16", n, trans ? ".trans" : ""), n);
      t.block = {32, 1, 1};
      t.warp = 32;
      t.buffers = {in, bytesOfU32(table), std::vector<uint8_t>(32 * 16, 0)};
      const std::vector<uint32_t> out = u32Of(test::run(t)[2]);
      // Reference: matrix j is the 8 rows whose addresses lanes 8j..8j+7 hold; lane l's
      // register j holds two consecutive elements of row l/4 (columns 2(l%4), 2(l%4)+1),
      // or with .trans of column l/4 (rows 2(l%4), 2(l%4)+1), the first in the low half.
      auto element = [&](uint32_t j, uint32_t row, uint32_t col) -> uint32_t {
        return smem[table[8 * j + row] / 2 + col];
      };
      for (uint32_t l = 0; l < 32; ++l)
        for (uint32_t j = 0; j < n; ++j) {
          const uint32_t a = l / 4, b = 2 * (l % 4);
          const uint32_t lo = trans ? element(j, b, a) : element(j, a, b);
          const uint32_t hi = trans ? element(j, b + 1, a) : element(j, a, b + 1);
          EXPECT_EQ(out[l * 4 + j], lo | (hi << 16)) << "lane " << l << " register " << j;
        }
      // Registers beyond n are not written.
      for (uint32_t l = 0; l < 32; ++l)
        for (uint32_t j = n; j < 4; ++j) EXPECT_EQ(out[l * 4 + j], 0u);
    }
}

TEST(Ldmatrix, AMisalignedRowAddressFaultsNamingItsLane) {
  TestLaunch t;
  t.ptx = ldmatrixKernel("ldmatrix.sync.aligned.m8n8.x1.shared.b16", 1);
  t.block = {32, 1, 1};
  t.warp = 32;
  std::vector<uint32_t> table(32, 0);
  table[5] = 8;  // lane 5 gives row 5 of the matrix: not 16-byte aligned
  table[20] = 4;  // lane 20's address is not used by .x1
  t.buffers = {std::vector<uint8_t>(1024), bytesOfU32(table), std::vector<uint8_t>(512)};
  ErrorKind kind{};
  const std::string e = errorOf(t, &kind);
  EXPECT_EQ(kind, ErrorKind::Memory) << e;
  EXPECT_NE(e.find("misaligned"), std::string::npos) << e;
  EXPECT_NE(e.find("lane 5"), std::string::npos) << e;
}

// -------------------------------------------------------------- mma fed by ldmatrix
// The usual tensor-core kernel: A (16x16, row-major) and B (16x8, row-major: k rows) in
// shared memory, A's fragment by ldmatrix.x4, B's by ldmatrix.x2.trans, C = 0, and D stored
// row-major through the accumulator layout. Small integers make every sum exact, so the
// product does not depend on the summation order: a plain matrix product is the reference.
TEST(Mma, LdmatrixFragmentsFeedAnF16MatrixProduct) {
  const std::string ptx = sm80() + R"(
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 d)
{
  .reg .pred %p<2>;
  .reg .b32 %r<32>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 sa[512];
  .shared .align 16 .b8 sb[256];
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [d];
  mov.u32 %r1, %tid.x;
  // A: 512 bytes, 16 per thread; B: 256 bytes, 8 per thread
  mul.wide.u32 %rd4, %r1, 16;
  add.u64 %rd4, %rd1, %rd4;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
  mul.lo.u32 %r6, %r1, 16;
  mov.u32 %r7, sa;
  add.u32 %r7, %r7, %r6;
  st.shared.v4.u32 [%r7], {%r2, %r3, %r4, %r5};
  mul.wide.u32 %rd4, %r1, 8;
  add.u64 %rd4, %rd2, %rd4;
  ld.global.v2.u32 {%r2, %r3}, [%rd4];
  mul.lo.u32 %r6, %r1, 8;
  mov.u32 %r7, sb;
  add.u32 %r7, %r7, %r6;
  st.shared.v2.u32 [%r7], {%r2, %r3};
  bar.sync 0;
  // A: lane l points at row (l % 16), column block 8 * (l / 16) -> 32 bytes a row
  and.b32 %r8, %r1, 15;
  shr.u32 %r9, %r1, 4;
  mul.lo.u32 %r8, %r8, 32;
  mad.lo.u32 %r8, %r9, 16, %r8;
  mov.u32 %r7, sa;
  add.u32 %r8, %r8, %r7;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r8];
  // B: lane l (0..15) points at row l -> 16 bytes a row
  and.b32 %r8, %r1, 15;
  mul.lo.u32 %r8, %r8, 16;
  mov.u32 %r7, sb;
  add.u32 %r8, %r8, %r7;
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r14, %r15}, [%r8];
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {0f00000000, 0f00000000, 0f00000000, 0f00000000};
  // D[g][2t..2t+1] and D[g+8][2t..2t+1], g = l / 4, t = l % 4 (row-major 16x8 f32)
  shr.u32 %r16, %r1, 2;
  and.b32 %r17, %r1, 3;
  mul.lo.u32 %r18, %r16, 8;
  mad.lo.u32 %r18, %r17, 2, %r18;
  mul.wide.u32 %rd5, %r18, 4;
  add.u64 %rd5, %rd3, %rd5;
  st.global.v2.f32 [%rd5], {%f1, %f2};
  st.global.v2.f32 [%rd5+256], {%f3, %f4};
  ret;
}
)";
  std::mt19937 rng(3);
  std::vector<int> A(16 * 16), B(16 * 8);
  for (int& x : A) x = static_cast<int>(rng() % 17) - 8;
  for (int& x : B) x = static_cast<int>(rng() % 17) - 8;
  // Small integers as f16 bits: exponent/mantissa of |x| <= 8 written out by hand.
  auto f16 = [](int x) -> uint16_t {
    if (x == 0) return 0;
    uint32_t m = static_cast<uint32_t>(x < 0 ? -x : x);
    int e = 31 - __builtin_clz(m);
    uint16_t bits = static_cast<uint16_t>(((e + 15) << 10) | ((m << (10 - e)) & 0x3ff));
    return static_cast<uint16_t>(bits | (x < 0 ? 0x8000 : 0));
  };
  std::vector<uint8_t> a(512), b(256);
  for (size_t i = 0; i < A.size(); ++i) {
    const uint16_t h = f16(A[i]);
    std::memcpy(&a[2 * i], &h, 2);
  }
  for (size_t i = 0; i < B.size(); ++i) {
    const uint16_t h = f16(B[i]);
    std::memcpy(&b[2 * i], &h, 2);
  }
  TestLaunch t;
  t.ptx = ptx;
  t.block = {32, 1, 1};
  t.warp = 32;
  t.buffers = {a, b, std::vector<uint8_t>(16 * 8 * 4)};
  const std::vector<uint8_t> d = test::run(t)[2];
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      int want = 0;
      for (int k = 0; k < 16; ++k) want += A[i * 16 + k] * B[k * 8 + j];
      float got;
      std::memcpy(&got, &d[4 * (i * 8 + j)], 4);
      EXPECT_EQ(got, static_cast<float>(want)) << "D[" << i << "][" << j << "]";
    }
}

std::string mmaKernel(const std::string& extraFunc = "", const std::string& call = "") {
  return sm80() + extraFunc + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r2, %r3, %r4, %r5}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {%r1, %r1, %r1, %r1};
)" + call + R"(
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r2;
  ret;
}
)";
}

TEST(Mma, NeedsA32LaneWarpAtLaunchAndTheWholeWarp) {
  TestLaunch t;
  t.ptx = mmaKernel();
  t.block = {32, 1, 1};
  t.buffers = {std::vector<uint8_t>(4)};
  t.warp = 32;
  EXPECT_EQ(errorOf(t), "");
  t.warp = 4;
  ErrorKind kind{};
  std::string e = errorOf(t, &kind);
  EXPECT_EQ(kind, ErrorKind::Launch) << e;
  EXPECT_NE(e.find("needs a 32-lane warp"), std::string::npos) << e;
  EXPECT_NE(e.find("mma.sync.aligned.m16n8k32"), std::string::npos) << e;
  EXPECT_NE(e.find("warp width 4"), std::string::npos) << e;
  // A block of 16 threads leaves half the warp out: undefined, not a made-up value.
  t.warp = 32;
  t.block = {16, 1, 1};
  e = errorOf(t, &kind);
  EXPECT_EQ(kind, ErrorKind::Undefined) << e;
  EXPECT_NE(e.find("all 32 lanes"), std::string::npos) << e;
}

TEST(Mma, ALaunchThatReachesMmaThroughACallIsRefusedAtW4) {
  TestLaunch t;
  t.ptx = sm80() + R"(
.func f()
{
  .reg .b32 %r<8>;
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%r2];
  ret;
}
.visible .entry k(.param .u64 out)
{
  call f;
  ret;
}
.visible .entry plain(.param .u64 out)
{
  ret;
}
)";
  t.block = {32, 1, 1};
  t.buffers = {std::vector<uint8_t>(4)};
  t.warp = 4;
  ErrorKind kind{};
  const std::string e = errorOf(t, &kind);
  EXPECT_EQ(kind, ErrorKind::Launch) << e;
  EXPECT_NE(e.find("ldmatrix.sync.aligned.m8n8.x1"), std::string::npos) << e;
  // Another entry of the same module that does not reach it runs at W=4.
  t.entry = "plain";
  EXPECT_EQ(errorOf(t), "");
}

// -------------------------------------------------------------------------------- cp.async
// Each thread copies with cp-size 4, 8 and 16 (the last with a src-size from the scalar
// argument) and an ignore-src copy, waits, and writes shared memory back out.
std::string cpAsyncKernel() {
  return sm80() + R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 srcsize)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 sm[2048];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r9, [srcsize];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 32;
  mul.wide.u32 %rd3, %r1, 32;
  add.u64 %rd3, %rd1, %rd3;
  and.b32 %r3, %r1, 1;
  setp.eq.u32 %p1, %r3, 1;
  mov.u32 %r4, sm;
  add.u32 %r4, %r4, %r2;
  cp.async.ca.shared.global [%r4], [%rd3], 4;
  cp.async.ca.shared.global [%r4+8], [%rd3+8], 8;
  cp.async.commit_group;
  cp.async.cg.shared.global [%r4+16], [%rd3+16], 16, %r9;
  cp.async.ca.shared.global [%r4+4], [%rd3+4], 4, %p1;
  cp.async.commit_group;
  cp.async.wait_group 1;
  cp.async.wait_all;
  bar.sync 0;
  ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%r4];
  mul.wide.u32 %rd4, %r1, 32;
  add.u64 %rd4, %rd2, %rd4;
  st.global.v4.u32 [%rd4], {%r5, %r6, %r7, %r8};
  ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%r4+16];
  st.global.v4.u32 [%rd4+16], {%r5, %r6, %r7, %r8};
  ret;
}
)";
}

TEST(CpAsync, CopiesZeroFillsAndIgnoresSourcesAtBothWarpWidths) {
  const uint32_t threads = 40;
  std::vector<uint8_t> in(threads * 32);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 13 + 1);
  for (uint32_t srcSize : {16u, 5u, 0u})
    for (uint32_t w : {4u, 32u}) {
      SCOPED_TRACE(fmt::format("src-size {} W={}", srcSize, w));
      TestLaunch t;
      t.ptx = cpAsyncKernel();
      t.block = {threads, 1, 1};
      t.warp = w;
      t.buffers = {in, std::vector<uint8_t>(threads * 32, 0xee)};
      t.scalars = {srcSize};
      const std::vector<uint8_t> out = test::run(t)[1];
      for (uint32_t th = 0; th < threads; ++th)
        for (uint32_t byte = 0; byte < 32; ++byte) {
          const uint8_t src = in[th * 32 + byte];
          uint8_t want = 0;  // shared memory starts zeroed; bytes 0..3, 8..15: copied
          if (byte < 4 || (byte >= 8 && byte < 16)) want = src;
          else if (byte < 8) want = (th % 2 == 1) ? 0 : src;  // ignore-src when odd: zeros
          else want = (byte - 16 < srcSize) ? src : 0;         // src-size, then zero fill
          ASSERT_EQ(out[th * 32 + byte], want) << "thread " << th << " byte " << byte;
        }
    }
}

TEST(CpAsync, AMisalignedSourceAndAnOversizedSrcSizeAreErrors) {
  TestLaunch t;
  t.ptx = cpAsyncKernel();
  t.block = {4, 1, 1};
  t.buffers = {std::vector<uint8_t>(128), std::vector<uint8_t>(128)};
  t.scalars = {17};
  ErrorKind kind{};
  std::string e = errorOf(t, &kind);
  EXPECT_EQ(kind, ErrorKind::Undefined) << e;
  EXPECT_NE(e.find("src-size 17 is larger than cp-size 16"), std::string::npos) << e;
  t.ptx = sm80() + R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 x)
{
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 sm[64];
  ld.param.u64 %rd1, [in];
  cp.async.ca.shared.global [sm], [%rd1+4], 8;
  ret;
}
)";
  e = errorOf(t, &kind);
  EXPECT_EQ(kind, ErrorKind::Memory) << e;
  EXPECT_NE(e.find("misaligned cp.async source"), std::string::npos) << e;
  // Past the end of the source buffer: bounds are checked on the bytes read.
  t.ptx = sm80() + R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 x)
{
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 sm[64];
  ld.param.u64 %rd1, [in];
  cp.async.cg.shared.global [sm], [%rd1+128], 16, 0;
  cp.async.cg.shared.global [sm], [%rd1+112], 16;
  cp.async.cg.shared.global [sm], [%rd1+128], 16, 1;
  ret;
}
)";
  e = errorOf(t, &kind);
  EXPECT_EQ(kind, ErrorKind::Memory) << e;
  EXPECT_NE(e.find("128"), std::string::npos) << e;
}

}  // namespace
}  // namespace qgpu
