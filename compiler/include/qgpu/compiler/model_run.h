// The compiled machine in the engine's weights (docs/compiler.md §6, "--backend model"): the
// joined step compiled with the machine's token vocabulary (embedding = each id's features,
// head = the id its outputs spell), proven exact, loaded into the Qwen3.5 engine; a launch's
// prompt is prefilled, then every next token is the argmax of the logits, fed back — token
// by token, each checked against the reference executor's stream, as runInCircuit does in
// the exact evaluator one tier below.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/proof.h"
#include "qgpu/compiler/units.h"
#include "qgpu/machine/core.h"
#include "qgpu/model/model.h"

namespace qgpu::compiler {

/// The step compiled and proven, not yet in the engine (what a checkpoint is written from).
struct CompiledStep {
  Unit step;          // the circuit (the IR)
  CompiledUnit unit;  // the step's plan, config and tensors (dense f32 in memory: about 15 GB)
  ProofReport proof;
  double compileSeconds = 0, proofSeconds = 0;
};

struct CompiledMachine {
  Unit step;          // the circuit (the IR), for the probe of a divergence
  CompiledUnit unit;  // the step's plan and config; its tensors when compiled in memory (null: from a checkpoint)
  ProofReport proof;  // from a checkpoint: its manifest's minimum margin only
  model::Model model;  // the engine over those tensors, every projection on the sparse path
  double compileSeconds = 0, proofSeconds = 0, loadSeconds = 0;
  // Empty when compiled in memory; else the checkpoint folder and its manifest.
  std::filesystem::path checkpoint;
  nlohmann::json manifest;
  // Model row of machine id m: m - kTextVocab + idRowOffset. 0 for the machine alone; in a
  // model spliced into a base (splice.h) the machine's ids follow the base's vocabulary.
  int64_t idRowOffset = 0;
  // A spliced model: the machine's channels start at this one (the probe reads the machine
  // alone's channels, so it names no layer here).
  bool spliced = false;
  // The engine's projections (mixers, MLPs, head): entries, non-zero entries, and the weight
  // bytes one decoding step streams (projections, one embedding row and the norms).
  size_t parameters = 0, nonZeros = 0, bytesPerToken = 0;
};

/// How a step unit with the machine vocabulary is emitted: hidden 2,048, token I/O by `v`,
/// and model row r embedding the front-end features of machine id r + kTextVocab.
EmitOptions machineEmitOptions(const TokenVocabulary& v);

/// machineStepUnit with the machine vocabulary, compiled at hidden 2048 and proven
/// (proveExact). Throws CompileError if the proof refuses.
CompiledStep compileMachineStep();

/// compileMachineStep, loaded into the engine.
std::unique_ptr<CompiledMachine> compileMachine();

/// A compiled machine run by `engine` (the step's own or a spliced model): fills its sizes
/// (parameters, non-zeros, weight bytes a token); times are the caller's.
std::unique_ptr<CompiledMachine> machineOver(Unit step, CompiledUnit unit, ProofReport proof, model::Model engine);

/// The engine over `unit.store`, every projection sparse; fills cm's sizes and load time.
std::unique_ptr<CompiledMachine> machineInEngine(Unit step, CompiledUnit unit, ProofReport proof,
                                                 std::shared_ptr<const model::TensorStore> store);

/// The process's compiled machine: compiled and proven in memory (`checkpoint` empty; about a
/// minute and 17 GB) or loaded from a checkpoint folder (machine_checkpoint.h; seconds, the
/// non-zeros in memory), kept for later calls with the same source. Calls are serialised (two
/// threads asking at once build it once). One at a time: a call naming another source lets go
/// of the last machine first (invalidating its reference).
const CompiledMachine& processMachine(const std::string& checkpoint = "");

struct ModelRun {
  std::vector<uint32_t> tokens;  // generated, ending in HALT
  size_t prefill = 0;            // prompt positions (one forward pass)
  double prefillSeconds = 0, generateSeconds = 0;
};
/// Prefills `prompt` into a fresh state of the machine's engine and generates greedily until
/// HALT. The first argmax that differs from `expected`'s stream throws ErrorKind::Diverged
/// naming the position, the step, what the executor says there, what the weights chose, and
/// the probe's finding at that position (probe.h): the first layer, channel, wire and
/// neurons where the weights part from the IR, or the token head if nowhere.
ModelRun runInModel(const CompiledMachine& cm, const std::vector<uint32_t>& prompt, const machine::Trace& expected);

}  // namespace qgpu::compiler
