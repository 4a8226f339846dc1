// bar.red, redux.sync and match.sync through the whole executor (warps of 4 and 32 lanes
// must agree), their error cases, and which spellings decode (as ptxas 13 decides; the
// grammar corpus records the same verdicts from ptxas itself).
#include <gtest/gtest.h>

#include <algorithm>

#include "qgpu/interp/error.h"
#include "qgpu/interp/isa.h"
#include "test_util.h"

namespace qgpu {
namespace {

using test::header;
using test::TestLaunch;
using test::u32Of;

std::vector<uint32_t> runBoth(TestLaunch t) {
  std::vector<uint32_t> first;
  for (uint32_t w : {4u, 32u}) {
    t.warp = w;
    auto out = u32Of(test::run(t)[0]);
    if (w == 4) first = out;
    else EXPECT_EQ(out, first) << "W=4 and W=32 differ";
  }
  return first;
}

// redux.sync needs sm_80.
std::string sm80() { return ".version 9.0\n.target sm_80\n.address_size 64\n"; }

std::string errorOf(const TestLaunch& t) {
  try {
    test::run(t);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(WarpCollectives, BarRedReducesThePredicatesOfEveryLiveThreadOfTheBlock) {
  // 72 threads (18 warps of 4, or 2 of 32 and one of 8); threads 70 and 71 exit first and
  // are not waited for (exit, not a branch: lanes of a warp on another path would be a
  // divergent barrier). p = (tid % 3 == 0): true for 24 of the 70 threads that arrive.
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p7, %r1, 70;
  @%p7 exit;
  rem.u32 %r2, %r1, 3;
  setp.eq.u32 %p1, %r2, 0;
  setp.lt.u32 %p2, %r1, 100;
  bar.red.popc.u32 %r3, 0, %p1;
  bar.red.popc.u32 %r4, 1, !%p1;
  bar.red.and.pred %p3, 2, %p1;
  bar.red.or.pred %p4, 3, %p1;
  barrier.red.and.pred %p5, 4, %p2;
  barrier.red.or.pred %p6, 5, !%p2;
  selp.u32 %r5, 1, 0, %p3;
  selp.u32 %r6, 1, 0, %p4;
  selp.u32 %r7, 1, 0, %p5;
  selp.u32 %r8, 1, 0, %p6;
  mul.wide.u32 %rd2, %r1, 24;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r3, %r4};
  st.global.v2.u32 [%rd3+8], {%r5, %r6};
  st.global.v2.u32 [%rd3+16], {%r7, %r8};
  ret;
}
)";
  t.block = {72, 1, 1};
  t.buffers = {std::vector<uint8_t>(72 * 24)};
  auto out = runBoth(t);
  for (uint32_t tid = 0; tid < 72; ++tid) {
    const uint32_t* r = &out[tid * 6];
    if (tid >= 70) {
      for (int i = 0; i < 6; ++i) EXPECT_EQ(r[i], 0u) << tid;
      continue;
    }
    EXPECT_EQ(r[0], 24u) << tid;  // popc(p)
    EXPECT_EQ(r[1], 46u) << tid;  // popc(!p)
    EXPECT_EQ(r[2], 0u) << tid;   // and(p)
    EXPECT_EQ(r[3], 1u) << tid;   // or(p)
    EXPECT_EQ(r[4], 1u) << tid;   // and(true)
    EXPECT_EQ(r[5], 0u) << tid;   // or(false)
  }
}

TEST(WarpCollectives, BarRedAndBarSyncMustNotMeetAtOneBarrier) {
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k()
{
  .reg .pred %p<3>;
  .reg .b32 %r<3>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 4;
  @%p1 bra LOW;
  bar.red.popc.u32 %r2, 0, %p1;
  ret;
LOW:
  bar.sync 0;
  ret;
}
)";
  t.block = {8, 1, 1};
  t.warp = 4;
  const std::string e = errorOf(t);
  EXPECT_NE(e.find("different operations"), std::string::npos) << e;
}

TEST(WarpCollectives, ReduxAndMatchPerFourLaneGroup) {
  // Each 4-lane group passes its own membermask (one group per warp at W=4, eight per warp
  // at W=32).
  TestLaunch t;
  t.ptx = sm80() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  and.b32 %r3, %r2, -4;
  shl.b32 %r4, 15, %r3;
  sub.s32 %r5, 5, %r1;
  redux.sync.add.u32 %r6, %r1, %r4;
  redux.sync.min.s32 %r7, %r5, %r4;
  redux.sync.min.u32 %r8, %r5, %r4;
  shr.u32 %r9, %r1, 1;
  match.any.sync.b32 %r10, %r9, %r4;
  shr.u32 %r11, %r10, %r3;
  cvt.u64.u32 %rd4, %r3;
  match.all.sync.b64 %r12|%p1, %rd4, %r4;
  shr.u32 %r12, %r12, %r3;
  selp.u32 %r13, 1, 0, %p1;
  mul.wide.u32 %rd2, %r1, 24;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r6, %r7};
  st.global.v2.u32 [%rd3+8], {%r8, %r11};
  st.global.v2.u32 [%rd3+16], {%r12, %r13};
  ret;
}
)";
  t.block = {16, 1, 1};
  t.buffers = {std::vector<uint8_t>(16 * 24)};
  auto out = runBoth(t);
  for (uint32_t tid = 0; tid < 16; ++tid) {
    const uint32_t* r = &out[tid * 6];
    const uint32_t g = tid & ~3u;
    EXPECT_EQ(r[0], 4 * g + 6) << tid;                                      // g + g+1 + g+2 + g+3
    EXPECT_EQ(r[1], static_cast<uint32_t>(5 - static_cast<int32_t>(g + 3))) << tid;  // signed min
    uint32_t umin = 0xffffffffu;
    for (uint32_t k = g; k < g + 4; ++k) umin = std::min(umin, static_cast<uint32_t>(5 - static_cast<int32_t>(k)));
    EXPECT_EQ(r[2], umin) << tid;                                           // unsigned min
    EXPECT_EQ(r[3], (tid & 2) ? 0xcu : 0x3u) << tid;  // lanes with the same tid / 2
    EXPECT_EQ(r[4], 0xfu) << tid;                     // every member holds the group's first lane
    EXPECT_EQ(r[5], 1u) << tid;
  }
}

TEST(WarpCollectives, ReduxNeedsEveryMemberToTakePart) {
  TestLaunch t;
  t.ptx = sm80() + R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 2;
  @%p1 redux.sync.add.u32 %r2, %r1, 0xf;
  ret;
}
)";
  t.block = {4, 1, 1};
  for (uint32_t w : {4u, 32u}) {
    t.warp = w;
    const std::string e = errorOf(t);
    EXPECT_NE(e.find("redux.sync: lanes {2} of membermask 0xf do not execute it together"), std::string::npos) << e;
  }
}

TEST(WarpCollectives, DecodedWhereCuda13PtxasAcceptsThem) {
  for (const char* ok : {"redux.sync.add.u32 %r1, %r2, -1;", "redux.sync.max.u32 %r1, 5, -1;",
                         "redux.sync.min.s32 %r1, %r2, %r3;", "redux.sync.or.b32 %r1, %r2, -1;",
                         "match.any.sync.b32 %r1, %r2, -1;", "match.sync.any.b32 %r1, 7, -1;",
                         "match.any.sync.b64 %r1, %rd2, -1;", "match.all.sync.b32 %r1|%p1, %r2, -1;",
                         "match.all.sync.b64 %r1, %rd2, %r3;", "bar.red.popc.u32 %r1, 0, %p1;",
                         "bar.red.popc.u32 %r1, 1, 64, !%p1;", "bar.red.and.pred %p2, 0, 1;",
                         "barrier.red.or.aligned.pred %p2, %r3, %p1;", "bar.cta.red.popc.u32 %r1, 0, %p1;",
                         "barrier.cta.sync.aligned 0;", "bar.cta.sync 0;"})
    EXPECT_TRUE(decodesInKernel(ok)) << ok;
  for (const char* bad : {"redux.sync.add.b32 %r1, %r2, -1;", "redux.sync.and.u32 %r1, %r2, -1;",
                          "redux.sync.add.u64 %rd1, %rd2, -1;", "redux.add.u32 %r1, %r2, -1;",
                          "redux.sync.min.f32 %r1, %r2, -1;", "match.any.sync.b32 %r1|%p1, %r2, -1;",
                          "match.any.sync.u32 %r1, %r2, -1;", "match.any.b32 %r1, %r2, -1;",
                          "match.any.sync.b64 %rd1, %rd2, -1;", "bar.red.popc.b32 %r1, 0, %p1;",
                          "bar.red.and.u32 %r1, 0, %p1;", "bar.red.popc.pred %p2, 0, %p1;",
                          "bar.red.xor.pred %p2, 0, %p1;", "bar.red.popc.aligned.u32 %r1, 0, %p1;",
                          "bar.red.popc.u32 %r1, 0, %r2;", "bar.red.popc.u32 %r1, 16, %p1;",
                          "bar.red.popc.u32 %rd1, 0, %p1;", "bar.sync.aligned 0;"})
    EXPECT_FALSE(decodesInKernel(bad)) << bad;
}

}  // namespace
}  // namespace qgpu
