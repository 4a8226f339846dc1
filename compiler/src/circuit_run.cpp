// The step circuit generating a launch's tokens in the exact evaluator (circuit_run.h).
#include "qgpu/compiler/circuit_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "qgpu/compiler/alu.h"
#include "qgpu/compiler/circuit.h"
#include "qgpu/compiler/error.h"
#include "qgpu/compiler/machine_step.h"
#include "qgpu/compiler/register_file.h"
#include "qgpu/compiler/register_write.h"
#include "qgpu/compiler/step_front.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {

using machine::MOp;

bool stepRuns(const machine::MInstr& in) {
  return stepComputes(in) || atomicComputes(in) || in.op == MOp::Bra || in.op == MOp::Call || in.op == MOp::Exit || in.op == MOp::St || in.op == MOp::Bar;
}

std::optional<std::string> firstNotRun(const machine::MachineProgram& p) {
  for (size_t pc = 0; pc < p.code.size(); ++pc)
    if (!stepRuns(p.code[pc]))
      return fmt::format("pc {}: {} (not compiled into the step yet)", pc, machine::opName(p.code[pc].op));
  return std::nullopt;
}

std::vector<std::pair<MOp, uint32_t>> opsNotRun(const machine::MachineProgram& p) {
  std::map<MOp, uint32_t> count;
  for (const machine::MInstr& in : p.code)
    if (!stepRuns(in)) ++count[in.op];
  return {count.begin(), count.end()};
}

std::optional<std::string> firstCapacityExceeded(const machine::MachineProgram& p, const machine::MachineLaunch& l) {
  const uint64_t threads = uint64_t{l.block.x} * l.block.y * l.block.z;
  if (threads >= (uint64_t{1} << 11))
    return fmt::format("a block of {} threads; the compiled step counts at most {}", threads, (1u << 11) - 1);
  if (p.numRegs >= (uint32_t{1} << kRegisterSlotBits))
    return fmt::format("{} registers a thread; the compiled step's register count holds at most {}", p.numRegs,
                       (1u << kRegisterSlotBits) - 1);
  uint64_t slotsPerWarp = 1;  // 2^k, the smallest power of two >= numRegs
  while (slotsPerWarp < p.numRegs) slotsPerWarp *= 2;
  const uint64_t warps = (threads + machine::kLanes - 1) / machine::kLanes;
  if (warps * slotsPerWarp > kRegisterSlots)
    return fmt::format("{} warps x {} register slots ({} registers a thread, rounded up to a power of two) = {}; the "
                       "compiled step's register file holds {} slots a lane",
                       warps, slotsPerWarp, p.numRegs, warps * slotsPerWarp, kRegisterSlots);
  // The end of the launch's memory in its lane copy: every window's contents, then global.
  uint64_t end = std::max({p.windows.param + p.paramBytes, p.windows.konst + p.constBank.size(),
                           p.windows.local + p.localBytes,
                           p.windows.shared + p.staticSharedBytes + l.dynamicSharedBytes, p.windows.globalStart});
  uint64_t global = p.windows.globalStart;
  for (const std::vector<uint8_t>& g : p.moduleGlobals) global = (global + g.size() + machine::kGlobalAlign - 1) /
                                                                machine::kGlobalAlign * machine::kGlobalAlign;
  end = std::max(end, global);
  for (size_t i = 0; i < l.buffers.size() && i < l.bufferAddr.size(); ++i)
    end = std::max<uint64_t>(end, l.bufferAddr[i] + l.buffers[i].size());
  if (end > machine::kBankMemoryBytes)
    return fmt::format("memory up to byte {} (param, const, local, shared and global laid out one after the other); "
                       "the compiled step's banks hold {} bytes a lane copy ({} banks of {})",
                       end, machine::kBankMemoryBytes, machine::kMemoryBanks, machine::kBankBytes);
  return std::nullopt;
}

void refuseWhatTheStepCannotRun(const char* backend, const std::string& kernel, const machine::MachineProgram& p,
                                const machine::MachineLaunch& launch) {
  if (const auto what = firstNotRun(p)) throw Error(ErrorKind::Backend, fmt::format("{}: {}: {}", backend, kernel, *what));
  if (const auto what = firstCapacityExceeded(p, launch))
    throw Error(ErrorKind::Input, fmt::format("{}: {}: the launch exceeds the compiled step: {}", backend, kernel, *what));
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
      throw Error(ErrorKind::Diverged, fmt::format("{}, the step circuit spells {}", where(t),
                                                  next.id ? machine::tokenName(*next.id) : "no token: " + next.why));
    run.tokens.push_back(*next.id);
    if (*next.id == machine::ctl(machine::Ctl::Halt)) return run;
    evaluate(*next.id);
    ++run.positions;
  }
}

}  // namespace qgpu::compiler
