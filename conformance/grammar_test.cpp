// The grammar corpus in ctest (issue #11 section 3): every PTX file under
// conformance/grammar gets qgpu's verdict (parse + decode), which must equal ptxas's
// verdict recorded in conformance/grammar/verdicts.json by tools/grammar_corpus.py
// (at the file's reference arch). Every accepted file must also run: each .entry on a
// tiny launch (one block of 32 threads, every .u64/.b64 parameter a 4 KiB zeroed
// buffer, every other parameter 0) at warp widths 4 and 32, without an error — except that
// a kernel with an instruction defined over 32 lanes only (ldmatrix, mma) must be refused
// at W=4 with the launch error that says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "qgpu/interp/error.h"
#include "qgpu/interp/isa.h"
#include "qgpu/interp/launch.h"
#include "qgpu/interp/program.h"
#include "qgpu/interp/ptx_parser.h"

namespace {

const std::filesystem::path kCorpus = std::filesystem::path(QGPU_SOURCE_DIR) / "conformance" / "grammar";

struct Case {
  std::string file;      // relative to kCorpus
  std::string expected;  // "accepted" / "rejected"
  std::string ptxasSays;
};

nlohmann::json verdicts() {
  std::ifstream in(kCorpus / "verdicts.json");
  if (!in) return nlohmann::json::object();
  return nlohmann::json::parse(in);
}

std::vector<Case> allCases() {
  std::vector<Case> cases;
  const nlohmann::json v = verdicts();
  if (!v.contains("files")) return cases;
  for (const auto& [file, e] : v["files"].items()) {
    const std::string arch = e["reference_arch"];
    cases.push_back({file, e["expected"], e["verdicts"][arch]});
  }
  return cases;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.file; }

std::string caseName(const testing::TestParamInfo<Case>& info) {
  std::string n = info.param.file;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

// One launch of `entry` with zeroed buffers for the pointer-sized parameters.
void runTiny(const qgpu::Program& p, const qgpu::FunctionInfo& f, uint32_t warp) {
  qgpu::Launch launch;
  launch.block = {32, 1, 1};
  for (const qgpu::KernelParam& kp : f.kernelParams) {
    qgpu::LaunchArg a;
    a.name = kp.name;
    if (kp.size == 8 && (kp.type == "u64" || kp.type == "b64" || kp.type == "s64")) {
      a.kind = qgpu::LaunchArg::Kind::Buffer;
      a.buffer = static_cast<uint32_t>(launch.buffers.size());
      launch.buffers.push_back({kp.name, std::vector<uint8_t>(4096, 0)});
    } else {
      a.kind = qgpu::LaunchArg::Kind::Scalar;
      a.scalarBytes = kp.size;
    }
    launch.args.push_back(a);
  }
  qgpu::LaunchOptions o;
  o.warpWidth = warp;
  o.maxSteps = 1'000'000;
  qgpu::runLaunch(p, f.name, launch, o);
}

class Grammar : public testing::TestWithParam<Case> {};

TEST_P(Grammar, AgreesWithPtxasAndAcceptedFilesRun) {
  const Case& c = GetParam();
  std::string qgpuSays = "accepted";
  std::optional<qgpu::Program> program;
  try {
    program = qgpu::decodeModule(qgpu::ptx::parseFile((kCorpus / c.file).string()));
  } catch (const qgpu::Error& e) {
    qgpuSays = std::string("rejected: ") + e.what();
  }
  ASSERT_EQ(qgpuSays.substr(0, 8), c.expected.substr(0, 8))
      << c.file << "\n  qgpu:  " << qgpuSays << "\n  ptxas: " << c.ptxasSays;
  if (!program) return;
  const bool fullWarpOnly = std::any_of(program->code.begin(), program->code.end(),
                                        [](const qgpu::Instr& in) { return qgpu::needsFullWarp(in.opcode); });
  size_t entries = 0;
  for (const qgpu::FunctionInfo& f : program->functions) {
    if (!f.isEntry) continue;
    ++entries;
    for (uint32_t w : {4u, 32u}) {
      try {
        runTiny(*program, f, w);
      } catch (const qgpu::Error& e) {
        const bool refusedWidth = w != 32 && e.kind() == qgpu::ErrorKind::Launch &&
                                  std::string(e.what()).find("needs a 32-lane warp") != std::string::npos;
        if (!refusedWidth || !fullWarpOnly)
          ADD_FAILURE() << c.file << ": entry " << f.name << " at W=" << w << ": " << e.what();
      }
    }
  }
  EXPECT_GT(entries, 0u) << c.file << " has no .entry to run";
}

INSTANTIATE_TEST_SUITE_P(Corpus, Grammar, testing::ValuesIn(allCases()), caseName);

// Every file has a recorded verdict, every verdict a file, and both verdicts occur.
TEST(GrammarCorpus, EveryFileHasAVerdictAndBothVerdictsOccur) {
  const nlohmann::json v = verdicts();
  ASSERT_TRUE(v.contains("files")) << "conformance/grammar/verdicts.json is missing";
  EXPECT_TRUE(v.contains("ptxas")) << "verdicts.json does not say which ptxas recorded it";
  std::set<std::string> onDisk;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kCorpus))
    if (e.path().extension() == ".ptx")
      onDisk.insert(std::filesystem::relative(e.path(), kCorpus).string());
  std::set<std::string> recorded;
  size_t accepted = 0;
  for (const auto& [file, e] : v["files"].items()) {
    recorded.insert(file);
    if (e["expected"] == "accepted") ++accepted;
  }
  for (const std::string& f : onDisk)
    EXPECT_TRUE(recorded.count(f)) << f << " has no verdict (tools/grammar_corpus.py record)";
  for (const std::string& f : recorded) EXPECT_TRUE(onDisk.count(f)) << f << " is recorded but missing";
  EXPECT_GT(accepted, 0u);
  EXPECT_LT(accepted, recorded.size());
}

}  // namespace
