// The compiled machine in the engine's weights (docs/compiler.md §6, "--backend model"): the
// joined step compiled with the machine's token vocabulary (embedding = each id's features,
// head = the id its outputs spell), proven exact, loaded into the Qwen3.5 engine; a launch's
// prompt is prefilled, then every next token is the argmax of the logits, fed back — token
// by token, each checked against the reference executor's stream, as runInCircuit does in
// the exact evaluator one tier below.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/machine/core.h"
#include "qgpu/model/model.h"

namespace qgpu::compiler {

struct CompiledMachine {
  CompiledUnit unit;  // the step's plan, config and tensors (dense f32: about 16 GB at hidden 2048)
  ProofReport proof;
  model::Model model;  // the engine over those tensors, every projection on the sparse path
  double compileSeconds = 0, proofSeconds = 0, loadSeconds = 0;
};

/// machineStepUnit with the machine vocabulary, compiled at hidden 2048, proven
/// (proveExact), loaded into the engine. Throws CompileError if the proof refuses.
std::unique_ptr<CompiledMachine> compileMachine();

struct ModelRun {
  std::vector<uint32_t> tokens;  // generated, ending in HALT
  size_t prefill = 0;            // prompt positions (one forward pass)
  double prefillSeconds = 0, generateSeconds = 0;
};
/// Prefills `prompt` into a fresh state of `m` and generates greedily until HALT. The first
/// argmax that differs from `expected`'s stream throws ErrorKind::Backend naming the
/// position, the step, what the executor says there and what the weights chose.
ModelRun runInModel(const model::Model& m, const std::vector<uint32_t>& prompt, const machine::Trace& expected);

}  // namespace qgpu::compiler
