// Shared helpers of the machine tests: run PTX text on the oracle and on the machine.
#include "machine_test_util.h"

#include <cstring>
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "qgpu/backend.h"
#include "qgpu/gate.h"
#include "qgpu/interp/error.h"
#include "qgpu/interp/ptx_parser.h"
#include "qgpu/launch_spec.h"
#include "qgpu/machine/lower.h"
#include "qgpu/machine/prompt.h"

namespace qgpu::machine::test {

LaunchArg bufferArg(uint32_t i) {
  LaunchArg a;
  a.kind = LaunchArg::Kind::Buffer;
  a.buffer = i;
  return a;
}

Launch oneBufferLaunch(uint32_t threads, uint32_t words) {
  Launch l;
  l.block = {threads, 1, 1};
  l.buffers = {{"out", std::vector<uint8_t>(4 * words)}};
  l.args = {bufferArg(0)};
  return l;
}

uint32_t word(const std::vector<uint8_t>& buffer, size_t i) {
  uint32_t v = 0;
  std::memcpy(&v, buffer.data() + 4 * i, 4);
  return v;
}

Program decodeText(const std::string& ptx, const std::string& name) {
  return decodeModule(ptx::parseModule(ptx, name));
}

BothResult runBoth(const std::string& ptx, const std::string& entry, const Launch& launch, bool forLaunch,
                   bool shareMicroCode) {
  Program program = decodeText(ptx);
  BothResult r;
  Launch oracle = launch;
  LaunchOptions lo;
  lo.warpWidth = 4;
  lo.maxSteps = 1'000'000;
  runLaunch(program, entry, oracle, lo);
  for (const LaunchBuffer& b : oracle.buffers) r.oracle.push_back(b.data);
  LowerOptions options = forLaunch ? lowerFor(launch.grid, launch.block, launch.dynamicSharedBytes) : LowerOptions{};
  options.shareMicroCode = shareMicroCode;
  r.program = lowerKernel(program, entry, options);
  MachineLaunch ml = machineLaunch(r.program, launch);
  MachineResult ex = execute(r.program, ml, 1'000'000);
  r.machine = ex.buffers;
  // The decoder works from tokens only: the prompt, then the generated stream.
  DecodedPrompt dp = decodePrompt(encodePrompt(r.program, ml));
  std::vector<std::vector<uint8_t>> segments = replay(dp.program, dp.launch, ex.trace.tokens, 1'000'000);
  for (uint64_t addr : ml.bufferAddr)
    for (size_t k = 0; k < dp.launch.bufferAddr.size(); ++k)
      if (dp.launch.bufferAddr[k] == addr) {
        r.replayed.push_back(segments[k]);
        break;
      }
  r.trace = std::move(ex.trace);
  return r;
}

CorpusExecution executeCorpusKernel(const std::string& kernel) {
  const std::filesystem::path kSource = QGPU_SOURCE_DIR;
  const LaunchSpec spec = loadLaunchSpec(kSource / "kernels" / kernel);
  CorpusExecution r;
  r.program = lowerKernel(loadProgram(spec.ptxPath("nvcc")), spec.entry, lowerFor(spec.grid, spec.block, spec.dynamicSharedBytes));
  r.launch = machineLaunch(r.program, materializeLaunch(spec));
  r.result = execute(r.program, r.launch);
  return r;
}

size_t firstTokenMeaning(const Trace& trace, const std::vector<std::string>& parts) {
  for (size_t i = 0; i < trace.meanings.size(); ++i)
    if (std::all_of(parts.begin(), parts.end(), [&](const std::string& p) { return trace.meanings[i].find(p) != std::string::npos; }))
      return i;
  return trace.meanings.size();
}

void expectReplayNeeds(const std::string& kernel, const std::string& marker) {
  const CorpusExecution run = executeCorpusKernel(kernel);
  const Trace& trace = run.result.trace;
  const size_t at = firstTokenMeaning(trace, {marker});
  ASSERT_LT(at, trace.meanings.size()) << kernel << " has no '" << marker << "' token";
  ASSERT_EQ(replay(run.program, run.launch, trace.tokens), run.result.buffers);
  std::vector<uint32_t> missing = trace.tokens;
  missing.erase(missing.begin() + static_cast<long>(at));
  EXPECT_THROW(replay(run.program, run.launch, missing), Error) << kernel << ": dropped " << trace.meanings[at];
}

std::vector<CorpusCase> corpusCases() {
  std::vector<CorpusCase> cases;
  for (const auto& dir : discoverKernels(std::filesystem::path(QGPU_SOURCE_DIR) / "kernels")) {
    LaunchSpec spec = loadLaunchSpec(dir);
    for (const std::string& fl : spec.flavours()) cases.push_back({dir, spec.name, fl});
  }
  return cases;
}

void PrintTo(const CorpusCase& c, std::ostream* os) { *os << c.kernel << " [" << c.flavour << "]"; }

std::string corpusCaseName(const CorpusCase& c) { return c.kernel + "_" + c.flavour; }

}  // namespace qgpu::machine::test
