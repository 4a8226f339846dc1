// The conformance gate in ctest: every corpus kernel, for each PTX flavour it
// has and at warp widths 4 and 32, run on the interpreter and compared bit for
// bit with every non-stale golden it has. A kernel without a golden fails.
#include <gtest/gtest.h>

#include <filesystem>

#include "qgpu/gate.h"
#include "qgpu/launch_spec.h"

namespace {

const std::filesystem::path kSource = QGPU_SOURCE_DIR;

struct Case {
  std::filesystem::path dir;
  std::string kernel, flavour;
  uint32_t warp;
};

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (const auto& dir : qgpu::discoverKernels(kSource / "kernels")) {
    qgpu::LaunchSpec spec = qgpu::loadLaunchSpec(dir);
    for (const std::string& fl : spec.flavours())
      for (uint32_t w : {4u, 32u}) cases.push_back({dir, spec.name, fl, w});
  }
  return cases;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.kernel << " [" << c.flavour << ", W=" << c.warp << "]"; }

class Conformance : public testing::TestWithParam<Case> {};

TEST_P(Conformance, MatchesGoldens) {
  const Case& c = GetParam();
  qgpu::LaunchSpec spec = qgpu::loadLaunchSpec(c.dir);
  qgpu::GateOutcome o = qgpu::runGate(spec, c.flavour, c.warp, kSource / "goldens");
  EXPECT_TRUE(o.pass) << o.message;
  EXPECT_FALSE(o.goldensUsed.empty()) << o.message;
}

INSTANTIATE_TEST_SUITE_P(Corpus, Conformance, testing::ValuesIn(allCases()),
                         [](const testing::TestParamInfo<Case>& p) {
                           return p.param.kernel + "_" + p.param.flavour + "_w" +
                                  std::to_string(p.param.warp);
                         });

}  // namespace
