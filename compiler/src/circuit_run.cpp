// The step circuit generating a launch's tokens in the exact evaluator (circuit_run.h).
#include "qgpu/compiler/circuit_run.h"

#include <fmt/format.h>

#include "qgpu/compiler/alu.h"
#include "qgpu/compiler/circuit.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/machine_step.h"
#include "qgpu/compiler/register_write.h"
#include "qgpu/compiler/step_front.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {

using machine::MOp;

bool stepRuns(const machine::MInstr& in) {
  return stepComputes(in) || in.op == MOp::Bra || in.op == MOp::Exit || in.op == MOp::St || in.op == MOp::Bar;
}

std::optional<std::string> firstNotRun(const machine::MachineProgram& p) {
  for (size_t pc = 0; pc < p.code.size(); ++pc)
    if (!stepRuns(p.code[pc]))
      return fmt::format("pc {}: {} (not compiled into the step yet)", pc, machine::opName(p.code[pc].op));
  return std::nullopt;
}

CircuitRun runInCircuit(const Unit& step, const std::vector<uint32_t>& prompt, const machine::Trace& expected) {
  if (prompt.empty() || prompt.back() != machine::ctl(machine::Ctl::Go))
    throw Error(ErrorKind::Input, "circuit: a prompt ends with GO");
  Evaluator ev(step.circuit);
  CircuitRun run;
  std::vector<int64_t> out;
  for (uint32_t id : prompt) {
    out = ev.stepOutputs(frontInputs(id));
    ++run.positions;
  }
  // The step of each generated token, for the report: the last step starting at or before it.
  auto stepOf = [&](size_t t) {
    size_t s = 0;
    while (s + 1 < expected.stepStates.size() && expected.stepStates[s + 1].firstToken <= t) ++s;
    return s;
  };
  // An evaluator refusal (a value outside its node's range: two tokens' gates at once) is the
  // circuit's fault at this position: named like a wrong token.
  auto evaluate = [&](uint32_t id) {
    try {
      out = ev.stepOutputs(frontInputs(id));
    } catch (const CompileError& e) {
      const size_t t = run.tokens.size();
      throw Error(ErrorKind::Backend,
                  fmt::format("circuit: generated token {} (position {}, step {} (pc {})): the reference executor says "
                              "{} ({}); the evaluator refused the position: {}",
                              t, prompt.size() + t, stepOf(t) + 1, expected.stepStates.at(stepOf(t)).pc,
                              t < expected.tokens.size() ? machine::tokenName(expected.tokens[t]) : "nothing",
                              t < expected.meanings.size() ? expected.meanings[t] : "", e.what()));
    }
  };
  while (true) {
    const size_t t = run.tokens.size();
    const SpelledToken next = spelledToken(out, kAluOutputs);
    const std::string want = t < expected.tokens.size()
                                 ? fmt::format("{} ({})", machine::tokenName(expected.tokens[t]), expected.meanings[t])
                                 : std::string("nothing: the executor's stream has ended");
    if (!next.id || t >= expected.tokens.size() || *next.id != expected.tokens[t]) {
      const std::string got = next.id ? machine::tokenName(*next.id) : "no token: " + next.why;
      const std::string at = expected.stepStates.empty()
                                 ? std::string()
                                 : fmt::format(", step {} (pc {})", stepOf(t) + 1, expected.stepStates[stepOf(t)].pc);
      throw Error(ErrorKind::Backend, fmt::format("circuit: generated token {} (position {}{}): the reference executor "
                                                  "says {}, the step circuit spells {}",
                                                  t, prompt.size() + t, at, want, got));
    }
    run.tokens.push_back(*next.id);
    if (*next.id == machine::ctl(machine::Ctl::Halt)) return run;
    evaluate(*next.id);
    ++run.positions;
  }
}

}  // namespace qgpu::compiler
