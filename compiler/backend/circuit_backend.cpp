// The compiled machine as a runner backend, in the circuit's exact evaluator ("--backend
// circuit"): lowering -> prompt tokens -> the joined step circuit generating greedily, every
// token checked against the reference executor's -> the host decoder (replay) -> outputs.
// The outputs come from the circuit's token stream alone, like the machine backend's from
// the executor's; the tier between the executor and the weights (docs/compiler.md §6).
#include <fstream>

#include <fmt/format.h>

#include "qgpu/backend.h"
#include "qgpu/compiler/circuit_run.h"
#include "qgpu/compiler/machine_step.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/core.h"
#include "qgpu/machine/lower.h"
#include "qgpu/machine/prompt.h"
#include "qgpu/machine/tokens.h"

namespace qgpu {
namespace {

// The step circuit, built once per process (about a second).
const compiler::Unit& stepCircuit() {
  static const compiler::Unit unit = compiler::machineStepUnit();
  return unit;
}

class CircuitBackend : public Backend {
 public:
  std::string name() const override { return "circuit"; }
  RunResult run(const LaunchSpec& spec, const RunOptions& options) override {
    if (options.warpWidth != machine::kLanes)
      throw Error(ErrorKind::Input, fmt::format("the compiled machine is a {}-lane core; run it with --warp {} (got {})",
                                                machine::kLanes, machine::kLanes, options.warpWidth));
    const Program& program = loadProgram(spec.ptxPath(options.flavour));
    const machine::MachineProgram mp =
        machine::lowerKernel(program, spec.entry, machine::lowerFor(spec.grid, spec.block, spec.dynamicSharedBytes));
    if (const auto what = compiler::firstNotRun(mp))
      throw Error(ErrorKind::Backend, fmt::format("circuit: {}: {}", spec.name, *what));
    Launch launch = materializeLaunch(spec);
    const machine::MachineLaunch ml = machine::machineLaunch(mp, launch);
    const std::vector<uint32_t> prompt = machine::encodePrompt(mp, ml);
    const machine::MachineResult reference = machine::execute(mp, ml, options.maxSteps);
    const compiler::CircuitRun run = compiler::runInCircuit(stepCircuit(), prompt, reference.trace);
    if (!options.tokensFile.empty()) {
      // The machine backend's format: id TAB meaning (the executor's meaning: the streams are equal).
      std::ofstream out(options.tokensFile);
      if (!out) throw Error(ErrorKind::Input, fmt::format("{}: cannot write the token stream", options.tokensFile));
      for (size_t i = 0; i < run.tokens.size(); ++i) out << run.tokens[i] << '\t' << reference.trace.meanings[i] << '\n';
      if (!out) throw Error(ErrorKind::Input, fmt::format("{}: write failed", options.tokensFile));
    }
    // The host decoder sees the prompt and the circuit's tokens only.
    const machine::DecodedPrompt dp = machine::decodePrompt(prompt);
    const std::vector<std::vector<uint8_t>> replayed = machine::replay(dp.program, dp.launch, run.tokens, options.maxSteps);
    for (size_t i = 0; i < launch.buffers.size(); ++i) {
      size_t k = 0;
      while (k < dp.launch.bufferAddr.size() && dp.launch.bufferAddr[k] != ml.bufferAddr[i]) ++k;
      if (k == dp.launch.bufferAddr.size())
        throw Error(ErrorKind::Backend, fmt::format("circuit: buffer {} is missing from the prompt", i));
      launch.buffers[i].data = replayed[k];
    }
    RunResult r;
    r.kernel = spec.name;
    r.backend = name();
    r.flavour = options.flavour;
    r.warpWidth = options.warpWidth;
    r.outputs = collectOutputs(spec, launch);
    r.warpInstructions = reference.trace.steps;
    r.provenance = {{"prompt_tokens", prompt.size()},
                    {"generated_tokens", run.tokens.size()},
                    {"positions_evaluated", run.positions},
                    {"circuit", stepCircuit().circuit.name()},
                    {"stream", "equal to the reference executor's at every token"}};
    return r;
  }
};

[[maybe_unused]] const bool kRegistered = registerBackend({
    .name = "circuit",
    .summary = "the compiled machine step in the compiler's exact circuit evaluator, greedy, checked token by token "
               "against the reference executor (docs/compiler.md), W=4",
    .provenance = ProvenanceKind::Model,
    .warpWidths = {machine::kLanes},
    .runsPtx = true,
    .traces = false,
    .tokens = true,
    .recordsGoldens = false,
    .make = [] { return std::unique_ptr<Backend>(std::make_unique<CircuitBackend>()); },
});

}  // namespace
}  // namespace qgpu
