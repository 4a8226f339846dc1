// The compiled machine in Qwen3.5 weights as a runner backend ("--backend model"): lowering
// -> prompt tokens -> the engine's forward pass over the compiled step's weights (prefill,
// then greedy decoding, one token at a time), every token checked against the reference
// executor's -> the host decoder (replay) -> outputs in the common result format. The top
// tier of docs/compiler.md §6: the same stream as `--backend circuit`, from the weights.
#include <fmt/format.h>

#include "qgpu/backend.h"
#include "qgpu/compiler/circuit_run.h"
#include "qgpu/compiler/machine_checkpoint.h"
#include "qgpu/compiler/model_run.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/core.h"
#include "token_launch.h"

namespace qgpu {
namespace {

class ModelBackend : public Backend {
 public:
  std::string name() const override { return "model"; }
  RunResult run(const LaunchSpec& spec, const RunOptions& options) override {
    machine::TokenLaunch tl = machine::prepareTokenLaunch(spec, options, name());
    compiler::refuseWhatTheStepCannotRun("model", spec.name, tl.program, tl.machineLaunch);
    const machine::MachineResult reference = machine::execute(tl.program, tl.machineLaunch, options.maxSteps);
    const compiler::CompiledMachine& cm = compiler::processMachine(options.checkpoint);
    const compiler::ModelRun run = compiler::runInModel(cm, tl.prompt, reference.trace);
    RunResult r = machine::tokenRunResult(tl, spec, options, name(), run.tokens, reference.trace);
    const double generated = static_cast<double>(run.tokens.size());
    // The model's own sizes (a spliced one holds its base's layers too, docs/compiler.md §9).
    r.provenance.update({{"layers", cm.model.config().numLayers},
                    {"hidden_size", cm.model.config().hiddenSize},
                    {"intermediate_size", cm.model.config().intermediateSize},
                    {"proof_min_margin", cm.proof.minMargin},
                    {"prefill_seconds", run.prefillSeconds},
                    {"generate_seconds", run.generateSeconds},
                    {"tokens_per_second", run.generateSeconds > 0 ? generated / run.generateSeconds : 0.0},
                    {"compile_seconds", cm.compileSeconds + cm.proofSeconds + cm.loadSeconds},
                    {"projection_parameters", cm.parameters},
                    {"projection_nonzeros", cm.nonZeros},
                    {"weight_bytes_per_token", cm.bytesPerToken},
                    {"stream", "equal to the reference executor's at every token"}});
    if (cm.checkpoint.empty()) {
      r.provenance["weights"] = "compiled in memory";
    } else {
      r.provenance["weights"] = cm.checkpoint.string();
      r.provenance["checkpoint_sha256"] = cm.manifest["files"]["model.safetensors"].value("sha256", "");
      r.provenance["checkpoint_source_commit"] = cm.manifest.value("source_commit", "");
      if (cm.spliced) r.provenance["spliced"] = cm.manifest["splice"];
    }
    return r;
  }
};

[[maybe_unused]] const bool kRegistered = registerBackend({
    .name = "model",
    .summary = "the compiled machine step as Qwen3.5 weights (hidden 2048) in the engine, prefill then greedy decoding, "
               "checked token by token against the reference executor (docs/compiler.md), W=4",
    .provenance = ProvenanceKind::Model,
    .warpWidths = {machine::kLanes},
    .runsPtx = true,
    .traces = false,
    .tokens = true,
    .recordsGoldens = false,
    .make = [] { return std::unique_ptr<Backend>(std::make_unique<ModelBackend>()); },
});

}  // namespace
}  // namespace qgpu
