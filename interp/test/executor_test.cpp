// SIMT execution: divergence and reconvergence, loops with per-lane trip
// counts, early exit, calls (including recursion), barriers and shared
// memory, local/const memory, vector accesses, atomics, warp collectives.
// Every kernel runs at warp widths 4 and 32 and must agree.
#include <gtest/gtest.h>

#include "test_util.h"

namespace qgpu {
namespace {

using test::bytesOfU32;
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

TEST(Executor, DivergentIfElseAndNestedLoops) {
  // out[t] = sum_{i<t} (i odd ? 3*i : i), with an inner loop of t iterations.
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;        // i
  mov.u32 %r3, 0;        // sum
LOOP:
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  and.b32 %r4, %r2, 1;
  setp.eq.u32 %p2, %r4, 1;
  @%p2 bra ODD;
  add.s32 %r3, %r3, %r2;
  bra NEXT;
ODD:
  mad.lo.s32 %r3, %r2, 3, %r3;
NEXT:
  add.s32 %r2, %r2, 1;
  bra LOOP;
DONE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";
  t.block = {40, 1, 1};
  t.buffers = {std::vector<uint8_t>(160)};
  auto out = runBoth(t);
  for (uint32_t tid = 0; tid < 40; ++tid) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < tid; ++i) sum += (i & 1) ? 3 * i : i;
    EXPECT_EQ(out[tid], sum) << "thread " << tid;
  }
}

TEST(Executor, EarlyExitAndGuardedStores) {
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], 1;
  setp.lt.u32 %p1, %r1, 5;
  @%p1 exit;
  setp.eq.u32 %p2, %r1, 7;
  @!%p2 st.global.u32 [%rd3], 2;
  @%p2 st.global.u32 [%rd3], 3;
  ret;
}
)";
  t.block = {9, 1, 1};
  t.buffers = {std::vector<uint8_t>(36)};
  EXPECT_EQ(runBoth(t), (std::vector<uint32_t>{1, 1, 1, 1, 1, 2, 2, 3, 2}));
}

TEST(Executor, CallsWithParamsReturnValuesAndRecursion) {
  // fact(n) computed recursively through .func with the nvcc param convention.
  TestLaunch t;
  t.ptx = header() + R"(
.func (.param .b32 func_retval0) fact(.param .b32 fact_param_0)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  ld.param.b32 %r1, [fact_param_0];
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra BASE;
  add.s32 %r2, %r1, -1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r2;
  .param .b32 retval0;
  call.uni (retval0), fact, (param0);
  ld.param.b32 %r3, [retval0+0];
  }
  mul.lo.s32 %r4, %r3, %r1;
  st.param.b32 [func_retval0+0], %r4;
  ret;
BASE:
  st.param.b32 [func_retval0+0], 1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r1;
  .param .b32 retval0;
  call.uni (retval0), fact, (param0);
  ld.param.b32 %r2, [retval0+0];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";
  t.block = {8, 1, 1};
  t.buffers = {std::vector<uint8_t>(32)};
  EXPECT_EQ(runBoth(t), (std::vector<uint32_t>{1, 1, 2, 6, 24, 120, 720, 5040}));
}

TEST(Executor, SharedMemoryTreeReductionWithBarriers) {
  TestLaunch t;
  t.ptx = header() + R"(
.shared .align 4 .b8 smem[256];
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, smem;
  add.s32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r2;
  bar.sync 0;
  mov.u32 %r6, 32;
STEP:
  setp.ge.u32 %p1, %r1, %r6;
  @%p1 bra SKIP;
  shl.b32 %r7, %r6, 2;
  add.s32 %r8, %r5, %r7;
  ld.shared.u32 %r9, [%r8];
  ld.shared.u32 %r10, [%r5];
  add.s32 %r10, %r10, %r9;
  st.shared.u32 [%r5], %r10;
SKIP:
  bar.sync 0;
  shr.u32 %r6, %r6, 1;
  setp.ne.u32 %p2, %r6, 0;
  @%p2 bra STEP;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
  ld.shared.u32 %r11, [smem];
  st.global.u32 [%rd1], %r11;
END:
  ret;
}
)";
  std::vector<uint32_t> in(64);
  uint32_t expect = 0;
  for (uint32_t i = 0; i < 64; ++i) expect += (in[i] = i * i + 1);
  t.block = {64, 1, 1};
  t.buffers = {std::vector<uint8_t>(4), bytesOfU32(in)};
  EXPECT_EQ(runBoth(t)[0], expect);
}

// bar.arrive (PTX ISA's producer/consumer model): threads 0..31 produce a value per round
// into shared memory and bar.arrive at barrier 0, then wait at barrier 1 until it is
// consumed; threads 32..63 wait at barrier 0, read, and bar.arrive at barrier 1. Every
// barrier counts 64 threads, so a phase completes only with the arrivals of the warps
// that did not wait.
TEST(Executor, BarArriveProducerConsumer) {
  TestLaunch t;
  t.ptx = header() + R"(
.shared .align 4 .b8 slot[128];
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, slot;
  add.s32 %r5, %r4, %r3;
  mov.u32 %r6, 0;
  mov.u32 %r7, 0;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra CONSUMER;
PRODUCE:
  mad.lo.s32 %r8, %r6, 100, %r2;
  st.shared.u32 [%r5], %r8;
  bar.arrive 0, 64;
  bar.sync 1, 64;
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p2, %r6, 4;
  @%p2 bra PRODUCE;
  bra.uni END;
CONSUMER:
  bar.sync 0, 64;
  ld.shared.u32 %r9, [%r5];
  add.s32 %r7, %r7, %r9;
  barrier.arrive 1, 64;
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p2, %r6, 4;
  @%p2 bra CONSUMER;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
END:
  ret;
}
)";
  t.block = {64, 1, 1};
  t.buffers = {std::vector<uint8_t>(128)};
  std::vector<uint32_t> want(32);
  for (uint32_t j = 0; j < 32; ++j) want[j] = 600 + 4 * j;  // sum over rounds i of 100 i + j
  EXPECT_EQ(runBoth(t), want);
}

// bar.arrive does not wait: the producers arrive at barrier 0, store a flag and wait at
// barrier 1, which the consumers reach first; had the arrival waited, barrier 0 (64
// threads) and barrier 1 would each hold 32 and nothing could run.
TEST(Executor, BarArriveDoesNotWait) {
  TestLaunch t;
  t.ptx = header() + R"(
.shared .align 4 .b8 flag[4];
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra CONSUMER;
  bar.arrive 0, 64;
  mov.u32 %r2, 7;
  st.shared.u32 [flag], %r2;
  bar.sync 1, 64;
  bra.uni END;
CONSUMER:
  bar.sync 1, 64;
  ld.shared.u32 %r3, [flag];
  bar.sync 0, 64;
  sub.u32 %r4, %r1, 32;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
END:
  ret;
}
)";
  t.block = {64, 1, 1};
  t.buffers = {std::vector<uint8_t>(128)};
  EXPECT_EQ(runBoth(t), std::vector<uint32_t>(32, 7u));
}

TEST(Executor, LocalArrayConstBankAndVectorAccess) {
  TestLaunch t;
  t.ptx = header() + R"(
.const .align 4 .u32 table[4] = {10, 20, 30, 40};
.visible .entry k(.param .u64 out)
{
  .local .align 16 .b8 __local_depot0[16];
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  mov.u64 %rd7, __local_depot0;
  cvta.local.u64 %rd6, %rd7;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  ld.const.v4.u32 {%r3, %r4, %r5, %r6}, [table];
  st.local.v4.u32 [%rd7], {%r3, %r4, %r5, %r6};
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd6, %rd2;
  st.u32 [%rd3], %r1;
  ld.local.u32 %r7, [%rd7];
  ld.local.u32 %r8, [%rd7+12];
  add.s32 %r9, %r7, %r8;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd1, %rd4;
  st.global.v2.u32 [%rd5], {%r9, %r2};
  ret;
}
)";
  t.block = {6, 1, 1};
  t.buffers = {std::vector<uint8_t>(48)};
  auto out = runBoth(t);
  for (uint32_t tid = 0; tid < 6; ++tid) {
    uint32_t slot = tid & 3;
    uint32_t first = slot == 0 ? tid : 10, last = slot == 3 ? tid : 40;
    EXPECT_EQ(out[2 * tid], first + last) << tid;
    EXPECT_EQ(out[2 * tid + 1], slot) << tid;
  }
}

TEST(Executor, AtomicsHistogramAndReturnOrder) {
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k(.param .u64 hist, .param .u64 tickets)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [hist];
  ld.param.u64 %rd2, [tickets];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 3;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  red.global.add.u32 [%rd4], 1;
  atom.global.add.u32 %r3, [%rd1+12], 1;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r3;
  atom.global.max.s32 %r4, [%rd1+16], %r1;
  atom.global.cas.b32 %r5, [%rd1+20], 0, 99;
  ret;
}
)";
  t.block = {10, 1, 1};
  t.buffers = {std::vector<uint8_t>(24), std::vector<uint8_t>(40)};
  for (uint32_t w : {4u, 32u}) {
    t.warp = w;
    auto outs = test::run(t);
    auto hist = u32Of(outs[0]);
    EXPECT_EQ(hist, (std::vector<uint32_t>{4, 3, 3, 10, 9, 99}));
    auto tickets = u32Of(outs[1]);
    std::sort(tickets.begin(), tickets.end());
    for (uint32_t i = 0; i < 10; ++i) EXPECT_EQ(tickets[i], i);  // each ticket handed out once
  }
}

TEST(Executor, ShuffleModesFollowTheSegmentFormula) {
  // Each lane publishes 100+lane; read with width-4 segments (c = 0x1c1f, or
  // 0x1c00 for up) so results are identical at W=4 and W=32.
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<5>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  add.s32 %r2, %r1, 100;
  shfl.sync.down.b32 %r3|%p1, %r2, 1, 0x1c1f, -1;
  shfl.sync.up.b32 %r4|%p2, %r2, 1, 0x1c00, -1;
  shfl.sync.bfly.b32 %r5|%p3, %r2, 2, 0x1c1f, -1;
  shfl.sync.idx.b32 %r6|%p4, %r2, 3, 0x1c1f, -1;
  selp.u32 %r7, 1, 0, %p1;
  selp.u32 %r8, 1, 0, %p2;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};
  st.global.v2.u32 [%rd3+16], {%r7, %r8};
  ret;
}
)";
  t.block = {8, 1, 1};
  t.buffers = {std::vector<uint8_t>(8 * 32)};
  auto out = runBoth(t);
  for (uint32_t lane = 0; lane < 8; ++lane) {
    uint32_t seg = lane & ~3u, pos = lane & 3u;
    const uint32_t* r = &out[lane * 8];
    EXPECT_EQ(r[0], 100 + (pos < 3 ? lane + 1 : lane)) << lane;  // down clamps at segment end
    EXPECT_EQ(r[1], 100 + (pos > 0 ? lane - 1 : lane)) << lane;  // up clamps at segment start
    EXPECT_EQ(r[2], 100 + (lane ^ 2)) << lane;
    EXPECT_EQ(r[3], 100 + seg + 3) << lane;
    EXPECT_EQ(r[4], pos < 3 ? 1u : 0u) << lane;
    EXPECT_EQ(r[5], pos > 0 ? 1u : 0u) << lane;
  }
}

TEST(Executor, VoteBallotAnyAll) {
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<5>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 1;
  vote.sync.ballot.b32 %r3, %p1, 0xf;
  vote.sync.any.pred %p2, %p1, 0xf;
  vote.sync.all.pred %p3, %p1, 0xf;
  vote.sync.all.pred %p4, !%p3, 0xf;
  selp.u32 %r4, 1, 0, %p2;
  selp.u32 %r5, 1, 0, %p3;
  selp.u32 %r6, 1, 0, %p4;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};
  ret;
}
)";
  t.block = {4, 1, 1};
  t.buffers = {std::vector<uint8_t>(64)};
  auto out = runBoth(t);
  for (uint32_t lane = 0; lane < 4; ++lane) {
    EXPECT_EQ(out[lane * 4 + 0], 0xau);
    EXPECT_EQ(out[lane * 4 + 1], 1u);
    EXPECT_EQ(out[lane * 4 + 2], 0u);
    EXPECT_EQ(out[lane * 4 + 3], 1u);
  }
}

TEST(Executor, GroupsOfOneWarpMayUseTheirOwnMembermasks) {
  // Each 4-lane group votes with mask 0xf << (tid & ~3): at W=32 one warp
  // holds two groups with different masks, which is valid PTX.
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r6, %laneid;
  and.b32 %r2, %r6, -4;
  shl.b32 %r3, 15, %r2;
  setp.lt.u32 %p1, %r1, 6;
  vote.sync.ballot.b32 %r7, %p1, %r3;
  shr.b32 %r4, %r7, %r2;
  shfl.sync.idx.b32 %r5, %r1, 3, 0x1c1f, %r3;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r4, %r5};
  ret;
}
)";
  t.block = {8, 1, 1};
  t.buffers = {std::vector<uint8_t>(64)};
  auto out = runBoth(t);
  for (uint32_t lane = 0; lane < 8; ++lane) {
    // Group-relative ballot (shifted down by the group's first lane) of
    // the predicate tid < 6, and the value of the group's lane 3.
    uint32_t group = lane & ~3u;
    EXPECT_EQ(out[2 * lane], group == 0 ? 0xfu : 0x3u) << lane;
    EXPECT_EQ(out[2 * lane + 1], group + 3) << lane;
  }
}

TEST(Executor, SpecialRegistersAndMultiDimensionalGrid) {
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ctaid.y;
  mov.u32 %r6, %nctaid.x;
  mad.lo.s32 %r7, %r2, %r3, %r1;     // linear tid in block
  mov.u32 %r8, %ntid.y;
  mul.lo.s32 %r9, %r3, %r8;          // threads per block
  mad.lo.s32 %r10, %r5, %r6, %r4;    // linear block
  mad.lo.s32 %r11, %r10, %r9, %r7;   // global linear id
  mov.u32 %r12, %laneid;
  mov.u32 %r13, WARP_SZ;
  rem.u32 %r14, %r7, %r13;
  sub.s32 %r15, %r12, %r14;          // 0 when laneid = linear tid mod WARP_SZ
  mul.wide.u32 %rd2, %r11, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r11, %r15};
  ret;
}
)";
  t.grid = {2, 3, 1};
  t.block = {3, 2, 1};
  t.buffers = {std::vector<uint8_t>(36 * 8)};
  auto out = runBoth(t);
  for (uint32_t i = 0; i < 36; ++i) {
    EXPECT_EQ(out[2 * i], i);
    EXPECT_EQ(out[2 * i + 1], 0u);
  }
}

}  // namespace
}  // namespace qgpu
