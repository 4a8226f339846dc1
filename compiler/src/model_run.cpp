// The compiled machine generating a launch's tokens in the engine (model_run.h).
#include "qgpu/compiler/model_run.h"

#include <fmt/format.h>

#include <chrono>
#include <mutex>

#include "qgpu/compiler/circuit_run.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/machine_checkpoint.h"
#include "qgpu/compiler/machine_step.h"
#include "qgpu/compiler/machine_vocabulary.h"
#include "qgpu/compiler/probe.h"
#include "qgpu/compiler/register_write.h"
#include "qgpu/compiler/alu.h"
#include "qgpu/compiler/step_front.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/tokens.h"
#include "qgpu/model/generate.h"

namespace qgpu::compiler {
namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

EmitOptions machineEmitOptions(const TokenVocabulary& v) {
  EmitOptions o;
  o.minHidden = 2048;
  o.tokens = &v;
  // Model row r is machine id r + kTextVocab (the base model's text ids come first).
  o.tokenFeatures = [](int64_t row) { return frontInputs(static_cast<uint32_t>(row + machine::kTextVocab)); };
  return o;
}

CompiledStep compileMachineStep() {
  auto t = std::chrono::steady_clock::now();
  const TokenVocabulary vocabulary = machineVocabulary(0);
  Unit step = machineStepUnit(&vocabulary);
  CompiledUnit unit = compileCircuit(step.circuit, machineEmitOptions(vocabulary));
  const double compiled = secondsSince(t);
  t = std::chrono::steady_clock::now();
  ProofReport proof = proveExact(unit);
  return CompiledStep{std::move(step), std::move(unit), std::move(proof), compiled, secondsSince(t)};
}

std::unique_ptr<CompiledMachine> machineOver(Unit step, CompiledUnit unit, ProofReport proof, model::Model engine) {
  auto out = std::make_unique<CompiledMachine>(CompiledMachine{std::move(step), std::move(unit), std::move(proof),
                                                               std::move(engine), 0, 0, 0, {}, {}, 0, false, 0, 0, 0});
  for (const model::Linear* p : out->model.projections()) {
    out->parameters += static_cast<size_t>(p->rows()) * static_cast<size_t>(p->cols());
    out->nonZeros += p->nonZeros();
  }
  out->bytesPerToken = out->model.weightBytesPerToken();
  return out;
}

std::unique_ptr<CompiledMachine> machineInEngine(Unit step, CompiledUnit unit, ProofReport proof,
                                                 std::shared_ptr<const model::TensorStore> store) {
  const auto t = std::chrono::steady_clock::now();
  model::ModelOptions mo;
  mo.linear.sparseDensity = 1.0;  // every projection sparse: the step's weights are mostly zeros
  model::Model m = model::Model::fromStore(unit.config, std::move(store), mo);
  auto out = machineOver(std::move(step), std::move(unit), std::move(proof), std::move(m));
  out->loadSeconds = secondsSince(t);
  return out;
}

std::unique_ptr<CompiledMachine> compileMachine() {
  CompiledStep s = compileMachineStep();
  std::shared_ptr<const model::TensorStore> store = s.unit.store;
  auto out = machineInEngine(std::move(s.step), std::move(s.unit), std::move(s.proof), std::move(store));
  out->compileSeconds = s.compileSeconds;
  out->proofSeconds = s.proofSeconds;
  return out;
}

const CompiledMachine& processMachine(const std::string& checkpoint) {
  static std::mutex guard;  // two threads asking at once compile or load it once
  const std::lock_guard<std::mutex> lock(guard);
  static std::string source;
  static std::unique_ptr<CompiledMachine> machine;
  if (!machine || source != checkpoint) {
    machine.reset();
    machine = checkpoint.empty() ? compileMachine() : loadMachineCheckpoint(checkpoint);
    source = checkpoint;
  }
  return *machine;
}

ModelRun runInModel(const CompiledMachine& cm, const std::vector<uint32_t>& prompt, const machine::Trace& expected) {
  const model::Model& m = cm.model;
  if (prompt.empty() || prompt.back() != machine::ctl(machine::Ctl::Go))
    throw Error(ErrorKind::Input, "model: a prompt ends with GO");
  auto row = [&cm](uint32_t id) { return static_cast<int>(static_cast<int64_t>(id) - machine::kTextVocab + cm.idRowOffset); };
  ModelRun run;
  model::DecodeState st = m.newState();
  auto t = std::chrono::steady_clock::now();
  std::vector<int> ids;
  for (uint32_t id : prompt) ids.push_back(row(id));
  Eigen::VectorXf logits = m.forward(st, ids, model::Logits::LastOnly).col(0);
  run.prefill = prompt.size();
  run.prefillSeconds = secondsSince(t);
  t = std::chrono::steady_clock::now();
  while (true) {
    const size_t k = run.tokens.size();
    const uint32_t got = static_cast<uint32_t>(model::argmaxToken(logits) + machine::kTextVocab - cm.idRowOffset);
    if (k >= expected.tokens.size() || got != expected.tokens[k]) {
      // Probe the position that chose it: every token so far through the IR and the engine.
      std::vector<std::vector<int64_t>> inputs;
      std::vector<int> rows;
      for (size_t p = 0; p < prompt.size() + k; ++p) {
        const uint32_t id = p < prompt.size() ? prompt[p] : run.tokens[p - prompt.size()];
        inputs.push_back(frontInputs(id));
        rows.push_back(row(id));
      }
      // Which tier: the IR spelling the same token puts the fault in the circuit (where
      // --backend circuit stops too), else the probe finds where the weights leave the IR.
      std::string where;
      try {
        Evaluator ev(cm.step.circuit);
        std::vector<int64_t> values;
        for (const std::vector<int64_t>& in : inputs) values = ev.step(in);
        std::vector<int64_t> out;
        for (const auto& [name, wire] : cm.step.circuit.outputs()) out.push_back(values[wire]);
        const SpelledToken ir = spelledToken(out, kAluOutputs);
        if (cm.spliced) {
          where = ir.id == got ? "the step circuit (the IR) spells it too: the circuit's fault, not the weights'"
                               : "a spliced model (the probe reads the machine alone's channels: run the launch on the "
                                 "machine's own checkpoint to name the layer)";
        } else if (ir.id == got) {
          where = "the step circuit (the IR) spells it too: the circuit's fault, not the weights'";
        } else {
          const std::optional<ProbeDifference> d = probeLastPosition(values, cm.unit, m, inputs, rows);
          where = d ? "first difference from the IR: " + d->describe()
                    : "every residual channel holds its IR value after the last layer: the final norm or the token head";
        }
      } catch (const CompileError& e) {
        where = fmt::format("the IR refuses the position ({}): the circuit's fault, not the weights'", e.what());
      }
      throw Error(ErrorKind::Diverged, fmt::format("{}, the weights' argmax is {}; {}", describeGenerated("model", prompt, expected, k),
                                                  machine::tokenName(got), where));
    }
    run.tokens.push_back(got);
    if (got == machine::ctl(machine::Ctl::Halt)) break;
    logits = m.step(st, row(got));
  }
  run.generateSeconds = secondsSince(t);
  return run;
}

}  // namespace qgpu::compiler
