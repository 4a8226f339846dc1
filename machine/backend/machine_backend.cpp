// The machine as a runner backend: lowering -> executor (token stream) -> host decoder
// (replay onto the initial memory) -> outputs. The outputs therefore come from the token
// stream, not from the executor's own memory.
#include <fstream>

#include <fmt/format.h>

#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/lower.h"
#include "qgpu/machine/prompt.h"
#include "qgpu/machine/tokens.h"

namespace qgpu {
namespace {

class MachineBackend : public Backend {
 public:
  std::string name() const override { return "machine"; }
  RunResult run(const LaunchSpec& spec, const RunOptions& options) override {
    if (options.warpWidth != machine::kLanes)
      throw Error(ErrorKind::Input, fmt::format("the machine is a {}-lane core; run it with --warp {} (got {})",
                                                machine::kLanes, machine::kLanes, options.warpWidth));
    const Program& program = loadProgram(spec.ptxPath(options.flavour));
    machine::MachineProgram mp = machine::lowerKernel(program, spec.entry, machine::lowerFor(spec.grid, spec.block, spec.dynamicSharedBytes));
    Launch launch = materializeLaunch(spec);
    machine::MachineLaunch ml = machine::machineLaunch(mp, launch);
    machine::PromptStats ps;
    std::vector<uint32_t> prompt = machine::encodePrompt(mp, ml, &ps);
    machine::MachineResult ex = machine::execute(mp, ml, options.maxSteps);
    if (!options.tokensFile.empty()) writeTokens(options.tokensFile, ex.trace);
    // The host decoder sees only tokens: the prompt (ROM, launch, initial memory) and the
    // generated stream. Launch buffer i is the replayed global segment at its address.
    machine::DecodedPrompt dp = machine::decodePrompt(prompt);
    std::vector<std::vector<uint8_t>> replayed =
        machine::replay(dp.program, dp.launch, ex.trace.tokens, options.maxSteps);
    for (size_t i = 0; i < launch.buffers.size(); ++i) {
      size_t k = 0;
      while (k < dp.launch.bufferAddr.size() && dp.launch.bufferAddr[k] != ml.bufferAddr[i]) ++k;
      if (k == dp.launch.bufferAddr.size())
        throw Error(ErrorKind::Backend, fmt::format("machine: buffer {} is missing from the prompt", i));
      launch.buffers[i].data = replayed[k];
    }
    RunResult r;
    r.kernel = spec.name;
    r.backend = name();
    r.flavour = options.flavour;
    r.warpWidth = options.warpWidth;
    r.outputs = collectOutputs(spec, launch);
    r.warpInstructions = ex.trace.steps;
    r.provenance = {{"prompt_tokens", prompt.size()},
                    {"generated_tokens", ex.trace.tokens.size()},
                    {"machine_steps", ex.trace.steps},
                    {"machine_instructions", mp.code.size()},
                    {"ptx_instructions", mp.ptxInstructions},
                    {"rom_constants", mp.constants.size()},
                    {"machine_registers", mp.numRegs},
                    {"memory_bytes", memoryBytes(mp, ml)}};
    return r;
  }

 private:
  // Bytes the memory layers must hold for this launch (docs/machine.md §5).
  static uint64_t memoryBytes(const machine::MachineProgram& mp, const machine::MachineLaunch& ml) {
    uint64_t n = ml.params.size() + mp.constBank.size() + uint64_t{mp.staticSharedBytes} +
                 ml.dynamicSharedBytes + uint64_t{mp.localBytes} * ml.block.count();
    for (const auto& g : mp.moduleGlobals) n += g.size();
    for (const auto& b : ml.buffers) n += b.size();
    return n;
  }
  static void writeTokens(const std::string& path, const machine::Trace& t) {
    std::ofstream out(path);
    if (!out) throw Error(ErrorKind::Input, fmt::format("{}: cannot write the token stream", path));
    for (size_t i = 0; i < t.tokens.size(); ++i) out << t.tokens[i] << '\t' << t.meanings[i] << '\n';
    if (!out) throw Error(ErrorKind::Input, fmt::format("{}: write failed", path));
  }
};

[[maybe_unused]] const bool kRegistered = registerBackend({
    .name = "machine",
    .summary = "the weight-embedded machine's reference executor and token decoder (docs/machine.md), W=4",
    .provenance = ProvenanceKind::Model,
    .warpWidths = {machine::kLanes},
    .runsPtx = true,
    .traces = false,
    .tokens = true,
    .recordsGoldens = false,
    .make = [] { return std::unique_ptr<Backend>(std::make_unique<MachineBackend>()); },
});

}  // namespace

}  // namespace qgpu
