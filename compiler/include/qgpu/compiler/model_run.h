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
#include "qgpu/compiler/units.h"
#include "qgpu/machine/core.h"
#include "qgpu/model/model.h"

namespace qgpu::compiler {

struct CompiledMachine {
  Unit step;          // the circuit (the IR), for the probe of a divergence
  CompiledUnit unit;  // the step's plan, config and tensors (dense f32: about 16 GB at hidden 2048)
  ProofReport proof;
  model::Model model;  // the engine over those tensors, every projection on the sparse path
  double compileSeconds = 0, proofSeconds = 0, loadSeconds = 0;
  // The engine's projections (mixers, MLPs, head): entries, non-zero entries, and the weight
  // bytes one decoding step streams (projections, one embedding row and the norms).
  size_t parameters = 0, nonZeros = 0, bytesPerToken = 0;
};

/// How a step unit with the machine vocabulary is emitted: hidden 2,048, token I/O by `v`,
/// and model row r embedding the front-end features of machine id r + kTextVocab.
EmitOptions machineEmitOptions(const TokenVocabulary& v);

/// machineStepUnit with the machine vocabulary, compiled at hidden 2048, proven
/// (proveExact), loaded into the engine. Throws CompileError if the proof refuses.
std::unique_ptr<CompiledMachine> compileMachine();

struct ModelRun {
  std::vector<uint32_t> tokens;  // generated, ending in HALT
  size_t prefill = 0;            // prompt positions (one forward pass)
  double prefillSeconds = 0, generateSeconds = 0;
};
/// Prefills `prompt` into a fresh state of the machine's engine and generates greedily until
/// HALT. The first argmax that differs from `expected`'s stream throws ErrorKind::Backend
/// naming the position, the step, what the executor says there, what the weights chose, and
/// the probe's finding at that position (probe.h): the first layer, channel, wire and
/// neurons where the weights part from the IR, or the token head if nowhere.
ModelRun runInModel(const CompiledMachine& cm, const std::vector<uint32_t>& prompt, const machine::Trace& expected);

}  // namespace qgpu::compiler
