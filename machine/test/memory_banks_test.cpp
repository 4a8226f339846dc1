// Memory banks (docs/machine.md §5.3): a store commits one active lane's bytes per position,
// an atomic one lane's old and new value at a time, and the token stream must say so; the
// layout that makes addresses bank addresses.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "machine_test_util.h"
#include "memory.h"  // machine/src
#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/lower.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::machine {
namespace {

TEST(MachineBanks, AStoreTakesOnePositionPerActiveLane) {
  // Every thread's private copy of one variable: st.local from all four lanes, then st.global:
  // three WAITs and a DONE each.
  const char* ptx = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.local .align 8 .b8 	lm[256];
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<6>;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 64;
	mov.u64 	%rd4, lm;
	add.s64 	%rd5, %rd4, %rd3;
	st.local.u32 	[%rd5], %r1;
	ld.local.u32 	%r2, [%rd5];
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd5, %rd2, %rd3;
	st.global.u32 	[%rd5], %r2;
	ret;
}
)";
  test::BothResult r = test::runBoth(ptx, "k", test::oneBufferLaunch(4, 4));
  EXPECT_EQ(r.machine, r.oracle);
  size_t waits = 0, dones = 0;
  for (const std::string& m : r.trace.meanings) {
    waits += m.find("WAIT (store lane") != std::string::npos ? 1 : 0;
    dones += m.find("DONE (store lane 4/4)") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(waits, 6u);
  EXPECT_EQ(dones, 2u);
}

TEST(MachineBanks, TheWindowsAreLaidOutOneAfterTheOther) {
  const WindowLayout w = windowLayout(20, 100, 264, 1000);
  EXPECT_EQ(w.shared, 0u);     // first: an ATOMS offset is its bank address
  EXPECT_EQ(w.param, 1024u);   // 1000 bytes of shared memory, 64-byte aligned
  EXPECT_EQ(w.konst, 1088u);   // 1024 + 20 -> 1088
  EXPECT_EQ(w.local, 1216u);   // 1088 + 100 -> 1216
  EXPECT_EQ(w.globalStart, 1536u);  // 1216 + 264 -> 256-byte aligned
  EXPECT_EQ(windowBase(w, MSpace::Shared) % kBankMemoryBytes, 0u);
  EXPECT_EQ(windowLayout(0, 0, 0, 0).globalStart, kGlobalStart);  // the null page stays unused
  for (MSpace s : {MSpace::Param, MSpace::Const, MSpace::Local, MSpace::Shared})
    EXPECT_EQ(windowBase(w, s) % kBankMemoryBytes, windowBase(w, s) - windowOf(s)) << spaceName(s);
  EXPECT_EQ(windowBase(w, MSpace::Global), 0u);
  EXPECT_EQ(windowBase(w, MSpace::Generic), 0u);
}

// What the compiled machine's banks see: every byte of a corpus launch (parameters, const
// bank, one thread's local window, shared memory, module globals, buffers) at its address
// modulo 8 KiB. Where the launch fits in 8 KiB no two bytes meet; the rest are counted.
TEST(MachineBanks, EveryCorpusLaunchThatFitsHasDistinctBankAddresses) {
  size_t fits = 0, not_ = 0;
  std::string over;
  for (const test::CorpusCase& c : test::corpusCases()) {
    const LaunchSpec spec = loadLaunchSpec(c.dir);
    MachineProgram p;
    try {
      p = lowerKernel(loadProgram(spec.ptxPath(c.flavour)), spec.entry,
                      lowerFor(spec.grid, spec.block, spec.dynamicSharedBytes));
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Decode) throw;
      continue;  // does not lower (docs/machine.md §2.4)
    }
    const MachineLaunch l = machineLaunch(p, materializeLaunch(spec));
    std::vector<std::pair<uint64_t, uint64_t>> spans = {
        {windowBase(p.windows, MSpace::Param), l.params.size()},
        {windowBase(p.windows, MSpace::Const), p.constBank.size()},
        {windowBase(p.windows, MSpace::Local), p.localBytes},
        {windowBase(p.windows, MSpace::Shared), uint64_t{p.staticSharedBytes} + l.dynamicSharedBytes}};
    for (size_t i = 0; i < p.moduleGlobals.size(); ++i) spans.push_back({p.moduleGlobalAddr[i], p.moduleGlobals[i].size()});
    for (size_t i = 0; i < l.buffers.size(); ++i) spans.push_back({l.bufferAddr[i], l.buffers[i].size()});
    uint64_t bytes = 0, end = 0;
    std::vector<int> seen(kBankMemoryBytes, 0);
    bool meet = false;
    for (const auto& [at, n] : spans) {
      bytes += n;
      if (at < kGlobalLimit) end = std::max(end, at + n);
      for (uint64_t x = at; x < at + n; ++x) meet = meet || seen[x % kBankMemoryBytes]++ != 0;
    }
    if (end <= kBankMemoryBytes) {
      ++fits;
      EXPECT_FALSE(meet) << test::corpusCaseName(c) << ": two bytes at one bank address (" << bytes << " bytes)";
    } else {
      ++not_;
      over += " " + test::corpusCaseName(c);
      EXPECT_GT(bytes + 64 * spans.size(), uint64_t{kBankMemoryBytes} / 2) << test::corpusCaseName(c) << ": a small launch laid out beyond 8 KiB";
    }
  }
  // Measured: all 94 lowered runs fit. (A lane copy holds one local window here: the windows
  // of one lane's threads in several warps still meet — not laid out yet, docs/machine.md §8.)
  EXPECT_GE(fits, 90u);
  RecordProperty("fit", static_cast<int>(fits));
  std::cout << "[ banks ] " << fits << " corpus launches fit 8 KiB with distinct bank addresses; beyond it:" << over << "\n";
}

// A store's second lane's position.
TEST(MachineBanks, ReplayNeedsOneTokenPerStoreLane) { test::expectReplayNeeds("vector_add", "store lane 2/"); }

// Four lanes add to one word: lane-serial in lane order, each lane's old value the word as
// the lane before it left it; d takes each lane's old value at its last token.
TEST(MachineBanks, AnAtomicTakesEachLanesOldAndNewValueInLaneOrder) {
  const char* ptx = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<5>;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	add.s32 	%r2, %r1, 1;
	atom.global.add.u32 	%r3, [%rd2], %r2;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4+4], %r3;
	ret;
}
)";
  test::BothResult r = test::runBoth(ptx, "k", test::oneBufferLaunch(4, 5));
  EXPECT_EQ(r.machine, r.oracle);
  EXPECT_EQ(test::word(r.machine.at(0), 0), 10u);  // 1 + 2 + 3 + 4
  for (uint32_t l = 0; l < 4; ++l) EXPECT_EQ(test::word(r.machine.at(0), 1 + l), l * (l + 1) / 2) << "lane " << l;
  std::vector<std::string> atomic;
  for (const std::string& m : r.trace.meanings)
    if (m.find("ATOM") != std::string::npos) atomic.push_back(m);
  ASSERT_EQ(atomic.size(), 10u);  // ATOMIC, an old and a new value per lane (one token each), DONE
  EXPECT_NE(atomic[0].find("ATOMIC"), std::string::npos) << atomic[0];
  for (uint32_t l = 0; l < 4; ++l) {
    EXPECT_NE(atomic[1 + 2 * l].find(fmt::format("lane {} ({}/4): old value", l, l + 1)), std::string::npos) << atomic[1 + 2 * l];
    EXPECT_NE(atomic[2 + 2 * l].find(fmt::format("lane {} ({}/4): new memory value", l, l + 1)), std::string::npos)
        << atomic[2 + 2 * l];
  }
  EXPECT_NE(atomic[9].find("DONE (atomic; "), std::string::npos) << atomic[9];
}

// A guard that turns lanes off is spelled before ATOMIC (the compiled register copies take the
// lanes from the tokens); the lanes it turns off keep their d.
TEST(MachineBanks, AGuardedAtomicSpellsItsLanesBeforeAtomic) {
  const char* ptx = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	add.s32 	%r2, %r1, 1;
	mov.u32 	%r3, 100;
	and.b32 	%r4, %r1, 1;
	setp.ne.s32 	%p1, %r4, 0;
	@%p1 atom.global.add.u32 	%r3, [%rd2], %r2;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4+4], %r3;
	ret;
}
)";
  test::BothResult r = test::runBoth(ptx, "k", test::oneBufferLaunch(4, 5));
  EXPECT_EQ(r.machine, r.oracle);
  EXPECT_EQ(test::word(r.machine.at(0), 0), 6u);  // lanes 1 and 3 add 2 and 4
  const std::vector<uint32_t> d = {100, 0, 100, 2};  // lanes 0 and 2 keep their d
  for (uint32_t l = 0; l < 4; ++l) EXPECT_EQ(test::word(r.machine.at(0), 1 + l), d[l]) << "lane " << l;
  size_t atomicAt = r.trace.meanings.size();
  for (size_t i = 0; i < r.trace.meanings.size(); ++i)
    if (r.trace.meanings[i].find("ATOMIC") != std::string::npos) atomicAt = i;
  ASSERT_LT(atomicAt, r.trace.meanings.size());
  ASSERT_GT(atomicAt, 0u);
  EXPECT_EQ(r.trace.tokens[atomicAt - 1], kActive + 0xa) << r.trace.meanings[atomicAt - 1];
}

// The lowering gives every atomic a d and (but for CAS) a c of its own — registers apart from
// a and b and from each other, also after register allocation — where the compiled machine
// commits each lane's old and new value (docs/machine.md §5.3).
TEST(MachineBanks, EveryAtomicHasRegistersForItsOldAndNewValues) {
  size_t atomics = 0;
  for (const char* kernel : {"histogram", "atomics_int", "prime_sieve", "radix_pass"}) {
    const test::CorpusExecution run = test::executeCorpusKernel(kernel);
    for (const MInstr& in : run.program.code) {
      if (opInfo(in.op).exec != MExec::Atomic) continue;
      ++atomics;
      const std::string what = std::string(kernel) + ": " + disassemble(in);
      EXPECT_LT(in.d, run.program.numRegs) << what;
      EXPECT_NE(in.d, in.a) << what;
      EXPECT_NE(in.d, in.b) << what;
      EXPECT_NE(in.d, in.c) << what;
      if (in.fl == static_cast<uint8_t>(MAtom::Cas)) continue;
      EXPECT_LT(in.c, run.program.numRegs) << what;
      EXPECT_NE(in.c, in.a) << what;
      EXPECT_NE(in.c, in.b) << what;
    }
  }
  // 7: since session 18 only integer adds are ATOM steps (histogram's, atomics_int's one,
  // prime_sieve's, radix_pass's); the other ops are lane-serial micro-code (docs/machine.md §2.1)
  EXPECT_EQ(atomics, 7u);
}

// A lane's new value missing, or either value edited, is refused by the decoder.
TEST(MachineBanks, ReplayNeedsEveryAtomicLanesValues) {
  test::expectReplayNeeds("histogram", "(2/4): new memory value");
  test::expectReplayNeeds("histogram", "(3/4): old value");
  const test::CorpusExecution run = test::executeCorpusKernel("histogram");
  const Trace& trace = run.result.trace;
  for (const char* what : {"old value", "new memory value"}) {
    const size_t at = test::firstTokenMeaning(trace, {what, "token 1/1"});
    ASSERT_LT(at, trace.meanings.size()) << what;
    std::vector<uint32_t> edited = trace.tokens;
    // Another one-token value in its place (same length: only the value is wrong).
    edited[at] = valueTokens(0, 4)[0] != edited[at] ? valueTokens(0, 4)[0] : valueTokens(1, 4)[0];
    try {
      replay(run.program, run.launch, edited);
      ADD_FAILURE() << "an edited " << what << " was accepted: " << trace.meanings[at];
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace qgpu::machine
