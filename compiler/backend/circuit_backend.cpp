// The compiled machine as a runner backend, in the circuit's exact evaluator ("--backend
// circuit"): lowering -> prompt tokens -> the joined step circuit generating greedily, every
// token checked against the reference executor's -> the host decoder (replay) -> outputs.
// The outputs come from the circuit's token stream alone, like the machine backend's from
// the executor's; the tier between the executor and the weights (docs/compiler.md §6).
#include <fmt/format.h>

#include "qgpu/backend.h"
#include "qgpu/compiler/circuit_run.h"
#include "qgpu/compiler/machine_step.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/core.h"
#include "token_launch.h"

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
    machine::TokenLaunch tl = machine::prepareTokenLaunch(spec, options, name());
    compiler::refuseWhatTheStepCannotRun("circuit", spec.name, tl.program, tl.machineLaunch);
    const machine::MachineResult reference = machine::execute(tl.program, tl.machineLaunch, options.maxSteps);
    const compiler::CircuitRun run = compiler::runInCircuit(stepCircuit(), tl.prompt, reference.trace);
    // The executor's meanings: the streams are equal (runInCircuit checked every token).
    RunResult r = machine::tokenRunResult(tl, spec, options, name(), run.tokens, reference.trace);
    r.provenance.update({{"positions_evaluated", run.positions},
                         {"circuit", stepCircuit().circuit.name()},
                         {"stream", "equal to the reference executor's at every token"}});
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
