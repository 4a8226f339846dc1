// Bad launches and bad programs at run time: each is an error of the right
// kind whose message names where (block, thread, pc, PTX line) and why.
#include <gtest/gtest.h>

#include "qgpu/interp/error.h"
#include "qgpu/interp/launch.h"
#include "qgpu/interp/ptx_parser.h"
#include "test_util.h"

namespace qgpu {
namespace {

using test::header;
using test::TestLaunch;

struct Caught {
  ErrorKind kind;
  std::string message;
};

Caught runExpectingError(const TestLaunch& t) {
  try {
    test::run(t);
  } catch (const Error& e) {
    return {e.kind(), e.what()};
  }
  ADD_FAILURE() << "expected an error";
  return {ErrorKind::Input, ""};
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const char* kStoreAtIndex = R"(
.visible .entry k(.param .u64 out, .param .u32 idx)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [idx];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], 7;
  ret;
}
)";

TEST(RuntimeErrors, OutOfBoundsGlobalStoreNamesBufferAndThread) {
  TestLaunch t;
  t.ptx = header() + kStoreAtIndex;
  t.buffers = {std::vector<uint8_t>(16)};
  t.scalars = {4};
  Caught c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Memory);
  EXPECT_TRUE(has(c.message, "out-of-bounds global store of 4 bytes")) << c.message;
  EXPECT_TRUE(has(c.message, "buffer 'buf0'")) << c.message;
  EXPECT_TRUE(has(c.message, "(16 bytes), access is at offset 16")) << c.message;
  EXPECT_TRUE(has(c.message, "block (0,0,0) thread (0,0,0)")) << c.message;
  EXPECT_TRUE(has(c.message, "test.ptx:13: st.global.u32 [%rd3], 7;")) << c.message;
}

TEST(RuntimeErrors, MisalignedAccess) {
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  add.s64 %rd2, %rd1, 2;
  st.global.u32 [%rd2], 1;
  ret;
}
)";
  t.buffers = {std::vector<uint8_t>(16)};
  Caught c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Memory);
  EXPECT_TRUE(has(c.message, "misaligned global store of 4 bytes")) << c.message;
  EXPECT_TRUE(has(c.message, "needs 4-byte alignment")) << c.message;
}

TEST(RuntimeErrors, OutOfBoundsSharedAndLocal) {
  TestLaunch t;
  t.ptx = header() + R"(
.shared .align 4 .b8 smem[16];
.visible .entry k()
{
  .reg .b32 %r<3>;
  mov.u32 %r1, smem;
  st.shared.u32 [%r1+16], 1;
  ret;
}
)";
  Caught c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Memory);
  EXPECT_TRUE(has(c.message, "out-of-bounds shared store")) << c.message;
  EXPECT_TRUE(has(c.message, "shared memory is 16 bytes")) << c.message;

  t.ptx = header() + R"(
.visible .entry k()
{
  .local .align 4 .b8 depot[8];
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  mov.u64 %rd1, depot;
  ld.local.u32 %r1, [%rd1+8];
  ret;
}
)";
  c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Memory);
  EXPECT_TRUE(has(c.message, "out-of-bounds local load")) << c.message;
}

TEST(RuntimeErrors, NullPointer) {
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k()
{
  .reg .b64 %rd<3>;
  mov.u64 %rd1, 0;
  st.global.u32 [%rd1], 1;
  ret;
}
)";
  Caught c = runExpectingError(t);
  EXPECT_TRUE(has(c.message, "null pointer")) << c.message;
}

TEST(RuntimeErrors, MissingEntryAndParameterMismatch) {
  TestLaunch t;
  t.ptx = header() + kStoreAtIndex;
  t.entry = "nope";
  Caught c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Launch);
  EXPECT_EQ(c.message, "test.ptx: no .entry named 'nope' (entries: k)");

  t.entry = "k";
  t.buffers = {std::vector<uint8_t>(16)};
  t.scalars = {};
  c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Launch);
  EXPECT_EQ(c.message, "launch of 'k': 1 arguments given, the kernel has 2 parameters");

  t.buffers = {std::vector<uint8_t>(16), std::vector<uint8_t>(4)};  // a buffer where a u32 is expected
  c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Launch);
  EXPECT_TRUE(has(c.message, "argument 1 ('buf1') is 8 bytes, parameter 1 ('idx', .u32) is 4 bytes")) << c.message;
}

// A parameter wider than 8 bytes (.v2.u64) given a 16-byte scalar: refused, not copied from a
// 64-bit value (found by fuzz_ptx as a stack-buffer-overflow under ASan).
TEST(RuntimeErrors, AScalarArgumentWiderThan8BytesIsRefused) {
  const Program program = decodeModule(ptx::parseModule(header() + R"(
.visible .entry k(.param .v2.u64 p)
{
  ret;
}
)", "test.ptx"));
  Launch launch;
  LaunchArg arg;
  arg.name = "p";
  arg.scalarBytes = 16;
  launch.args.push_back(arg);
  try {
    runLaunch(program, "k", launch, LaunchOptions{});
    ADD_FAILURE() << "a 16-byte scalar was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Launch);
    EXPECT_TRUE(has(e.what(), "argument 0 ('p') is a 16-byte scalar: scalar arguments are 1 to 8 bytes")) << e.what();
  }
}

TEST(RuntimeErrors, BarrierDeadlockAcrossWarps) {
  // Threads 0..3 wait at barrier 0, threads 4..7 at barrier 1: neither completes.
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 4;
  @%p1 bra LOW;
  bar.sync 1;
  ret;
LOW:
  bar.sync 0;
  ret;
}
)";
  t.block = {8, 1, 1};
  t.warp = 4;
  Caught c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Deadlock);
  EXPECT_TRUE(has(c.message, "warps wait at different barriers")) << c.message;
  EXPECT_TRUE(has(c.message, "waits at barrier 0")) << c.message;
  EXPECT_TRUE(has(c.message, "waits at barrier 1")) << c.message;
  // Within one warp (W=32) the same program is a divergent barrier.
  t.warp = 32;
  c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Deadlock);
  EXPECT_TRUE(has(c.message, "can never arrive")) << c.message;
}

TEST(RuntimeErrors, BarrierAfterSomeThreadsExitedCompletes) {
  // Exited threads are not waited for (Volta+ semantics).
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 4;
  @%p1 exit;
  bar.sync 0;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], 1;
  ret;
}
)";
  t.block = {8, 1, 1};
  t.buffers = {std::vector<uint8_t>(32)};
  for (uint32_t w : {4u, 32u}) {
    t.warp = w;
    EXPECT_EQ(test::u32Of(test::run(t)[0]), (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  }
}

TEST(RuntimeErrors, RunawayLoopHitsStepLimit) {
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k()
{
  .reg .b32 %r<3>;
SPIN:
  add.s32 %r1, %r1, 1;
  bra SPIN;
}
)";
  t.maxSteps = 1000;
  Caught c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::StepLimit);
  EXPECT_TRUE(has(c.message, "step limit of 1000 warp instructions exceeded")) << c.message;
  EXPECT_TRUE(has(c.message, "block (0,0,0) warp 0")) << c.message;
}

TEST(RuntimeErrors, ShuffleFromInactiveLaneIsUndefined) {
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  shfl.sync.idx.b32 %r2, %r1, 3, 0x1f, 0x7;
  ret;
}
)";
  t.block = {3, 1, 1};
  Caught c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Undefined);
  EXPECT_TRUE(has(c.message, "shfl.sync reads lane 3, which is not an active member")) << c.message;
}

TEST(RuntimeErrors, TrapStopsTheLaunch) {
  TestLaunch t;
  t.ptx = header() + ".visible .entry k()\n{\n  trap;\n}\n";
  Caught c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Trap);
}

// Counted barriers: a count the block never reaches, and two counts on one barrier.
TEST(RuntimeErrors, BarrierCountsThatCannotComplete) {
  TestLaunch t;
  t.ptx = header() + R"(
.visible .entry k()
{
  bar.sync 0, 64;
  ret;
}
)";
  t.block = {32, 1, 1};
  for (uint32_t w : {4u, 32u}) {
    t.warp = w;
    Caught c = runExpectingError(t);
    EXPECT_EQ(c.kind, ErrorKind::Deadlock);
    EXPECT_TRUE(has(c.message, "barrier 0 waits for 64 threads and 32 arrived")) << c.message;
  }
  t.ptx = header() + R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra LOW;
  bar.sync 2, 64;
  ret;
LOW:
  bar.arrive 2, 96;
  ret;
}
)";
  t.block = {64, 1, 1};
  t.warp = 32;
  Caught c = runExpectingError(t);
  EXPECT_EQ(c.kind, ErrorKind::Undefined);
  EXPECT_TRUE(has(c.message, "barrier 2 is used with different thread counts in one phase")) << c.message;
}

}  // namespace
}  // namespace qgpu
