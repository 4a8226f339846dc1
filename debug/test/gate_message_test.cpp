// A failing conformance test's message carries the diff summary, the
// instruction that wrote the first wrong element, and the `qgpu diff`
// command that reproduces the full report.
#include <gtest/gtest.h>

#include "qgpu/gate.h"
#include "qgpu/golden.h"
#include "test_support.h"

namespace qgpu {
namespace {

TEST(GateMessage, NamesTheWriterAndTheDiffCommand) {
  LaunchSpec dot = test::testKernel("dot");
  auto dir = test::scratchDir("gate");
  RunResult golden = makeBackend("host-ref")->run(dot, {});
  stampProvenance(golden, dot, "host-ref", "test");
  golden.outputs[0].bytes[0] ^= 1;
  auto path = dir / "dot" / "host-ref.json";
  writeResultFile(path, golden);
  GateOutcome g = runGate(dot, "nvcc", 32, dir);
  ASSERT_FALSE(g.pass);
  uint32_t store = test::pcOf(dot, "st.global.f32");
  EXPECT_NE(g.message.find(fmt::format("first mismatch out[0] was written by block (0,0,0) thread (0,0,0) at pc {} ",
                                       store)),
            std::string::npos)
      << g.message;
  EXPECT_NE(g.message.find(fmt::format("reproduce: build/bin/qgpu diff {} interp:{} --flavour nvcc --warp 32",
                                       path.string(), dot.dir.string())),
            std::string::npos)
      << g.message;
  EXPECT_NE(g.message.find("out: 1 of 1 elements differ"), std::string::npos) << g.message;
}

}  // namespace
}  // namespace qgpu
