// The decoder's layout of every address space: shared memory in three parts
// (module-scope, function-scope, then the dynamic area every extern array starts
// at), .local frames, parameter areas and the const bank; disjoint and aligned.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "qgpu/interp/error.h"
#include "qgpu/interp/ptx_parser.h"
#include "test_util.h"

namespace qgpu {
namespace {

Program decode(const std::string& body) {
  return decodeModule(ptx::parseModule(test::header() + body, "layout.ptx"));
}

struct Range {
  std::string name;
  uint64_t begin, end;
  uint32_t align;
};

std::vector<Range> sharedRanges(const Program& p, bool dynamic) {
  std::vector<Range> out;
  for (const GlobalVariable& g : p.globals)
    if (g.space == ptx::StateSpace::Shared && g.dynamicShared == dynamic)
      out.push_back({g.name, g.offset, g.offset + g.size, g.align});
  return out;
}

// nvcc's shape: a module-scope array, demoted function-scope arrays in the entry and
// in a device function, and two extern arrays (module scope only, as ptxas requires).
const char* kThreeKinds = R"(
.extern .shared .align 4 .b8 dyn_a[];
.extern .shared .align 32 .b8 dyn_b[];
.shared .align 4 .b8 module_buf[36];
.func helper()
{
  .shared .align 8 .b8 helper_buf[24];
  ret;
}
.visible .entry k()
{
  .shared .align 2 .b8 small[3];
  .shared .align 16 .b8 func_buf[40];
  call.uni helper, ();
  ret;
}
.shared .align 8 .b8 module_tail[8];
)";

TEST(MemoryLayout, StaticSharedKindsAreDisjointAndAligned) {
  Program p = decode(kThreeKinds);
  std::vector<Range> st = sharedRanges(p, false);
  ASSERT_EQ(st.size(), 5u);
  for (const Range& r : st) EXPECT_EQ(r.begin % r.align, 0u) << r.name;
  std::sort(st.begin(), st.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < st.size(); ++i)
    EXPECT_LE(st[i - 1].end, st[i].begin) << st[i - 1].name << " overlaps " << st[i].name;
  // Module-scope variables come first, then the function-scope ones.
  EXPECT_EQ(st[0].name, "module_buf");
  EXPECT_EQ(st[1].name, "module_tail");
  uint64_t end = 0;
  for (const Range& r : st) end = std::max(end, r.end);
  EXPECT_EQ(p.staticSharedBytes, end);
}

TEST(MemoryLayout, DynamicSharedStartsAfterEveryStaticArray) {
  Program p = decode(kThreeKinds);
  std::vector<Range> dyn = sharedRanges(p, true);
  ASSERT_EQ(dyn.size(), 2u);
  // Every extern array starts at the one dynamic offset, past all static bytes, aligned
  // to 16 and to the largest alignment an extern array asks for (32 here).
  EXPECT_GE(p.dynamicSharedOffset, p.staticSharedBytes);
  EXPECT_EQ(p.dynamicSharedOffset % 32, 0u);
  EXPECT_LT(p.dynamicSharedOffset, p.staticSharedBytes + 32);
  for (const Range& r : dyn) EXPECT_EQ(r.begin, p.dynamicSharedOffset) << r.name;
}

// The bug this guards: a function-scope array placed after the dynamic offset had
// been fixed, so it shared addresses with the extern array. Through execution: each
// array gets its own value, then all are read back.
TEST(MemoryLayout, FunctionScopeSharedDoesNotAliasExternShared) {
  test::TestLaunch t;
  t.dynamicShared = 16;
  t.ptx = test::header() + R"(
.extern .shared .align 16 .b8 dyn[];
.shared .align 4 .b8 mod[4];
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  .shared .align 4 .b8 fn[16];
  st.shared.u32 [mod], 1;
  st.shared.u32 [fn], 2;
  st.shared.u32 [fn+12], 3;
  st.shared.u32 [dyn], 4;
  ld.shared.u32 %r0, [mod];
  ld.shared.u32 %r1, [fn];
  ld.shared.u32 %r2, [fn+12];
  ld.shared.u32 %r3, [dyn];
  ld.param.u64 %rd0, [out];
  cvta.to.global.u64 %rd1, %rd0;
  st.global.v4.u32 [%rd1], {%r0, %r1, %r2, %r3};
  ret;
}
)";
  t.buffers = {std::vector<uint8_t>(16, 0)};
  std::vector<std::vector<uint8_t>> out = test::run(t);
  uint32_t v[4];
  std::memcpy(v, out[0].data(), 16);
  EXPECT_EQ(v[0], 1u);
  EXPECT_EQ(v[1], 2u);
  EXPECT_EQ(v[2], 3u);
  EXPECT_EQ(v[3], 4u);
}

TEST(MemoryLayout, LocalFramesParamsAndConstBankAreAligned) {
  Program p = decode(R"(
.const .align 1 .b8 c1[3] = {1, 2, 3};
.const .align 8 .u64 c8 = 5;
.visible .entry k(.param .u8 a, .param .u64 b, .param .u32 c)
{
  .local .align 1 .b8 l1[5];
  .local .align 16 .b8 l16[32];
  .param .b32 p4;
  .param .align 8 .b8 p8[16];
  ret;
}
)");
  for (const GlobalVariable& g : p.globals)
    if (g.space == ptx::StateSpace::Const) {
      EXPECT_EQ(g.offset % g.align, 0u) << g.name;
    }
  const FunctionInfo& f = p.functions.at(p.findEntry("k"));
  ASSERT_EQ(f.kernelParams.size(), 3u);
  EXPECT_EQ(f.kernelParams[1].offset % 8, 0u);
  EXPECT_EQ(f.kernelParams[2].offset % 4, 0u);
  EXPECT_GE(f.kernelParams[1].offset, f.kernelParams[0].offset + 1);
  EXPECT_EQ(f.localAlign, 16u);
  EXPECT_GE(f.localBytes, 5u + 32u);
}

TEST(MemoryLayout, StaticSharedPastTheLimitIsADecodeError) {
  try {
    decode(R"(
.shared .align 4 .b8 big[40000];
.visible .entry k()
{
  .shared .align 4 .b8 more[10000];
  ret;
}
)");
    FAIL() << "expected a decode error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Decode);
    EXPECT_NE(std::string(e.what()).find("exceed 48 KiB"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("layout.ptx"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace qgpu
