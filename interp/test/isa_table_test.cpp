// ptx_isa.def against the decoder: every row is used and unique, every example decodes to its
// opcode, the unsupported rows are rejected, and the coverage catalogue and the numeric
// oracle's forms only name forms the decoder accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "qgpu/interp/error.h"
#include "qgpu/interp/isa.h"
#include "qgpu/interp/oracle_matrix.h"
#include "qgpu/interp/program.h"
#include "qgpu/interp/ptx_parser.h"
#include "qgpu/interp/types.h"

namespace qgpu {
namespace {

// The kernel an example row runs in: registers %p %h %r %rd %f %fd <8>, label END, function f.
std::string exampleModule(const std::string& instruction) {
  return ".version 9.0\n.target sm_90\n.address_size 64\n"
         ".func f()\n{\nret;\n}\n"
         ".visible .entry k()\n{\n"
         ".reg .pred %p<8>;\n.reg .b16 %h<8>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n"
         ".reg .f32 %f<8>;\n.reg .f64 %fd<8>;\n" +
         instruction + ";\nEND:\nret;\n}\n";
}

std::string mnemonicOf(const std::string& text) { return text.substr(0, text.find_first_of(". ")); }

TEST(IsaTable, MnemonicsAreUnique) {
  std::map<std::string, int> seen;
  for (const IsaRow& r : isaRows()) ++seen[r.mnemonic];
  for (const auto& [m, n] : seen) EXPECT_EQ(n, 1) << "ptx_isa.def has " << n << " rows for '" << m << "'";
}

TEST(IsaTable, EveryOpcodeHasOneSupportedRowInEnumOrder) {
  size_t supported = 0;
  for (const IsaRow& r : isaRows()) {
    if (r.opcode == Opcode::None) continue;
    ++supported;
    EXPECT_EQ(static_cast<size_t>(r.opcode), supported) << r.mnemonic;
    EXPECT_STREQ(opcodeName(r.opcode), r.mnemonic);
    EXPECT_EQ(findOpcode(r.mnemonic), r.opcode);
    EXPECT_GE(r.ptx, 10) << r.mnemonic;
    EXPECT_GE(r.sm, 10) << r.mnemonic;
  }
  EXPECT_EQ(supported + 1, static_cast<size_t>(Opcode::Count));
  EXPECT_EQ(supportedOpcodes().size(), supported);
  EXPECT_FALSE(findOpcode("bogus").has_value());
}

TEST(IsaTable, EveryExampleDecodesToItsRow) {
  for (const IsaRow& r : isaRows()) {
    if (r.opcode == Opcode::None) continue;
    SCOPED_TRACE(r.example);
    EXPECT_EQ(mnemonicOf(r.example), r.mnemonic);
    Program p;
    ASSERT_NO_THROW(p = decodeModule(ptx::parseModule(exampleModule(r.example), "example.ptx")));
    const FunctionInfo& k = p.functions[p.findEntry("k")];
    EXPECT_EQ(p.code[k.entryPc].opcode, r.opcode);
    EXPECT_EQ(p.code[k.endPc - 1].opcode, Opcode::Ret);
  }
}

TEST(IsaTable, UnsupportedRowsAreRejectedAsUnknown) {
  for (const std::string& m : unsupportedOpcodes()) {
    SCOPED_TRACE(m);
    EXPECT_FALSE(findOpcode(m).has_value());
    try {
      decodeModule(ptx::parseModule(exampleModule(m + ".b32 %r1, %r2"), "missing.ptx"));
      ADD_FAILURE() << m << " decodes";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("unknown instruction '" + m + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(IsaTable, EveryFormFamilyNamesSupportedRowsAndIsUsed) {
  for (const FormFamily& f : formFamilies()) {
    SCOPED_TRACE(f.pattern);
    ASSERT_FALSE(f.mnemonics.empty());
    for (const std::string& m : f.mnemonics) {
      EXPECT_TRUE(findOpcode(m).has_value()) << m << " has no QGPU_PTX_OP row";
      size_t accepted = 0;
      for (const std::string& form : expandForms({{m}, f.pattern})) accepted += formAccepted(form);
      EXPECT_GT(accepted, 0u) << "no form of '" << m << " " << f.pattern << "' is accepted (an unused row)";
    }
  }
}

TEST(IsaTable, ExpandsOptionalGroupsAndSets) {
  EXPECT_EQ(expandForms({{"shf"}, "l|r [wrap] b32"}),
            (std::vector<std::string>{"shf.l.b32", "shf.l.wrap.b32", "shf.r.b32", "shf.r.wrap.b32"}));
  EXPECT_EQ(expandForms({{"and", "or"}, "$btypes"}).size(), 6u);
  EXPECT_THROW(expandForms({{"add"}, "$nosuchset"}), Error);
  EXPECT_TRUE(formAccepted("add.rn.ftz.f32"));
  EXPECT_FALSE(formAccepted("add.rn.u32"));
}

TEST(IsaTable, ModifierRowsAreUniqueAndRoundTrip) {
  std::set<std::string> seen;
  for (size_t i = 0; i < static_cast<size_t>(Mod::Count); ++i) {
    const Mod m = static_cast<Mod>(i);
    EXPECT_TRUE(seen.insert(modName(m)).second) << "two QGPU_PTX_MOD rows spell ." << modName(m);
    EXPECT_EQ(findMod(modName(m)), m);
    EXPECT_FALSE(parseScalarType(modName(m)).has_value()) << modName(m) << " is a type, not a modifier";
  }
  EXPECT_FALSE(findMod("f32").has_value());
  EXPECT_TRUE(memoryHintMods().has(Mod::L1EvictLast));
  EXPECT_FALSE(memoryHintMods().has(Mod::Global));
}

// The decoded instruction says what it is without its text: opcode, types, modifiers and
// the public encodings of Instr::mode.
Instr decodeFirst(const std::string& instruction) {
  Program p = decodeModule(ptx::parseModule(exampleModule(instruction), "typed.ptx"));
  return p.code[p.functions[p.findEntry("k")].entryPc];
}

TEST(IsaTable, DecodedInstructionsCarryTypedForms) {
  Instr cvt = decodeFirst("cvt.rzi.ftz.s32.f32 %r1, %f2");
  EXPECT_EQ(cvt.opcode, Opcode::Cvt);
  ASSERT_EQ(cvt.typeCount, 2);
  EXPECT_EQ(cvt.types[0], ScalarType::S32);
  EXPECT_EQ(cvt.types[1], ScalarType::F32);
  EXPECT_EQ(cvt.type(), ScalarType::F32);
  EXPECT_EQ(cvt.mods, (ModSet{Mod::Rzi, Mod::Ftz}));
  Instr ld = decodeFirst("ld.global.nc.L1::evict_last.v2.u32 {%r1, %r2}, [%rd3]");
  EXPECT_EQ(ld.opcode, Opcode::Ld);
  EXPECT_EQ(ld.mods, (ModSet{Mod::Global, Mod::Nc, Mod::L1EvictLast, Mod::V2}));
  EXPECT_EQ(decodeFirst("setp.ltu.f32 %p1, %f2, %f3").cmp(), CmpOp::Ltu);
  EXPECT_EQ(decodeFirst("setp.hs.u32 %p1, %r2, %r3").cmp(), CmpOp::Hs);
  EXPECT_EQ(decodeFirst("atom.global.exch.b32 %r1, [%rd2], %r3").atomOp(), AtomOp::Exch);
  EXPECT_EQ(decodeFirst("atom.shared.dec.u32 %r1, [%rd2], %r3").atomOp(), AtomOp::Dec);
  EXPECT_EQ(decodeFirst("shfl.sync.idx.b32 %r1, %r2, 1, 31, -1").shflMode(), ShflMode::Idx);
  EXPECT_EQ(decodeFirst("shfl.sync.up.b32 %r1, %r2, 1, 0, -1").shflMode(), ShflMode::Up);
  EXPECT_EQ(decodeFirst("vote.sync.uni.pred %p1, %p2, -1").voteMode(), VoteMode::Uni);
  EXPECT_EQ(decodeFirst("vote.sync.ballot.b32 %r1, %p2, -1").voteMode(), VoteMode::Ballot);
}

TEST(IsaTable, SetSpellingDescribesMadeUpInstructions) {
  Instr in;
  EXPECT_TRUE(setSpelling(in, "st.local.b64"));
  EXPECT_EQ(in.opcode, Opcode::St);
  EXPECT_EQ(in.typeCount, 1);
  EXPECT_EQ(in.type(), ScalarType::B64);
  EXPECT_EQ(in.mods, ModSet{Mod::Local});
  EXPECT_FALSE(setSpelling(in, "call.save"));
  EXPECT_EQ(in.opcode, Opcode::Call);
  EXPECT_TRUE(in.mods.empty());
  EXPECT_FALSE(setSpelling(in, "nosuch.b32"));
  EXPECT_EQ(in.opcode, Opcode::None);
}

// The oracle tests only forms the front end accepts and that the catalogue lists, so
// `qgpu coverage` counts every one of them.
TEST(IsaTable, OracleFormsAreCataloguedAndAccepted) {
  auto key = [](const std::string& s) {
    std::vector<std::string> parts;
    std::stringstream ss(s);
    std::string t;
    while (std::getline(ss, t, '.')) parts.push_back(t);
    // Modifiers in any order, types in the order written (cvt.u16.s32 is not cvt.s32.u16).
    std::vector<std::string> types;
    std::erase_if(parts, [&](const std::string& p) {
      const bool isType = parseScalarType(p).has_value() || p == "e4m3x2" || p == "e5m2x2";
      if (isType) types.push_back(p);
      return isType;
    });
    std::sort(parts.begin() + 1, parts.end());
    std::string k;
    for (const auto& p : parts) k += p + ".";
    for (const auto& p : types) k += p + ".";
    return k;
  };
  std::set<std::string> catalogue;
  for (const FormFamily& f : formFamilies())
    for (const std::string& form : expandForms(f)) catalogue.insert(key(form));
  std::vector<std::string> forms = oracle::floatCases();
  for (const auto& s : oracle::cvtCases()) forms.push_back(s);
  for (const auto& s : oracle::packedCvtCases()) forms.push_back(s);
  for (const auto& s : oracle::warpCases()) forms.push_back(s);
  for (const auto& s : oracle::mmaCases()) forms.push_back(s);
  for (const auto& s : oracle::videoCases()) forms.push_back(s);
  for (const auto& s : oracle::integerCases()) {
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, '+')) forms.push_back(part);
  }
  for (const std::string& form : forms) {
    EXPECT_TRUE(catalogue.count(key(form))) << form << " is not in ptx_isa.def's QGPU_PTX_FORMS";
    EXPECT_TRUE(formAccepted(form)) << form << " is not accepted by the decoder";
  }
}

}  // namespace
}  // namespace qgpu
