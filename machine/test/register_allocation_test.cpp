// Register allocation (machine/src/register_allocation.h, docs/machine.md §2.5): every
// lowered corpus run generates the same tokens and the same outputs with and without it, in
// fewer registers, and each launch's warps × registers fits the register file the compiled
// step holds; hand-written cases for what per-thread liveness must respect (a guarded write
// kills nothing, a register read before any write on one path still reads 0 there).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>

#include "machine_test_util.h"
#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/lower.h"

namespace qgpu::machine {
namespace {

// The compiled register file per lane and read-port copy: 4 DeltaNet heads of 128 slots
// (docs/machine.md §5.2), shared by the warps of a block.
constexpr uint32_t kCompiledRegisterSlots = 4 * 128;

struct Lowered {
  MachineProgram allocated, unallocated;
};
Lowered lowerBothWays(const Program& p, const std::string& entry, uint32_t dynamicSharedBytes) {
  LowerOptions on;
  on.dynamicSharedBytes = dynamicSharedBytes;
  LowerOptions off = on;
  off.allocateRegisters = false;
  return {lowerKernel(p, entry, on), lowerKernel(p, entry, off)};
}

// Both programs on one launch: the same tokens and the same buffers.
void expectSameRun(const Lowered& l, const Launch& launch, const std::string& what) {
  const MachineResult a = execute(l.allocated, machineLaunch(l.allocated, launch));
  const MachineResult u = execute(l.unallocated, machineLaunch(l.unallocated, launch));
  EXPECT_EQ(a.trace.tokens, u.trace.tokens) << what << ": the allocated registers change the token stream";
  EXPECT_EQ(a.buffers, u.buffers) << what << ": the allocated registers change the outputs";
  EXPECT_EQ(l.allocated.unallocatedRegs, l.unallocated.numRegs) << what;
  EXPECT_LE(l.allocated.numRegs, l.unallocated.numRegs) << what;
}

TEST(RegisterAllocation, TheCorpusRunsAsBeforeInFewerRegisters) {
  size_t runs = 0, before = 0, after = 0, worstBefore = 0, worstAfter = 0, mostBefore = 0, mostAfter = 0;
  std::string worst, most;
  for (const test::CorpusCase& c : test::corpusCases()) {
    LaunchSpec spec = loadLaunchSpec(c.dir);
    const Program p = loadProgram(spec.ptxPath(c.flavour));
    Lowered l;
    try {
      l = lowerBothWays(p, spec.entry, spec.dynamicSharedBytes);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Decode) throw;
      continue;  // does not lower (docs/machine.md §2.4)
    }
    const Launch launch = materializeLaunch(spec);
    const std::string name = test::corpusCaseName(c);
    expectSameRun(l, launch, name);
    const size_t warps = (launch.block.count() + kLanes - 1) / kLanes;
    EXPECT_LE(warps * l.allocated.numRegs, kCompiledRegisterSlots)
        << name << ": " << warps << " warps of " << l.allocated.numRegs << " registers";
    ++runs;
    before += l.unallocated.numRegs;
    after += l.allocated.numRegs;
    worstBefore = std::max(worstBefore, warps * l.unallocated.numRegs);
    mostBefore = std::max<size_t>(mostBefore, l.unallocated.numRegs);
    if (l.allocated.numRegs > mostAfter) {
      mostAfter = l.allocated.numRegs;
      most = name;
    }
    if (warps * l.allocated.numRegs > worstAfter) {
      worstAfter = warps * l.allocated.numRegs;
      worst = name;
    }
  }
  EXPECT_GE(runs, 90u);
  EXPECT_LT(after * 4, before);  // the lowering's one register per PTX register is far from what is live
  RecordProperty("registers_before", static_cast<int>(before));
  RecordProperty("registers_after", static_cast<int>(after));
  std::cout << fmt::format("[ regalloc ] {} runs: {} registers -> {}; in one kernel at most {} -> {} ({}); warps x "
                           "registers at most {} -> {} ({})\n",
                           runs, before, after, mostBefore, mostAfter, most, worstBefore, worstAfter, worst);
}

// PTX written for the cases: each kernel stores one word per thread and slot of `out`.
std::string kernel(const std::string& body) {
  return ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 out) {\n"
         "  .reg .pred %p<4>;\n  .reg .b32 %r<64>;\n  .reg .f32 %f<4>;\n  .reg .b64 %rd<8>;\n  .reg .f64 %fd<4>;\n"
         "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n  mov.u32 %r1, %tid.x;\n"
         "  mul.wide.u32 %rd2, %r1, 8;\n  add.u64 %rd2, %rd1, %rd2;\n" +
         body + "  ret;\n}\n";
}

// Runs `ptx` on the machine (allocated) against the interpreter, and allocated against
// unallocated; returns the programs and the machine's output buffer.
struct Checked {
  Lowered lowered;
  std::vector<uint8_t> out;
};
Checked check(const std::string& ptx, const std::string& what) {
  const Launch launch = test::oneBufferLaunch(4, 8);
  const test::BothResult both = test::runBoth(ptx, "k", launch);
  EXPECT_EQ(both.machine, both.oracle) << what << ": the machine vs the interpreter";
  Checked c{lowerBothWays(test::decodeText(ptx), "k", 0), both.machine.at(0)};
  expectSameRun(c.lowered, launch, what);
  return c;
}

TEST(RegisterAllocation, AGuardedWriteKillsNothing) {
  // %r2's first value survives the guarded write in lanes 1..3, so %r3 (live only before
  // the guarded write) must not take its register.
  const Lowered l = check(kernel("  add.u32 %r2, %r1, 10;\n  add.u32 %r3, %r1, 30;\n"
                                 "  st.global.u32 [%rd2+4], %r3;\n  setp.eq.u32 %p1, %r1, 0;\n"
                                 "  @%p1 add.u32 %r2, %r1, 20;\n  st.global.u32 [%rd2], %r2;\n"),
                          "guarded write").lowered;
  EXPECT_LT(l.allocated.numRegs, l.unallocated.numRegs);
}

TEST(RegisterAllocation, AValueWrittenOnOnePathReadsZeroOnTheOther) {
  // %r6 is written only where tid < 2 and read after the join: the other lanes read 0 (the
  // oracle's and the machine's initial value), so %r5, written on their path, must not take
  // its register.
  const Checked c = check(kernel("  setp.lt.u32 %p1, %r1, 2;\n  @%p1 bra A;\n  add.u32 %r5, %r1, 7;\n"
                                 "  st.global.u32 [%rd2+4], %r5;\n  bra.uni J;\nA:\n  add.u32 %r6, %r1, 99;\n"
                                 "J:\n  st.global.u32 [%rd2], %r6;\n"),
                          "partly written");
  for (uint32_t t = 0; t < 4; ++t) EXPECT_EQ(test::word(c.out, 2 * t), t < 2 ? t + 99 : 0u) << "thread " << t;
}

TEST(RegisterAllocation, AChainOfTemporariesNeedsTwoRegistersBesideTheLiveOnes) {
  std::string body = "  add.u32 %r2, %r1, 1;\n";
  for (uint32_t i = 3; i < 60; ++i) body += fmt::format("  mul.lo.u32 %r{}, %r{}, 3;\n", i, i - 1);
  body += "  st.global.u32 [%rd2], %r59;\n";
  const Lowered l = check(kernel(body), "chain").lowered;
  EXPECT_GE(l.unallocated.numRegs, 58u);
  EXPECT_LE(l.allocated.numRegs, 5u);  // the address, the tid, and two links of the chain
}

TEST(RegisterAllocation, AWidthCodeIsNoRegister) {
  // F2I's c is the destination's width code (2: four bytes), not a register; with two
  // registers left the executor once read it as r2, which does not exist (found by the
  // differential fuzzer, tools/fuzz/repro/clang14_cvt_poison.cu, with an f64 source — since
  // session 18 that conversion is ALU micro-code, so an f32 source keeps the F2I step here).
  const Checked c = check(kernel("  mov.f32 %f1, 0f7149F2CA;\n  cvt.rzi.s32.f32 %r5, %f1;\n"
                                 "  st.global.u32 [%rd2], %r5;\n"),
                          "width code");
  size_t f2i = 0;
  for (const MInstr& m : c.lowered.allocated.code) f2i += m.op == MOp::F2I;
  EXPECT_EQ(f2i, 1u);
  EXPECT_LE(c.lowered.allocated.numRegs, 2u);
  EXPECT_EQ(test::word(c.out, 0), 0x7fffffffu);  // 1e30 saturates
}

}  // namespace
}  // namespace qgpu::machine
