// Recursive calls (docs/machine.md §1.2, §2.1): a function on a cycle of the call graph is
// emitted once and called with CALL, which pushes {callee entry, END, lanes} on the SIMT
// stack; its `ret` branches to END, where the entry pops. The registers live across a call
// that the recursive code may write are saved to the per-thread call stack (local memory)
// and restored. Every kernel here is compared with the oracle, which runs real frames.
#include <gtest/gtest.h>

#include <functional>

#include <fmt/format.h>

#include "machine_test_util.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/lower.h"

namespace qgpu::machine::test {
namespace {

const char* kHeader = ".version 7.0\n.target sm_75\n.address_size 64\n";

/// The call sequence of `r = name(arg)` as nvcc writes it; `guard` (e.g. "@%p1 ") guards
/// the call and the read of its result.
std::string call(const std::string& name, const std::string& arg, const std::string& result,
                 const std::string& guard = "") {
  return fmt::format("\t{{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], {};\n\t.param .b32 retval0;\n"
                     "\t{}call.uni (retval0), {}, (param0);\n\t{}ld.param.b32 {}, [retval0+0];\n\t}}\n",
                     arg, guard, name, guard, result);
}

std::string func(const std::string& name, const std::string& regs, const std::string& body) {
  return fmt::format(".func (.param .b32 func_retval0) {0}(.param .b32 {0}_param_0)\n{{\n{1}"
                     "\tld.param.u32 %r1, [{0}_param_0];\n{2}}}\n",
                     name, regs, body);
}
std::string decl(const std::string& name) {
  return fmt::format(".func (.param .b32 func_retval0) {0}(.param .b32 {0}_param_0);\n", name);
}

/// An entry that stores name(n(tid)) to out[tid]; `n` computes %r2 from %r1 = %tid.x.
std::string entry(const std::string& name, const std::string& n) {
  return ".visible .entry k(.param .u64 k_out)\n{\n\t.reg .pred %p<3>;\n\t.reg .b32 %r<10>;\n"
         "\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n" +
         n + call(name, "%r2", "%r3") +
         "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.u32 [%rd3], %r3;\n\tret;\n}\n";
}

int count(const MachineProgram& p, MOp op) {
  int n = 0;
  for (const MInstr& in : p.code) n += in.op == op;
  return n;
}

// noinline_call's fibx: tree recursion, a divergent base case, n live across both calls and
// the first result across the second.
const std::string kFib =
    std::string(kHeader) + decl("fib") +
    func("fib", "\t.reg .pred %p<2>;\n\t.reg .b32 %r<12>;\n",
         "\tsetp.lt.u32 %p1, %r1, 2;\n\t@%p1 bra BASE;\n\tadd.s32 %r2, %r1, -1;\n" + call("fib", "%r2", "%r3") +
             "\tadd.s32 %r4, %r1, -2;\n" + call("fib", "%r4", "%r5") +
             "\tmad.lo.s32 %r6, %r5, 3, %r1;\n\txor.b32 %r7, %r6, %r3;\n"
             "\tst.param.b32 [func_retval0+0], %r7;\n\tret;\n"
             "BASE:\n\tadd.s32 %r8, %r1, 1;\n\tst.param.b32 [func_retval0+0], %r8;\n\tret;\n") +
    entry("fib", "\tand.b32 %r2, %r1, 7;\n\tadd.s32 %r2, %r2, 3;\n");

uint32_t fib(uint32_t n) { return n < 2 ? n + 1 : fib(n - 1) ^ (fib(n - 2) * 3u + n); }

TEST(MachineRecursion, TreeRecursionWithDivergentDepthMatchesTheOracle) {
  BothResult r = runBoth(kFib, "k", oneBufferLaunch(8, 8));
  EXPECT_EQ(r.oracle, r.machine);
  EXPECT_EQ(r.oracle, r.replayed);
  for (uint32_t t = 0; t < 8; ++t) EXPECT_EQ(word(r.machine[0], t), fib(t % 8 + 3)) << "thread " << t;
  // One copy of fib, three CALLs (the entry's and fib's two), registers saved around fib's.
  EXPECT_EQ(count(r.program, MOp::Call), 3);
  EXPECT_GT(count(r.program, MOp::St), 1);
  EXPECT_GT(count(r.program, MOp::Ld), 1);
  // Each CALL step ends with the TOP of the pushed entry; the replay decoder follows the same
  // pushes and pops.
  int calls = 0;
  for (const std::string& m : r.trace.meanings)
    calls += m.find("call by lanes") != std::string::npos && m.find("runs pc") != std::string::npos;
  EXPECT_GT(calls, 8 * 2);
}

TEST(MachineRecursion, TheParameterReadAgainAfterTheSecondCall) {
  // fib again, but n is re-read from the parameter after the second call: the parameter slot,
  // which each call's argument overwrites, must be saved around both calls although nothing
  // reads it between them (the second call's save does).
  std::string ptx =
      std::string(kHeader) + decl("fib") +
      func("fib", "\t.reg .pred %p<2>;\n\t.reg .b32 %r<12>;\n",
           "\tsetp.lt.u32 %p1, %r1, 2;\n\t@%p1 bra BASE;\n\tadd.s32 %r2, %r1, -1;\n" + call("fib", "%r2", "%r3") +
               "\tadd.s32 %r4, %r1, -2;\n" + call("fib", "%r4", "%r5") +
               "\tld.param.u32 %r10, [fib_param_0];\n\tmad.lo.s32 %r6, %r5, 3, %r10;\n\txor.b32 %r7, %r6, %r3;\n"
               "\tst.param.b32 [func_retval0+0], %r7;\n\tret;\n"
               "BASE:\n\tadd.s32 %r8, %r1, 1;\n\tst.param.b32 [func_retval0+0], %r8;\n\tret;\n") +
      entry("fib", "\tand.b32 %r2, %r1, 7;\n\tadd.s32 %r2, %r2, 3;\n");
  BothResult r = runBoth(ptx, "k", oneBufferLaunch(8, 8));
  EXPECT_EQ(r.oracle, r.machine);
  EXPECT_EQ(r.oracle, r.replayed);
  for (uint32_t t = 0; t < 8; ++t) EXPECT_EQ(word(r.machine[0], t), fib(t % 8 + 3)) << "thread " << t;
}

TEST(MachineRecursion, CallEndsWhereTheCalleeReturns) {
  // The callee's returns are BRAs to the pc a CALL names as END, and END holds no instruction
  // of the callee: it is past the callee's code (here the end of the ROM).
  MachineProgram p = lowerKernel(decodeText(kFib), "k");
  uint32_t end = 0, entryPc = 0;
  for (const MInstr& in : p.code)
    if (in.op == MOp::Call) {
      if (end) {
        EXPECT_EQ(in.c, end);
      }
      if (entryPc) {
        EXPECT_EQ(in.b, entryPc);
      }
      end = in.c;
      entryPc = in.b;
    }
  ASSERT_GT(end, entryPc);
  EXPECT_EQ(end, p.code.size());
  int toEnd = 0;
  for (uint32_t pc = entryPc; pc < end; ++pc) {
    const MInstr& in = p.code[pc];
    if (in.op == MOp::Bra) {
      EXPECT_LE(in.b, end);
      EXPECT_LE(in.c, end);
      toEnd += in.b == end && in.c == end;
    }
  }
  EXPECT_GE(toEnd, 1);  // the base case's ret
  EXPECT_EQ(p.localBytes % 8, 0u);
  EXPECT_GE(p.localBytes, kCallStackBytes);
}

TEST(MachineRecursion, MutualRecursionMatchesTheOracle) {
  // f(n) = n ? 2 g(n-1) + n : 1; g(n) = n ? 3n + f(n-1) : 7.
  std::string ptx =
      std::string(kHeader) + decl("g") +
      func("f", "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n",
           "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra Z;\n\tadd.s32 %r2, %r1, -1;\n" + call("g", "%r2", "%r3") +
               "\tshl.b32 %r4, %r3, 1;\n\tadd.s32 %r4, %r4, %r1;\n\tst.param.b32 [func_retval0+0], %r4;\n\tret;\n"
               "Z:\n\tst.param.b32 [func_retval0+0], 1;\n\tret;\n") +
      func("g", "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n",
           "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra Z;\n\tsub.s32 %r2, %r1, 1;\n" + call("f", "%r2", "%r3") +
               "\tmad.lo.s32 %r4, %r1, 3, %r3;\n\tst.param.b32 [func_retval0+0], %r4;\n\tret;\n"
               "Z:\n\tst.param.b32 [func_retval0+0], 7;\n\tret;\n") +
      entry("f", "\tadd.s32 %r2, %r1, 1;\n");
  BothResult r = runBoth(ptx, "k", oneBufferLaunch(8, 8));
  EXPECT_EQ(r.oracle, r.machine);
  EXPECT_EQ(r.oracle, r.replayed);
  std::function<uint32_t(uint32_t)> f, g;
  f = [&](uint32_t n) { return n ? 2 * g(n - 1) + n : 1u; };
  g = [&](uint32_t n) { return n ? 3 * n + f(n - 1) : 7u; };
  for (uint32_t t = 0; t < 8; ++t) EXPECT_EQ(word(r.machine[0], t), f(t + 1)) << "thread " << t;
  EXPECT_EQ(count(r.program, MOp::Call), 3);  // the entry's, f's and g's
}

TEST(MachineRecursion, CallsFromTwoSitesADivergentBranchAndAnInlinedFunction) {
  // fact(n) = n <= 1 ? 1 : n * fact(n-1) + sq(n), sq(n) = n² + 1 inlined into fact. The entry
  // calls it under a guard (odd lanes), then unguarded, and through h(x) = fact(x) + 7x, which
  // is inlined and keeps 7x across the CALL (sq's registers must not be its); a is live in the
  // entry across the later calls.
  std::string fact = func("fact", "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n",
                          "\tsetp.le.u32 %p1, %r1, 1;\n\t@%p1 bra ONE;\n\tadd.s32 %r2, %r1, -1;\n" +
                              call("fact", "%r2", "%r3") +
                              "\tmul.lo.s32 %r4, %r3, %r1;\n" + call("sq", "%r1", "%r5") +
                              "\tadd.s32 %r4, %r4, %r5;\n\tst.param.b32 [func_retval0+0], %r4;\n\tret;\n"
                              "ONE:\n\tst.param.b32 [func_retval0+0], 1;\n\tret;\n");
  std::string h = func("h", "\t.reg .b32 %r<8>;\n",
                       "\tmul.lo.s32 %r4, %r1, 7;\n" + call("fact", "%r1", "%r2") +
                           "\tadd.s32 %r3, %r4, %r2;\n\tst.param.b32 [func_retval0+0], %r3;\n\tret;\n");
  std::string sq = func("sq", "\t.reg .b32 %r<4>;\n",
                        "\tmul.lo.s32 %r2, %r1, %r1;\n\tadd.s32 %r3, %r2, 1;\n\tst.param.b32 [func_retval0+0], %r3;\n\tret;\n");
  std::string ptx = std::string(kHeader) + sq + decl("fact") + fact + h +
                    ".visible .entry k(.param .u64 k_out)\n{\n\t.reg .pred %p<3>;\n\t.reg .b32 %r<12>;\n"
                    "\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [k_out];\n\tmov.u32 %r1, %tid.x;\n"
                    "\tand.b32 %r2, %r1, 1;\n\tsetp.ne.u32 %p1, %r2, 0;\n\tmov.u32 %r3, 5;\n"
                    "\tadd.s32 %r4, %r1, 1;\n" +
                    call("fact", "%r4", "%r3", "@%p1 ") +
                    "\tadd.s32 %r5, %r1, 2;\n" + call("fact", "%r5", "%r6") +
                    "\tsetp.lt.u32 %p2, %r1, 5;\n\tmov.u32 %r8, 0;\n\t@!%p2 bra SKIP;\n"
                    "\tand.b32 %r9, %r1, 3;\n" + call("h", "%r9", "%r8") +
                    "SKIP:\n\tmul.wide.u32 %rd2, %r1, 12;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
                    "\tst.u32 [%rd3], %r3;\n\tst.u32 [%rd3+4], %r6;\n\tst.u32 [%rd3+8], %r8;\n\tret;\n}\n";
  BothResult r = runBoth(ptx, "k", oneBufferLaunch(8, 24));
  EXPECT_EQ(r.oracle, r.machine);
  EXPECT_EQ(r.oracle, r.replayed);
  auto f = [](uint32_t n) {
    uint32_t p = 1;
    for (uint32_t i = 2; i <= n; ++i) p = p * i + i * i + 1;
    return p;
  };
  for (uint32_t t = 0; t < 8; ++t) {
    EXPECT_EQ(word(r.machine[0], 3 * t), (t & 1) ? f(t + 1) : 5u) << t;
    EXPECT_EQ(word(r.machine[0], 3 * t + 1), f(t + 2)) << t;
    EXPECT_EQ(word(r.machine[0], 3 * t + 2), t < 5 ? f(t & 3) + 7 * (t & 3) : 0u) << t;
  }
}

TEST(MachineRecursion, DivergentEarlyReturnInsideTheRecursiveFunction) {
  // f(n): n == 0 -> 0; s = 0 + 1 + ... while i < n, returning 100 + s from inside the loop as
  // soon as s > 6 (lanes leave at different iterations); else s + 2 f(n-1).
  std::string f = func("f", "\t.reg .pred %p<4>;\n\t.reg .b32 %r<10>;\n",
                       "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra ZERO;\n\tmov.u32 %r2, 0;\n\tmov.u32 %r3, 0;\n"
                       "LOOP:\n\tadd.s32 %r2, %r2, %r3;\n\tsetp.gt.u32 %p2, %r2, 6;\n\tadd.s32 %r4, %r2, 100;\n"
                       "\t@%p2 st.param.b32 [func_retval0+0], %r4;\n\t@%p2 ret;\n"
                       "\tadd.s32 %r3, %r3, 1;\n\tsetp.lt.u32 %p3, %r3, %r1;\n\t@%p3 bra LOOP;\n"
                       "\tadd.s32 %r5, %r1, -1;\n" + call("f", "%r5", "%r6") +
                           "\tshl.b32 %r7, %r6, 1;\n\tadd.s32 %r7, %r7, %r2;\n"
                           "\tst.param.b32 [func_retval0+0], %r7;\n\tret;\n"
                           "ZERO:\n\tst.param.b32 [func_retval0+0], 0;\n\tret;\n");
  std::string ptx = std::string(kHeader) + decl("f") + f + entry("f", "\tmov.u32 %r2, %r1;\n");
  BothResult r = runBoth(ptx, "k", oneBufferLaunch(8, 8));
  EXPECT_EQ(r.oracle, r.machine);
  EXPECT_EQ(r.oracle, r.replayed);
  std::function<uint32_t(uint32_t)> ref = [&](uint32_t n) -> uint32_t {
    if (n == 0) return 0;
    uint32_t s = 0;
    for (uint32_t i = 0; i < n; ++i) {
      s += i;
      if (s > 6) return 100 + s;
    }
    return s + 2 * ref(n - 1);
  };
  for (uint32_t t = 0; t < 8; ++t) EXPECT_EQ(word(r.machine[0], t), ref(t)) << "thread " << t;
}

std::string overflowError(const std::string& ptx, uint32_t threadsInBlock) {
  MachineProgram p = lowerKernel(decodeText(ptx), "k");
  Launch l = oneBufferLaunch(threadsInBlock, threadsInBlock);
  try {
    execute(p, machineLaunch(p, l));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MachineRecursion, DeepRecursionIsACallStackOverflow) {
  // sum(n) = n ? n + sum(n-1) : 0 keeps n (4 bytes, an 8-byte frame) across each call: at
  // depth 200 the SIMT stack (32 entries) is full before the 256-byte call stack (31 frames).
  std::string sum = func("sum", "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n",
                         "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra Z;\n\tadd.s32 %r2, %r1, -1;\n" +
                             call("sum", "%r2", "%r3") +
                             "\tadd.s32 %r4, %r3, %r1;\n\tst.param.b32 [func_retval0+0], %r4;\n\tret;\n"
                             "Z:\n\tst.param.b32 [func_retval0+0], 0;\n\tret;\n");
  std::string deep = std::string(kHeader) + decl("sum") + sum + entry("sum", "\tadd.s32 %r2, %r1, 200;\n");
  std::string e = overflowError(deep, 4);
  EXPECT_NE(e.find("machine: call stack overflow at step"), std::string::npos) << e;
  EXPECT_NE(e.find("CALL"), std::string::npos) << e;
  EXPECT_NE(e.find("the SIMT stack already holds 32 entries"), std::string::npos) << e;
  // Within the limits the same function runs and equals the oracle (depth 4..11).
  std::string shallow = std::string(kHeader) + decl("sum") + sum + entry("sum", "\tadd.s32 %r2, %r1, 4;\n");
  BothResult r = runBoth(shallow, "k", oneBufferLaunch(8, 8));
  EXPECT_EQ(r.oracle, r.machine);
  for (uint32_t t = 0; t < 8; ++t) EXPECT_EQ(word(r.machine[0], t), (t + 4) * (t + 5) / 2) << t;

  // Ten 64-bit values live across each call: 80-byte frames pass the 256-byte stack at
  // depth 4, long before the SIMT stack is full; three frames fit.
  std::string regs = "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<24>;\n";
  std::string body = "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra Z;\n\tcvt.u64.u32 %rd1, %r1;\n";
  for (int i = 2; i <= 11; ++i) body += fmt::format("\tmul.lo.s64 %rd{}, %rd{}, {};\n", i, i - 1, 3 + i);
  body += "\tadd.s32 %r2, %r1, -1;\n" + call("wide", "%r2", "%r3") + "\tcvt.u64.u32 %rd12, %r3;\n";
  for (int i = 2; i <= 11; ++i) body += fmt::format("\txor.b64 %rd12, %rd12, %rd{};\n", i);
  body += "\tcvt.u32.u64 %r4, %rd12;\n\tst.param.b32 [func_retval0+0], %r4;\n\tret;\n"
          "Z:\n\tst.param.b32 [func_retval0+0], 0;\n\tret;\n";
  std::string wide = std::string(kHeader) + decl("wide") + func("wide", regs, body);
  e = overflowError(wide + entry("wide", "\tadd.s32 %r2, %r1, 20;\n"), 4);
  EXPECT_NE(e.find("machine: call stack overflow at step"), std::string::npos) << e;
  EXPECT_NE(e.find("is past the"), std::string::npos) << e;
  BothResult w = runBoth(wide + entry("wide", "\tand.b32 %r2, %r1, 3;\n"), "k", oneBufferLaunch(8, 8));
  EXPECT_EQ(w.oracle, w.machine);
  EXPECT_EQ(w.oracle, w.replayed);
}

TEST(MachineRecursion, RecursiveFunctionsWithLocalVariablesAreErrors) {
  std::string f = ".func (.param .b32 func_retval0) f(.param .b32 f_param_0)\n{\n\t.local .align 4 .b8 buf[16];\n"
                  "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<3>;\n"
                  "\tld.param.u32 %r1, [f_param_0];\n\tmov.u64 %rd1, buf;\n\tst.local.u32 [%rd1], %r1;\n"
                  "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra Z;\n\tadd.s32 %r2, %r1, -1;\n" +
                  call("f", "%r2", "%r3") +
                  "\tld.local.u32 %r4, [%rd1];\n\tadd.s32 %r4, %r4, %r3;\n\tst.param.b32 [func_retval0+0], %r4;\n"
                  "\tret;\nZ:\n\tst.param.b32 [func_retval0+0], 0;\n\tret;\n}\n";
  std::string ptx = std::string(kHeader) + decl("f") + f + entry("f", "\tmov.u32 %r2, %r1;\n");
  try {
    lowerKernel(decodeText(ptx), "k");
    ADD_FAILURE() << "lowered";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the recursive function 'f' has .local variables"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace qgpu::machine::test
