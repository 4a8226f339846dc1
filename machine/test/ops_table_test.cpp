// The op list (machine/include/qgpu/machine/ops.def) against what depends on it: the frozen ROM
// op numbers, the unit dispatch and write widths, docs/machine.md's instruction table (§1.4),
// cost table (§5.1) and op count (§1.6), and the operand use of every lowered corpus kernel.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "qgpu/backend.h"  // loadProgram
#include "qgpu/gate.h"
#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/lower.h"
#include "qgpu/machine/units.h"

namespace qgpu::machine {
namespace {

const std::filesystem::path kSource = QGPU_SOURCE_DIR;

std::vector<MOp> allOps() {
  std::vector<MOp> ops;
  for (uint32_t i = 0; i < static_cast<uint32_t>(MOp::Count); ++i) ops.push_back(static_cast<MOp>(i));
  return ops;
}

// The ROM encoding: op numbers of the ops that exist are frozen (new ops are appended).
TEST(MachineOps, OpNumbersAreFrozen) {
  const char* frozen[] = {
      "MOV", "ADD", "SUB", "MULLO", "MULHI", "MULWIDE", "MADLO", "MADWIDE", "AND", "OR",
      "XOR", "NOT", "SHL", "SHR", "MIN", "MAX", "NEG", "ABS", "SETP", "SELP", "CVTI",
      "I2F", "F2I", "FADD", "FSUB", "FMUL", "FFMA", "FMIN", "FMAX", "FNEG", "FABS", "FSETP",
      "CVTA", "LD", "ST", "SHFL", "VOTE", "BAR", "BRA", "EXIT", "POPC", "CLZ", "BREV",
      "BFIND", "BFE", "BFI", "SHF", "PRMT", "ATOM", "ATOMS", "DIVINIT", "DIVSTEP", "DIVFIN",
      "DP", "MUL24", "SAD", "CADD", "CARRY", "FDIVINIT", "FDIVSTEP", "FDIVFIN", "FSQRTSTEP",
      "FSQRTFIN", "DIV64R", "DIV64Q", "DIV64FIN", "MULP", "MULPC", "H2F", "F2H", "F2D",
      "FRNDI", "DSIG", "DSTICKY", "DMULFIN", "D2F", "DDIVQ", "DDIVR", "DDIVFIN", "DSQRTN",
      "DSQRTQ", "DSQRTR", "DSQRTFIN", "DFMAPACK", "DFMALO", "DFMASUM", "DFMAFIN", "CALL"};
  ASSERT_GE(static_cast<size_t>(MOp::Count), std::size(frozen));
  for (size_t i = 0; i < std::size(frozen); ++i) EXPECT_STREQ(opName(static_cast<MOp>(i)), frozen[i]) << "op " << i;
}

TEST(MachineOps, RowsAreWellFormed) {
  std::set<std::string> names;
  for (MOp op : allOps()) {
    const MOpInfo& row = opInfo(op);
    EXPECT_EQ(row.op, op);
    EXPECT_TRUE(names.insert(row.name).second) << "duplicate name " << row.name;
    ASSERT_EQ(std::strlen(row.operands), 4u) << row.name;
    for (char k : std::string(row.operands)) EXPECT_NE(std::string("-rowp").find(k), std::string::npos) << row.name;
    EXPECT_NE(std::string(row.cost), "") << row.name;
    // Units compute exactly the unit ops; the executor runs the others, which write through
    // their own paths (LD, SHFL, VOTE, ATOM) or not at all.
    const bool laneLocal = row.exec == MExec::Unit || row.exec == MExec::LaneSerial;
    EXPECT_EQ(isUnitOp(op), laneLocal) << row.name;
    if (laneLocal) {
      EXPECT_NE(row.family, MFamily::Warp) << row.name;
    }
  }
  EXPECT_STREQ(opName(MOp::Count), "?");
  EXPECT_FALSE(isUnitOp(MOp::Count));
}

TEST(MachineOps, NonUnitOpsAreRejectedByTheUnits) {
  for (MOp op : allOps()) {
    if (isUnitOp(op)) continue;
    MInstr in;
    in.op = op;
    in.ty = 2;
    EXPECT_THROW(computeLane(in, 1, 2, 3), Error) << opName(op);
  }
}

TEST(MachineOps, WriteWidthsFollowTheTable) {
  MInstr in;
  in.ty = 1;  // 2 bytes
  in.c = 3;   // register width code 8 bytes
  const std::map<MWrite, uint32_t> expect = {{MWrite::W, 2},    {MWrite::TwoW, 4},     {MWrite::One, 1},
                                             {MWrite::Two, 2},  {MWrite::Four, 4},     {MWrite::Eight, 8},
                                             {MWrite::RegWidth, 8}, {MWrite::I2FDest, 4}, {MWrite::None, 0}};
  for (MOp op : allOps()) {
    in.op = op;
    EXPECT_EQ(writeBytes(in), expect.at(opInfo(op).write)) << opName(op);
  }
  in.op = MOp::I2F;
  in.fl = kFlI2FDest64;
  EXPECT_EQ(writeBytes(in), 8u);
}

TEST(MachineOps, EvaluateUnitIsComputeLane) {
  EXPECT_EQ(evaluateUnit(MOp::Add, typeCode(4, false), 0, 0xffffffffu, 2, 0), 1u);
  EXPECT_EQ(evaluateUnit(MOp::FAdd, typeCode(4, false), 0, 0x3f800000u, 0x3f800000u, 0), 0x40000000u);
  // CVTI s8 -> s32 register: the destination width comes from destBytes.
  EXPECT_EQ(evaluateUnit(MOp::CvtI, typeCode(4, true), 4, 0x80, 0, 0, 4), 0xffffff80u);
  EXPECT_EQ(evaluateUnit(MOp::CvtI, typeCode(4, true), 4, 0x80, 0, 0, 8), 0xffffffffffffff80ull);
  EXPECT_THROW(evaluateUnit(MOp::Ld, 2, 0, 0, 0, 0), Error);
  EXPECT_THROW(evaluateUnit(MOp::MulLo, typeCode(8, false), 0, 3, 5, 0), Error);
}

// ---- docs/machine.md ----

std::string readDoc() {
  std::ifstream f(kSource / "docs" / "machine.md");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The first cells of the body rows of the table in section `section` whose header row starts
// with `header` (other tables of the section are not read).
std::vector<std::string> firstCells(const std::string& doc, const std::string& section,
                                    const std::string& header) {
  std::vector<std::string> cells;
  size_t at = doc.find(section);
  EXPECT_NE(at, std::string::npos) << section;
  if (at == std::string::npos) return cells;
  at = doc.find("\n" + header, at);
  EXPECT_NE(at, std::string::npos) << section << ": no table headed " << header;
  if (at == std::string::npos) return cells;
  std::istringstream in(doc.substr(at + 1));
  std::string line;
  std::getline(in, line);  // the header
  std::getline(in, line);  // |---|
  while (std::getline(in, line) && line.rfind("| ", 0) == 0)
    cells.push_back(line.substr(2, line.find(" |", 2) - 2));
  return cells;
}

// The op names a cell mentions: upper-case words, "MAD*" standing for every MAD op.
bool mentions(const std::string& cell, const std::string& name) {
  static const std::regex word("[A-Z][A-Z0-9]*\\*?");
  for (auto it = std::sregex_iterator(cell.begin(), cell.end(), word); it != std::sregex_iterator(); ++it) {
    std::string w = it->str();
    if (w == name || (w.back() == '*' && name.rfind(w.substr(0, w.size() - 1), 0) == 0)) return true;
  }
  return false;
}

TEST(MachineOps, InstructionTableDocumentsEveryOp) {
  const std::vector<std::string> rows = firstCells(readDoc(), "### 1.4 Micro-instruction set", "| op | semantics");
  ASSERT_GT(rows.size(), 40u);
  for (MOp op : allOps()) {
    bool found = false;
    for (const std::string& r : rows) found = found || mentions(r, opName(op));
    EXPECT_TRUE(found) << opName(op) << " has no row in docs/machine.md §1.4";
  }
}

TEST(MachineOps, CostTableRowsAreTheOnesTheOpsName) {
  const std::vector<std::string> rows = firstCells(readDoc(), "### 5.1 Per micro-operation", "| unit (ops) |");
  ASSERT_GT(rows.size(), 30u);
  auto label = [](const std::string& cell) { return cell.substr(0, cell.find(" (")); };
  std::set<std::string> named;
  for (MOp op : allOps()) {
    std::stringstream costs(opInfo(op).cost);
    std::string want;
    while (std::getline(costs, want, '|')) {
      named.insert(want);
      const std::string* row = nullptr;
      for (const std::string& r : rows)
        if (label(r) == want) row = &r;
      if (row == nullptr) {
        ADD_FAILURE() << opName(op) << ": docs/machine.md §5.1 has no row \"" << want << "\"";
        continue;
      }
      EXPECT_TRUE(mentions(*row, opName(op))) << opName(op) << " is not named in §5.1 row \"" << *row << "\"";
    }
  }
  for (const std::string& r : rows)
    if (r.rfind("operand select", 0) != 0) {
      EXPECT_TRUE(named.count(label(r))) << "§5.1 row \"" << r << "\" is the cost of no op in ops.def";
    }
}

TEST(MachineOps, EncodingSectionCountsTheOps) {
  const std::string doc = readDoc();
  const std::string want = "op (" + std::to_string(static_cast<int>(MOp::Count)) + " ops in use, 128 possible)";
  EXPECT_NE(doc.find(want), std::string::npos) << "docs/machine.md §1.6 should say " << want;
  EXPECT_LE(static_cast<int>(MOp::Count), 128);
}

// ---- operand use in the lowered corpus ----

TEST(MachineOps, LoweredCorpusUsesOperandsAsTheTableSays) {
  size_t programs = 0;
  for (const auto& dir : discoverKernels(kSource / "kernels")) {
    LaunchSpec spec = loadLaunchSpec(dir);
    for (const std::string& fl : spec.flavours()) {
      MachineProgram p;
      try {
        p = lowerKernel(loadProgram(spec.ptxPath(fl)), spec.entry, lowerFor(spec.grid, spec.block, spec.dynamicSharedBytes));
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::Decode) continue;  // not lowered (docs/machine.md §2.4)
        throw;
      }
      ++programs;
      for (size_t pc = 0; pc < p.code.size(); ++pc) {
        const MInstr& in = p.code[pc];
        const uint16_t fields[4] = {in.d, in.a, in.b, in.c};
        const char* use = opInfo(in.op).operands;
        for (int i = 0; i < 4; ++i) {
          const char k = use[i];
          const bool none = fields[i] == kNoOperand;
          EXPECT_TRUE((k == '-' && none) || (k == 'r' && !none) || k == 'o' || (k == 'w' && fields[i] < 4) || k == 'p')
              << spec.name << " [" << fl << "] pc " << pc << " " << disassemble(in) << ": field " << "dabc"[i]
              << " is not '" << k << "'";
        }
      }
    }
  }
  EXPECT_GT(programs, 40u);
}

}  // namespace
}  // namespace qgpu::machine
