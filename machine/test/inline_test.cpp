// Calls: the lowering inlines .func bodies at their call sites (docs/machine.md §2.1). The
// machine must equal the oracle — which runs real calls with frames, param areas and a
// call-base SIMT entry — on compiler output of both flavours and on hand-written PTX with
// guarded and divergent returns, nested and guarded calls, narrow signed parameters, an
// exit inside a callee and a return value a callee sometimes does not store. Recursive
// calls are not inlined (recursion_test.cpp); the machine's limits are errors naming the
// instruction.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "machine_test_util.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/lower.h"

namespace qgpu::machine::test {
namespace {

std::string readFile(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path;
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string lowerError(const std::string& ptx, const std::string& entry = "k") {
  Program p = decodeText(ptx);
  try {
    lowerKernel(p, entry);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Decode);
    return e.what();
  }
  return "";
}

// machine/test/data/calls.cu compiled by nvcc and clang (the non-recursive calls of
// kernels/noinline_call, an early-returning callee, nested calls, s8/s16 parameters, .local
// arrays in a callee and in its caller), launched like noinline_call: one block of 32.
class CompiledCalls : public ::testing::TestWithParam<const char*> {};

TEST_P(CompiledCalls, MatchTheOracleBitForBit) {
  std::string ptx = readFile(std::string(QGPU_SOURCE_DIR) + "/machine/test/data/calls." + GetParam() + ".ptx");
  std::mt19937 rng(36);
  Launch l;
  l.block = {32, 1, 1};
  LaunchBuffer in{"in", std::vector<uint8_t>(4 * 32)}, f{"f", std::vector<uint8_t>(4 * 64)};
  for (size_t i = 0; i < 32; ++i) {
    uint32_t v = static_cast<uint32_t>(rng());
    std::memcpy(in.data.data() + 4 * i, &v, 4);
  }
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  for (size_t i = 0; i < 64; ++i) {
    float v = dist(rng);
    std::memcpy(f.data.data() + 4 * i, &v, 4);
  }
  l.buffers = {in, f, {"out", std::vector<uint8_t>(4 * 32)}, {"fout", std::vector<uint8_t>(4 * 32)},
               {"nested", std::vector<uint8_t>(4 * 32)}};
  for (uint32_t i = 0; i < 5; ++i) l.args.push_back(bufferArg(i));
  BothResult r = runBoth(ptx, "calls", l);
  EXPECT_EQ(r.oracle, r.machine);
  EXPECT_EQ(r.oracle, r.replayed);
  for (size_t b = 2; b < 5; ++b) {  // every output was written
    int nonzero = 0;
    for (size_t i = 0; i < 32; ++i) nonzero += word(r.machine[b], i) != 0;
    EXPECT_GE(nonzero, 30) << "buffer " << b;
  }
  // Siblings (the five inlined copies of mix, the nine of early) share machine registers.
  bool shared = false;
  for (const std::string& name : r.program.regNames) shared = shared || name.find(" | ") != std::string::npos;
  EXPECT_TRUE(shared);
  EXPECT_LE(r.program.numRegs, kNumRegs);
  // The static PTX count covers the entry and each function once.
  Program p = decodeText(ptx);
  uint32_t all = 0;
  for (const FunctionInfo& fi : p.functions) all += fi.endPc - fi.entryPc;
  EXPECT_EQ(r.program.ptxInstructions, all);
}

INSTANTIATE_TEST_SUITE_P(Flavours, CompiledCalls, ::testing::Values("sm_75", "clang"));

// tri(n) = 0 + 1 + ... + (n-1), but returns early (guarded `ret` inside the loop, without
// storing its result: the caller then reads 0) once the sum exceeds 20. twice(a, b) calls tri
// twice (nested calls, two call sites) and swaps its result with the neighbour lane (shfl in
// a callee). widen takes an s8 and an s16 parameter. quit exits lane 2.
const char* kCallsPtx = R"(.version 7.0
.target sm_75
.address_size 64

.func (.param .b32 func_retval0) tri(.param .b32 tri_param_0)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	ld.param.u32 %r1, [tri_param_0];
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
LOOP:
	setp.ge.u32 %p1, %r3, %r1;
	@%p1 bra DONE;
	add.s32 %r2, %r2, %r3;
	setp.gt.u32 %p2, %r2, 20;
	@%p2 ret;
	add.s32 %r3, %r3, 1;
	bra.uni LOOP;
DONE:
	st.param.b32 [func_retval0+0], %r2;
	ret;
}

.func (.param .b32 func_retval0) twice(.param .b32 twice_param_0, .param .b32 twice_param_1)
{
	.reg .b32 %r<10>;
	ld.param.u32 %r1, [twice_param_0];
	ld.param.u32 %r2, [twice_param_1];
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), tri, (param0);
	ld.param.b32 %r3, [retval0+0];
	}
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r2;
	.param .b32 retval0;
	call.uni (retval0), tri, (param0);
	ld.param.b32 %r4, [retval0+0];
	}
	mad.lo.s32 %r5, %r3, 100, %r4;
	shfl.sync.bfly.b32 %r6, %r5, 1, 31, -1;
	st.param.b32 [func_retval0+0], %r6;
	ret;
}

.func (.param .b32 func_retval0) widen(.param .b32 widen_param_0, .param .b32 widen_param_1)
{
	.reg .b16 %rs<3>;
	.reg .b32 %r<5>;
	ld.param.s8 %rs1, [widen_param_0];
	ld.param.s16 %r1, [widen_param_1];
	cvt.s32.s16 %r2, %rs1;
	mad.lo.s32 %r3, %r2, 1000, %r1;
	st.param.b32 [func_retval0+0], %r3;
	ret;
}

.func quit(.param .b32 quit_param_0)
{
	.reg .pred %p1;
	.reg .b32 %r1;
	ld.param.u32 %r1, [quit_param_0];
	setp.eq.u32 %p1, %r1, 2;
	@%p1 exit;
	ret;
}

.visible .entry k(.param .u64 k_out)
{
	.reg .pred %p<4>;
	.reg .b16 %rs<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [k_out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 16;
	add.s64 %rd4, %rd2, %rd3;
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
L1:
	mad.lo.s32 %r4, %r2, 3, %r1;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r4;
	.param .b32 retval0;
	call.uni (retval0), tri, (param0);
	ld.param.b32 %r5, [retval0+0];
	}
	mad.lo.s32 %r3, %r3, 1000, %r5;
	add.s32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, 3;
	@%p1 bra L1;
	st.global.u32 [%rd4], %r3;
	add.s32 %r6, %r1, 5;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	.param .b32 param1;
	st.param.b32 [param1+0], %r6;
	.param .b32 retval0;
	call.uni (retval0), twice, (param0, param1);
	ld.param.b32 %r7, [retval0+0];
	}
	st.global.u32 [%rd4+4], %r7;
	mad.lo.s32 %r8, %r1, 77, 100;
	cvt.u16.u32 %rs1, %r8;
	mul.lo.s32 %r9, %r1, -3001;
	cvt.u16.u32 %rs2, %r9;
	and.b32 %r10, %r1, 1;
	setp.eq.u32 %p2, %r10, 1;
	{
	.param .b32 param0;
	st.param.b8 [param0+0], %rs1;
	.param .b32 param1;
	st.param.b16 [param1+0], %rs2;
	.param .b32 retval0;
	@%p2 call.uni (retval0), widen, (param0, param1);
	ld.param.b32 %r11, [retval0+0];
	}
	st.global.u32 [%rd4+8], %r11;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	call.uni quit, (param0);
	}
	add.s32 %r12, %r1, 40;
	st.global.u32 [%rd4+12], %r12;
	ret;
}
)";

TEST(MachineInline, CallsMatchTheOracle) {
  BothResult r = runBoth(kCallsPtx, "k", oneBufferLaunch(4, 16));
  ASSERT_EQ(r.oracle.size(), 1u);
  EXPECT_EQ(r.oracle, r.machine);
  EXPECT_EQ(r.oracle, r.replayed);
  auto tri = [](uint32_t n) -> uint32_t {  // 0 when it returns early
    uint32_t s = 0;
    for (uint32_t i = 0; i < n; ++i) {
      s += i;
      if (s > 20) return 0;
    }
    return s;
  };
  const std::vector<uint8_t>& out = r.machine[0];
  for (uint32_t t = 0; t < 4; ++t) {
    uint32_t loop = 0;
    for (uint32_t k = 0; k < 3; ++k) loop = loop * 1000 + tri(t + 3 * k);
    EXPECT_EQ(word(out, 4 * t), loop) << "lane " << t;  // lane 3: 3, 15 (0+..+5), then 0 for 9
    uint32_t partner = t ^ 1;
    EXPECT_EQ(word(out, 4 * t + 1), tri(partner) * 100 + tri(partner + 5)) << "lane " << t;
    int32_t widened = (t & 1) ? static_cast<int8_t>(t * 77 + 100) * 1000 + static_cast<int16_t>(t * -3001) : 0;
    EXPECT_EQ(static_cast<int32_t>(word(out, 4 * t + 2)), widened) << "lane " << t;
    EXPECT_EQ(word(out, 4 * t + 3), t == 2 ? 0u : t + 40) << "lane " << t;  // lane 2 exits in quit
  }
}

TEST(MachineInline, ReturnIsABranchToTheContinuation) {
  BothResult r = runBoth(kCallsPtx, "k", oneBufferLaunch(4, 16));
  // The guarded `ret` inside tri's loop is a guarded BRA whose target is its own join point
  // (the continuation); tri's final `ret` falls through to it and takes no instruction.
  int guardedToJoin = 0, exits = 0, fromRet = 0;
  for (size_t pc = 0; pc < r.program.code.size(); ++pc) {
    const MInstr& in = r.program.code[pc];
    const std::string& text = r.program.ptxText[pc];
    if (in.op == MOp::Bra && in.g != kNoOperand && in.b == in.c && text.find("@%p2 ret;") != std::string::npos)
      ++guardedToJoin;
    fromRet += text.find(": ret;") != std::string::npos;
    exits += in.op == MOp::Exit;
  }
  EXPECT_EQ(guardedToJoin, 3);  // tri is inlined three times: in the loop and twice in twice
  EXPECT_EQ(exits, 2);          // quit's exit and the entry's ret
  EXPECT_EQ(fromRet, 1);        // the callees' final rets fall through: only the entry's is kept
}

TEST(MachineInline, ParametersAreRegistersAndCostNothingWhenCopiesPropagate) {
  // f(x) = x * 3 + 1 from two call sites: st.param / ld.param become movs that the dataflow
  // pass removes, so only the arithmetic remains. The two results are both live after the
  // second call, so the copies of f must not share their result registers.
  std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 func_retval0) f(.param .b32 f_param_0)
{
	.reg .b32 %r<4>;
	ld.param.u32 %r1, [f_param_0];
	mad.lo.s32 %r2, %r1, 3, 1;
	st.param.b32 [func_retval0+0], %r2;
	ret;
}
.visible .entry k(.param .u64 k_out)
{
	.reg .b32 %r<10>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [k_out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), f, (param0);
	ld.param.b32 %r2, [retval0+0];
	}
	add.s32 %r3, %r1, 10;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r3;
	.param .b32 retval0;
	call.uni (retval0), f, (param0);
	ld.param.b32 %r4, [retval0+0];
	}
	mad.lo.s32 %r5, %r2, 1000, %r4;
	st.global.u32 [%rd4], %r5;
	ret;
}
)";
  BothResult r = runBoth(ptx, "k", oneBufferLaunch(4, 4));
  EXPECT_EQ(r.oracle, r.machine);
  for (uint32_t t = 0; t < 4; ++t) EXPECT_EQ(word(r.machine[0], t), (t * 3 + 1) * 1000 + (t + 10) * 3 + 1);
  int madlo = 0;
  for (const MInstr& in : r.program.code) {
    EXPECT_NE(in.op, MOp::Mov) << disassemble(in);
    madlo += in.op == MOp::MadLo;
  }
  EXPECT_EQ(madlo, 3);
  // ld.param k_out, mul.wide, add, 2 x mad (f), add, mad, st, exit
  EXPECT_EQ(r.program.code.size(), 9u);
}

TEST(MachineInline, WhatACalleeReadsBeforeWritingIsZeroAtEveryCall) {
  // g(x): %r2 is written only for x > 4 and h is called only for x > 4, so the other lanes
  // read %r2 and the return variable of h as the oracle's fresh frame has them: 0. g is called
  // in a loop with x = t + 4, t + 2, t: a lane's earlier call must not leave values behind.
  std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 func_retval0) h(.param .b32 h_param_0)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [h_param_0];
	mul.lo.s32 %r2, %r1, 3;
	st.param.b32 [func_retval0+0], %r2;
	ret;
}
.func (.param .b32 func_retval0) g(.param .b32 g_param_0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	ld.param.u32 %r1, [g_param_0];
	setp.gt.u32 %p1, %r1, 4;
	@%p1 mov.u32 %r2, 7;
	add.s32 %r3, %r2, %r1;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	.param .b32 retval0;
	@%p1 call.uni (retval0), h, (param0);
	ld.param.b32 %r4, [retval0+0];
	}
	mad.lo.s32 %r5, %r4, 1000, %r3;
	st.param.b32 [func_retval0+0], %r5;
	ret;
}
.visible .entry k(.param .u64 k_out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [k_out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 12;
	add.s64 %rd4, %rd2, %rd3;
	mov.u32 %r2, 4;
L:
	add.s32 %r3, %r1, %r2;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r3;
	.param .b32 retval0;
	call.uni (retval0), g, (param0);
	ld.param.b32 %r4, [retval0+0];
	}
	st.global.u32 [%rd4], %r4;
	add.s64 %rd4, %rd4, 4;
	sub.s32 %r2, %r2, 2;
	setp.ge.s32 %p1, %r2, 0;
	@%p1 bra L;
	ret;
}
)";
  BothResult r = runBoth(ptx, "k", oneBufferLaunch(4, 12));
  EXPECT_EQ(r.oracle, r.machine);
  EXPECT_EQ(r.oracle, r.replayed);
  auto g = [](uint32_t x) { return x > 4 ? 3 * x * 1000 + 7 + x : x; };
  for (uint32_t t = 0; t < 4; ++t)
    for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(word(r.machine[0], 3 * t + k), g(t + 4 - 2 * k)) << t << " " << k;
}

std::string recursive(const std::string& fBody, const std::string& extra = "") {
  return ".version 7.0\n.target sm_75\n.address_size 64\n"
         ".func (.param .b32 func_retval0) f(.param .b32 f_param_0);\n" + extra +
         ".func (.param .b32 func_retval0) f(.param .b32 f_param_0)\n{\n\t.reg .pred %p1;\n\t.reg .b32 %r<6>;\n"
         "\tld.param.u32 %r1, [f_param_0];\n\tsetp.lt.u32 %p1, %r1, 2;\n\t@%p1 bra END;\n\tadd.s32 %r2, %r1, -1;\n" +
         fBody +
         "END:\n\tst.param.b32 [func_retval0+0], %r1;\n\tret;\n}\n"
         ".visible .entry k(.param .u64 k_out)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n"
         "\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n"
         "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r1;\n\t.param .b32 retval0;\n"
         "\tcall.uni (retval0), f, (param0);\n\tld.param.b32 %r2, [retval0+0];\n\t}\n"
         "\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n";
}

TEST(MachineInline, RecursiveCallsAreNotInlined) {
  // Recursion (direct, and through g) lowers with CALL (recursion_test.cpp): f and g are
  // emitted once each, not inlined along the chain, and equal the oracle.
  std::string self = "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r2;\n\t.param .b32 retval0;\n"
                     "\tcall.uni (retval0), f, (param0);\n\tld.param.b32 %r1, [retval0+0];\n\t}\n";
  std::string g = ".func (.param .b32 func_retval0) g(.param .b32 g_param_0)\n{\n\t.reg .b32 %r<3>;\n"
                  "\tld.param.u32 %r1, [g_param_0];\n"
                  "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r1;\n\t.param .b32 retval0;\n"
                  "\tcall.uni (retval0), f, (param0);\n\tld.param.b32 %r2, [retval0+0];\n\t}\n"
                  "\tst.param.b32 [func_retval0+0], %r2;\n\tret;\n}\n";
  std::string viaG = "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r2;\n\t.param .b32 retval0;\n"
                     "\tcall.uni (retval0), g, (param0);\n\tld.param.b32 %r1, [retval0+0];\n\t}\n";
  for (const std::string& ptx : {recursive(self), recursive(viaG, g)}) {
    BothResult r = runBoth(ptx, "k", oneBufferLaunch(4, 1));
    EXPECT_EQ(r.oracle, r.machine);
    EXPECT_EQ(r.oracle, r.replayed);
    int calls = 0;
    for (const MInstr& in : r.program.code) calls += in.op == MOp::Call;
    EXPECT_EQ(calls, ptx.find("g(") == std::string::npos ? 2 : 3);
  }
}

// A function of `n` chained adds on distinct registers (each its own machine register).
std::string chainFunction(const std::string& name, int n) {
  std::string s = fmt::format(".func (.param .b32 func_retval0) {0}(.param .b32 {0}_param_0)\n{{\n"
                              "\t.reg .b32 %r<{1}>;\n\tld.param.u32 %r0, [{0}_param_0];\n", name, n + 2);
  for (int i = 0; i < n; ++i) s += fmt::format("\tadd.s32 %r{}, %r{}, {};\n", i + 1, i, i + 1);
  s += fmt::format("\tst.param.b32 [func_retval0+0], %r{};\n\tret;\n}}\n", n);
  return s;
}
std::string callChain(const std::string& name, const std::string& arg, const std::string& result) {
  return fmt::format("\t{{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], {};\n\t.param .b32 retval0;\n"
                     "\tcall.uni (retval0), {}, (param0);\n\tld.param.b32 {}, [retval0+0];\n\t}}\n",
                     arg, name, result);
}

TEST(MachineInline, LimitsStillApply) {
  const std::string head = ".version 7.0\n.target sm_75\n.address_size 64\n";
  // Four copies of a 300-instruction function: more than 1023 machine instructions.
  std::string ptx = head + chainFunction("g", 300) +
                    ".visible .entry k(.param .u64 k_out)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<3>;\n"
                    "\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n" +
                    callChain("g", "%r1", "%r2") + callChain("g", "%r2", "%r3") + callChain("g", "%r3", "%r4") +
                    callChain("g", "%r4", "%r5") + "\tst.global.u32 [%rd1], %r5;\n\tret;\n}\n";
  std::string e = lowerError(ptx);
  EXPECT_NE(e.find("exceed the 10-bit pc"), std::string::npos) << e;
  EXPECT_NE(e.find("ld.param.u64 %rd1, [k_out];"), std::string::npos) << e;
  // 300 registers live across a call of a 300-register function: more than 511 registers
  // (the callee's cannot share with the caller's).
  std::string entry = ".visible .entry k(.param .u64 k_out)\n{\n\t.reg .b32 %r<310>;\n\t.reg .b64 %rd<3>;\n"
                      "\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n";
  for (int i = 2; i < 302; ++i) entry += fmt::format("\tadd.s32 %r{}, %r{}, 1;\n", i, i - 1);
  entry += callChain("g", "%r1", "%r302");
  for (int i = 2; i < 302; ++i) entry += fmt::format("\tadd.s32 %r302, %r302, %r{};\n", i);
  entry += "\tst.global.u32 [%rd1], %r302;\n\tret;\n}\n";
  e = lowerError(head + chainFunction("g", 300) + entry);
  EXPECT_NE(e.find("more than 511 live registers"), std::string::npos) << e;
}

TEST(MachineInline, UnsupportedParameterAccessesAreErrors) {
  // A struct-like parameter read in parts.
  std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 func_retval0) h(.param .align 4 .b8 h_param_0[8])
{
	.reg .b32 %r<4>;
	ld.param.u32 %r1, [h_param_0];
	ld.param.u32 %r2, [h_param_0+4];
	add.s32 %r3, %r1, %r2;
	st.param.b32 [func_retval0+0], %r3;
	ret;
}
.visible .entry k(.param .u64 k_out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [k_out];
	mov.u32 %r1, %tid.x;
	{
	.param .align 4 .b8 param0[8];
	st.param.b32 [param0+0], %r1;
	st.param.b32 [param0+4], %r1;
	.param .b32 retval0;
	call.uni (retval0), h, (param0);
	ld.param.b32 %r2, [retval0+0];
	}
	st.global.u32 [%rd1], %r2;
	ret;
}
)";
  std::string e = lowerError(ptx);
  EXPECT_NE(e.find("st.param.b32 [param0+4], %r1;"), std::string::npos) << e;
  EXPECT_NE(e.find("parts of a parameter are not lowered"), std::string::npos) << e;
}

}  // namespace
}  // namespace qgpu::machine::test
