// The interpreter as a backend.
#include "qgpu/backend.h"

namespace qgpu {
namespace {

class InterpBackend : public Backend {
 public:
  std::string name() const override { return "interp"; }
  RunResult run(const LaunchSpec& spec, const RunOptions& options) override {
    const Program& program = loadProgram(spec.ptxPath(options.flavour));
    Launch launch = materializeLaunch(spec);
    LaunchOptions lo;
    lo.warpWidth = options.warpWidth;
    lo.maxSteps = options.maxSteps;
    lo.observer = options.observer;
    lo.inject = options.inject;
    LaunchStats stats = runLaunch(program, spec.entry, launch, lo);
    RunResult r;
    r.kernel = spec.name;
    r.backend = name();
    r.flavour = options.flavour;
    r.warpWidth = options.warpWidth;
    r.outputs = collectOutputs(spec, launch);
    r.warpInstructions = stats.warpInstructions;
    r.threadInstructions = stats.threadInstructions;
    if (options.inject) r.provenance["inject"] = formatFaultInjection(*options.inject);
    return r;
  }
};

[[maybe_unused]] const bool kRegistered = registerBackend({
    .name = "interp",
    .summary = "the interpreter (the oracle), W=4 or W=32",
    .provenance = ProvenanceKind::Interpreter,
    .warpWidths = {4, 32},
    .runsPtx = true,
    .traces = true,
    .tokens = false,
    .recordsGoldens = false,
    .make = [] { return makeOracleBackend(); },
});

}  // namespace

std::unique_ptr<Backend> makeOracleBackend() { return std::make_unique<InterpBackend>(); }

}  // namespace qgpu
