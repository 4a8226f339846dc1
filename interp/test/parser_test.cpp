// Front-end tests: every construct the issue lists, and malformed inputs
// with the exact error location and text.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/interp/ptx_parser.h"
#include "test_util.h"

namespace qgpu {
namespace {

using ptx::Operand;

ptx::Module parse(const std::string& body) { return ptx::parseModule(body, "t.ptx"); }

TEST(Parser, ModuleDirectives) {
  ptx::Module m = parse(".version 9.0\n.target sm_75, texmode_independent\n.address_size 64\n");
  EXPECT_EQ(m.version, "9.0");
  EXPECT_EQ(m.target, "sm_75");
  EXPECT_EQ(m.addressSize, 64u);
}

TEST(Parser, EntryParamsRegistersAndRanges) {
  ptx::Module m = parse(test::header() + R"(
.visible .entry spin(
	.param .u64 .ptr .global .align 4 spin_param_0,
	.param .u32 spin_param_1
)
.maxntid 128, 1, 1
{
	.reg .pred 	%p<6>;
	.reg .b32 	%r<41>, %extra;
	ret;
}
)");
  ASSERT_EQ(m.functions.size(), 1u);
  const ptx::Function& f = m.functions[0];
  EXPECT_TRUE(f.isEntry);
  ASSERT_EQ(f.params.size(), 2u);
  EXPECT_EQ(f.params[0].type, "u64");
  EXPECT_EQ(f.params[0].pointerSpace, "global");
  EXPECT_EQ(f.maxntid[0], 128u);
  ASSERT_GE(f.body.size(), 3u);
  EXPECT_EQ(f.body[0].registers.name, "%p");
  EXPECT_EQ(f.body[0].registers.count, 6u);
  EXPECT_EQ(f.body[1].registers.count, 41u);
  EXPECT_EQ(f.body[2].registers.name, "%extra");
  EXPECT_EQ(f.body[2].registers.count, 0u);
}

TEST(Parser, VariablesWithAlignmentArraysAndInitialisers) {
  ptx::Module m = parse(test::header() + R"(
.global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
.const .align 4 .u32 c4[4] = {10, 0x14, 30, 40};
.const .f32 half = 0f3F000000;
.shared .align 16 .b8 tile[1024];
.extern .shared .align 16 .b8 dyn[];
)");
  ASSERT_EQ(m.globals.size(), 5u);
  EXPECT_EQ(m.globals[0].align, 4u);
  EXPECT_EQ(m.globals[0].dims[0], 8u);
  EXPECT_EQ(m.globals[0].initializer.size(), 8u);
  EXPECT_EQ(m.globals[1].initializer[1].value, 0x14);
  EXPECT_TRUE(m.globals[2].initializer[0].isFloat);
  EXPECT_EQ(m.globals[2].initializer[0].floatBits, 0x3F000000u);
  EXPECT_EQ(m.globals[3].space, ptx::StateSpace::Shared);
  EXPECT_TRUE(m.globals[4].isExtern);
  EXPECT_EQ(m.globals[4].dims[0], 0u);
}

TEST(Parser, InstructionsOperandsAndGuards) {
  ptx::Module m = parse(test::header() + R"(
.visible .entry k(.param .u64 p)
{
  .reg .pred %p<3>;
  .reg .b32 %r<9>;
  .reg .b64 %rd<3>;
$L__BB0_1:
  @%p1 bra $L__BB0_1;
  @!%p2 add.s32 %r1, %r2, -7;
  mov.f32 %r3, 0f3F800000;
  mov.f64 %rd1, 0d3FF0000000000000;
  ld.global.v2.u32 {%r4, %r5}, [%rd1+-8];
  ld.param.u64 %rd2, [p];
  ld.shared.u32 %r6, [sym+4];
  shfl.sync.down.b32 %r7|%p1, %r1, 2, 0x1c1f, -1;
  mov.u32 %r8, %tid.x;
  ret;
}
)");
  const auto& body = m.functions[0].body;
  auto instr = [&](size_t k) -> const ptx::Instruction& {
    size_t seen = 0;
    for (const auto& s : body)
      if (s.kind == ptx::Statement::Kind::Instruction && seen++ == k) return s.instruction;
    throw std::runtime_error("no such instruction");
  };
  EXPECT_EQ(body[3].kind, ptx::Statement::Kind::Label);
  EXPECT_EQ(body[3].label, "$L__BB0_1");
  EXPECT_EQ(instr(0).guard, "%p1");
  EXPECT_FALSE(instr(0).guardNegated);
  EXPECT_EQ(instr(0).operands[0].kind, Operand::Kind::Symbol);
  EXPECT_TRUE(instr(1).guardNegated);
  EXPECT_EQ(instr(1).operands[2].value, -7);
  EXPECT_EQ(instr(2).operands[1].floatBits, 0x3F800000u);
  EXPECT_FALSE(instr(2).operands[1].floatIsDouble);
  EXPECT_EQ(instr(3).operands[1].floatBits, 0x3FF0000000000000u);
  EXPECT_EQ(instr(4).opcode, "ld");
  EXPECT_EQ(instr(4).modifiers, (std::vector<std::string>{"global", "v2", "u32"}));
  EXPECT_EQ(instr(4).operands[0].kind, Operand::Kind::Vector);
  EXPECT_EQ(instr(4).operands[0].elements.size(), 2u);
  EXPECT_EQ(instr(4).operands[1].kind, Operand::Kind::Address);
  EXPECT_EQ(instr(4).operands[1].name, "%rd1");
  EXPECT_EQ(instr(4).operands[1].value, -8);
  EXPECT_EQ(instr(6).operands[1].name, "sym");
  EXPECT_EQ(instr(6).operands[1].value, 4);
  EXPECT_EQ(instr(7).operands[0].pairName, "%p1");
  EXPECT_EQ(instr(7).operands[3].value, 0x1c1f);
  EXPECT_EQ(instr(7).operands[4].value, -1);
  EXPECT_EQ(instr(8).operands[1].name, "%tid.x");
}

TEST(Parser, LocFileCommentsAndCallBlocks) {
  ptx::Module m = parse(test::header() + R"(
.file 1 "/src/kernel.cu"
/* block comment
   over lines */
.func (.param .b32 func_retval0) f(.param .b32 f_param_0)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [f_param_0];   // a comment
  st.param.b32 [func_retval0+0], %r1;
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<3>;
  .loc 1 5 10
  { // callseq 0, 0
  .param .b32 param0;
  st.param.b32 [param0+0], 1;
  .param .b32 retval0;
  call.uni (retval0), f, (param0);
  ld.param.b32 %r2, [retval0+0];
  }
  ret;
}
)");
  EXPECT_EQ(m.files.at(1), "/src/kernel.cu");
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_FALSE(m.functions[0].isEntry);
  EXPECT_EQ(m.functions[0].returns.size(), 1u);
  const auto& body = m.functions[1].body;
  bool sawLoc = false, sawBlock = false;
  for (const auto& s : body) {
    if (s.kind == ptx::Statement::Kind::Loc) {
      sawLoc = true;
      EXPECT_EQ(s.locFile, 1u);
      EXPECT_EQ(s.locLine, 5u);
    }
    if (s.kind == ptx::Statement::Kind::BlockBegin) sawBlock = true;
  }
  EXPECT_TRUE(sawLoc);
  EXPECT_TRUE(sawBlock);
  // And it decodes: the call site resolves param0/retval0 in the block scope.
  Program p = decodeModule(std::move(m));
  EXPECT_EQ(p.callSites.size(), 1u);
}

// Messages quote the whole statement, also when a compiler spreads it over lines (nvcc's calls).
TEST(Parser, DescribePcQuotesMultiLineStatements) {
  Program p = decodeModule(parse(test::header() + R"(
.func (.param .b32 func_retval0) f(.param .b32 f_param_0)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [f_param_0];
  st.param.b32 [func_retval0+0], %r1;
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<3>;
  { // callseq 0, 0
  .param .b32 param0;
  st.param.b32 [param0+0], 1;
  .param .b32 retval0;
  call.uni (retval0),
  f,
  (
  param0
  );
  ld.param.b32 %r2, [retval0+0];
  }
  ret;
}
)"));
  uint32_t callPc = 0;
  while (callPc < p.code.size() && p.code[callPc].flow != Flow::Call) ++callPc;
  ASSERT_LT(callPc, p.code.size());
  EXPECT_EQ(p.describePc(callPc), fmt::format("pc {} (t.ptx:19: call.uni (retval0), f, (param0);)", callPc));
  EXPECT_EQ(p.describePc(callPc + 1), fmt::format("pc {} (t.ptx:24: ld.param.b32 %r2, [retval0+0];)", callPc + 1));
}

TEST(Parser, ScopedRegistersWithoutPercent) {
  // clang's inline-PTX style: a block-scoped `.reg .pred q` used as `q`.
  test::TestLaunch t;
  t.ptx = test::header() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 5;
  { .reg .pred q; setp.ne.s32 q, %r1, 0; selp.u32 %r2, 7, 9, q; }
  { .reg .b32 t; add.u32 t, %r2, 1; mov.u32 %r3, t; }
  st.global.u32 [%rd1], %r3;
  ret;
}
)";
  t.buffers = {std::vector<uint8_t>(4)};
  EXPECT_EQ(test::u32Of(test::run(t)[0])[0], 8u);
}

// Malformed inputs: the error names file:line:column and the offending text.
std::string parseError(const std::string& text) {
  try {
    decodeModule(ptx::parseModule(text, "bad.ptx"));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ParserErrors, UnexpectedCharacter) {
  EXPECT_EQ(parseError(test::header() + "#"), "bad.ptx:4:1: unexpected character '#'");
}

TEST(ParserErrors, MissingSemicolon) {
  std::string e = parseError(test::header() + ".visible .entry k()\n{\n  ret\n}\n");
  EXPECT_EQ(e, "bad.ptx:7:1: expected ';' after the instruction (at '}')\n    }");
}

TEST(ParserErrors, MissingVersion) {
  EXPECT_NE(parseError(".target sm_75\n").find("missing .version"), std::string::npos);
}

TEST(ParserErrors, UnknownInstruction) {
  std::string e = parseError(test::header() + ".visible .entry k()\n{\n  frobnicate.u32 %r1;\n  ret;\n}\n");
  EXPECT_EQ(e, "bad.ptx:6:3: unknown instruction 'frobnicate'\n    frobnicate.u32 %r1;");
}

TEST(ParserErrors, UnknownType) {
  std::string e = parseError(test::header() + ".visible .entry k()\n{\n  .reg .b32 %r<3>;\n  add.q32 %r1, %r2, %r2;\n  ret;\n}\n");
  EXPECT_EQ(e, "bad.ptx:7:3: 'add' has no valid type (unknown modifier .q32)\n    add.q32 %r1, %r2, %r2;");
}

TEST(ParserErrors, UndeclaredRegister) {
  std::string e = parseError(test::header() + ".visible .entry k()\n{\n  .reg .b32 %r<3>;\n  add.u32 %r1, %r2, %r9;\n  ret;\n}\n");
  EXPECT_EQ(e, "bad.ptx:7:3: undeclared register '%r9'\n    add.u32 %r1, %r2, %r9;");
}

TEST(ParserErrors, UndefinedLabel) {
  std::string e = parseError(test::header() + ".visible .entry k()\n{\n  bra $nowhere;\n  ret;\n}\n");
  EXPECT_EQ(e, "bad.ptx:6:7: branch to undefined label '$nowhere'");
}

TEST(ParserErrors, WrongOperandCount) {
  std::string e = parseError(test::header() + ".visible .entry k()\n{\n  .reg .b32 %r<3>;\n  add.u32 %r1, %r2;\n  ret;\n}\n");
  EXPECT_EQ(e, "bad.ptx:7:3: 'add' takes 3 operands, got 2\n    add.u32 %r1, %r2;");
}

TEST(ParserErrors, FallingOffTheEnd) {
  std::string e = parseError(test::header() + ".visible .entry k()\n{\n  .reg .b32 %r<3>;\n  mov.u32 %r1, 1;\n}\n");
  EXPECT_NE(e.find("can run past its last instruction"), std::string::npos) << e;
}

// Comparison/type combinations ptxas (CUDA 13) rejects with "Mismatch between instruction
// type and comparison qualifier": ordered compares on .bN, unsigned ones on signed types.
TEST(ParserErrors, ComparisonThatDoesNotFitTheType) {
  auto setp = [](const std::string& op) {
    return parseError(test::header() + ".visible .entry k()\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<3>;\n  " + op +
                      " %p1, %r1, %r2;\n  ret;\n}\n");
  };
  EXPECT_EQ(setp("setp.ls.s32"), "bad.ptx:8:3: .ls is an unsigned comparison; use .le or an unsigned type\n"
                                 "    setp.ls.s32 %p1, %r1, %r2;");
  EXPECT_EQ(setp("setp.lt.b32"), "bad.ptx:8:3: .lt needs a signed or unsigned type; .b32 compares only .eq/.ne\n"
                                 "    setp.lt.b32 %p1, %r1, %r2;");
  EXPECT_EQ(setp("setp.eq.b32"), "no error");
  EXPECT_EQ(setp("setp.hs.u32"), "no error");
  EXPECT_EQ(setp("setp.ge.s32"), "no error");
}

TEST(ParserErrors, MalformedHexFloat) {
  std::string e = parseError(test::header() + ".visible .entry k()\n{\n  .reg .f32 %f<3>;\n  mov.f32 %f1, 0f3F80;\n  ret;\n}\n");
  EXPECT_EQ(e, "bad.ptx:7:16: hex float literal needs 8 hex digits (at '0f3F80')\n      mov.f32 %f1, 0f3F80;");
}

}  // namespace
}  // namespace qgpu
