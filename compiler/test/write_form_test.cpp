// The write-form decision (write_form.h) against machine::encodeWrite on every register
// write of the lowered corpus runs (the random writes of every form and lane mask are
// unit_reference's write_form case, which also runs the weights through the engine).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <iostream>
#include <map>

#include "corpus_runs.h"
#include "qgpu/compiler/register_write.h"
#include "qgpu/compiler/write_form.h"
#include "qgpu/machine/tokens.h"
#include "qgpu/machine/units.h"

namespace qgpu::compiler {
namespace {

TEST(WriteForm, TheIrChoosesEveryCorpusWritesForm) {
  Unit u = writeFormUnit();
  std::map<machine::WriteForm, size_t> chosen;
  size_t writes = 0;
  for (const CorpusRun& r : corpusRuns())
    for (const machine::RegisterWrite& wr : r.writes) {
      if (wr.atomic || wr.lanes == 0) continue;  // an atomic's d: spelled lane by lane as old values, taken at DONE
      std::array<uint64_t, 4> v{};
      for (uint32_t l = 0; l < 4; ++l) v[l] = wr.values[l] & machine::widthMask(wr.bytes);
      machine::WriteForm f;
      const std::vector<uint32_t> t = machine::encodeWrite(v, wr.lanes, wr.bytes, &f);
      const std::vector<int64_t> got = evaluateOutputs(u.circuit, writeFormInputs(v, wr.lanes, wr.bytes));
      const std::string what = fmt::format("{} write ending at token {}: {:#x} {:#x} {:#x} {:#x}, lanes {:#x}, {} bytes", r.name,
                                           wr.lastToken, v[0], v[1], v[2], v[3], wr.lanes, wr.bytes);
      for (uint32_t k = 0; k < 5; ++k)
        ASSERT_EQ(got[k], static_cast<uint32_t>(f) == k ? 1 : 0) << what << ": form " << machine::writeFormName(f);
      ASSERT_EQ(got[5], static_cast<int64_t>(t.size())) << what;
      if (f == machine::WriteForm::Affine) {
        machine::TokenReader rd(t, 1);
        const uint64_t base = rd.value(wr.bytes), stride = rd.value(wr.bytes);
        for (uint32_t i = 0; i < 64; ++i) {
          ASSERT_EQ(got[6 + i], static_cast<int64_t>((base >> i) & 1)) << what << ": base bit " << i;
          ASSERT_EQ(got[70 + i], static_cast<int64_t>((stride >> i) & 1)) << what << ": stride bit " << i;
        }
      }
      ++chosen[f];
      ++writes;
    }
  std::string counts;
  for (const auto& [f, n] : chosen) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", machine::writeFormName(f), n);
  for (machine::WriteForm f : {machine::WriteForm::Uniform, machine::WriteForm::Pack4, machine::WriteForm::Affine,
                               machine::WriteForm::LanesHigh, machine::WriteForm::Lanes})
    EXPECT_GT(chosen[f], 100u) << machine::writeFormName(f);
  RecordProperty("writes", static_cast<int>(writes));
  std::cout << "[ write form ] " << writes << " register writes: " << counts << "\n";
}

// Every token of every corpus register write, spelled at its index from the decision.
TEST(WriteForm, TheIrSpellsEveryCorpusWritesTokens) {
  Unit u = writeTokenUnit();
  size_t tokens = 0;
  for (const CorpusRun& r : corpusRuns())
    for (const machine::RegisterWrite& wr : r.writes) {
      if (wr.atomic || wr.lanes == 0) continue;
      std::array<uint64_t, 4> v{};
      for (uint32_t l = 0; l < 4; ++l) v[l] = wr.values[l] & machine::widthMask(wr.bytes);
      const std::vector<uint32_t> t = machine::encodeWrite(v, wr.lanes, wr.bytes);
      for (uint32_t k = 0; k < t.size(); ++k) {
        const std::vector<int64_t> got = evaluateOutputs(u.circuit, writeTokenInputs(v, wr.lanes, wr.bytes, k));
        const uint32_t id = spelledWriteToken(got, 0);
        ASSERT_EQ(id, t[k]) << r.name << " write ending at token " << wr.lastToken << ", its token " << k << ": want "
                            << machine::tokenName(t[k]) << ", got " << machine::tokenName(id);
        ASSERT_EQ(got[kWriteTokenKinds + 16], k + 1 == t.size() ? 1 : 0) << r.name << " write ending at token " << wr.lastToken << ": last";
        ++tokens;
      }
    }
  EXPECT_GT(tokens, 300000u);
  RecordProperty("tokens", static_cast<int>(tokens));
  std::cout << "[ write tokens ] " << tokens << " tokens of the corpus's register writes\n";
}

}  // namespace
}  // namespace qgpu::compiler
