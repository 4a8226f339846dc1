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

std::string describeGenerated(const char* who, const std::vector<uint32_t>& prompt, const machine::Trace& expected,
                              size_t t) {
  size_t s = 0;
  while (s + 1 < expected.stepStates.size() && expected.stepStates[s + 1].firstToken <= t) ++s;
  const std::string at =
      expected.stepStates.empty() ? std::string() : fmt::format(", step {} (pc {})", s + 1, expected.stepStates[s].pc);
  const std::string says = t < expected.tokens.size()
                               ? fmt::format("{} ({})", machine::tokenName(expected.tokens[t]), expected.meanings[t])
                               : std::string("nothing: the executor's stream has ended");
  return fmt::format("{}: generated token {} (position {}{}): the reference executor says {}", who, t, prompt.size() + t,
                     at, says);
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
  auto where = [&](size_t t) { return describeGenerated("circuit", prompt, expected, t); };
  // An evaluator refusal (a value outside its node's range: two tokens' gates at once) is the
  // circuit's fault at this position: named like a wrong token.
  auto evaluate = [&](uint32_t id) {
    try {
      out = ev.stepOutputs(frontInputs(id));
    } catch (const CompileError& e) {
      throw Error(ErrorKind::Backend, fmt::format("{}; the evaluator refused the position: {}", where(run.tokens.size()), e.what()));
    }
  };
  while (true) {
    const size_t t = run.tokens.size();
    const SpelledToken next = spelledToken(out, kAluOutputs);
    if (!next.id || t >= expected.tokens.size() || *next.id != expected.tokens[t])
      throw Error(ErrorKind::Backend, fmt::format("{}, the step circuit spells {}", where(t),
                                                  next.id ? machine::tokenName(*next.id) : "no token: " + next.why));
    run.tokens.push_back(*next.id);
    if (*next.id == machine::ctl(machine::Ctl::Halt)) return run;
    evaluate(*next.id);
    ++run.positions;
  }
}

}  // namespace qgpu::compiler
