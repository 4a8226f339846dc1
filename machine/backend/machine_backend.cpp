// The machine as a runner backend: lowering -> executor (token stream) -> host decoder
// (replay onto the initial memory) -> outputs. The outputs therefore come from the token
// stream, not from the executor's own memory.
#include "qgpu/backend.h"
#include "qgpu/machine/core.h"
#include "token_launch.h"

namespace qgpu {
namespace {

class MachineBackend : public Backend {
 public:
  std::string name() const override { return "machine"; }
  RunResult run(const LaunchSpec& spec, const RunOptions& options) override {
    machine::TokenLaunch tl = machine::prepareTokenLaunch(spec, options, name());
    const machine::MachineResult ex = machine::execute(tl.program, tl.machineLaunch, options.maxSteps);
    RunResult r = machine::tokenRunResult(tl, spec, options, name(), ex.trace.tokens, ex.trace);
    const machine::MachineProgram& mp = tl.program;
    r.provenance.update({{"machine_steps", ex.trace.steps},
                         {"machine_instructions", mp.code.size()},
                         {"ptx_instructions", mp.ptxInstructions},
                         {"rom_constants", mp.constants.size()},
                         {"machine_registers", mp.numRegs},
                         {"memory_bytes", memoryBytes(mp, tl.machineLaunch)}});
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
