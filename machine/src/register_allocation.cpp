// Register allocation of a lowered kernel (register_allocation.h): liveness on each
// thread's control flow, an interference graph, and a greedy colouring in the order the
// registers first appear.
//
// Why per-thread liveness is exact for the SIMT machine: a step writes only the lanes that
// execute it (the running entry's, narrowed by the guard), so a lane's registers change only
// along its own path through the code; the lane-crossing reads (SHFL's source lane, VOTE's
// predicates) read lanes that execute the same instruction, where the value read is live on
// that lane's path as well. Reconvergence only orders the lanes' paths, it adds none.
#include "register_allocation.h"

#include <bitset>
#include <map>

namespace qgpu::machine {
namespace {

using Live = std::bitset<kNumRegs + 1>;

/// The registers an instruction reads and the one it writes (kNoOperand if none).
struct Access {
  Live reads;
  uint32_t write = kNoOperand;
};

Access accessOf(MInstr in, uint32_t numRegs) {
  Access acc;
  forEachRegister(in, numRegs, [&](uint16_t& r, bool isWrite) {
    if (isWrite) acc.write = r;
    else acc.reads.set(r);
  });
  return acc;
}

/// Where a lane goes after instruction i. A CALL leads to its callee; reaching a callee's
/// END (its entry pops) leads back to the instruction after each CALL of it.
std::vector<std::vector<uint32_t>> successors(const std::vector<MInstr>& code) {
  const uint32_t n = static_cast<uint32_t>(code.size());
  std::map<uint32_t, std::vector<uint32_t>> returnsAt;  // END pc -> the pcs after its CALLs
  for (uint32_t i = 0; i < n; ++i)
    if (opInfo(code[i].op).exec == MExec::Call) returnsAt[code[i].c].push_back(i + 1);
  std::vector<std::vector<uint32_t>> out(n);
  for (uint32_t i = 0; i < n; ++i) {
    const MInstr& in = code[i];
    const bool guarded = in.g != kNoGuard;
    std::vector<uint32_t> next;
    switch (opInfo(in.op).exec) {
      case MExec::Branch:
        next.push_back(in.b);
        if (guarded) next.push_back(i + 1);
        break;
      case MExec::Exit:
        if (guarded) next.push_back(i + 1);
        break;
      case MExec::Call: next.push_back(in.b); break;
      default: next.push_back(i + 1);
    }
    for (uint32_t s : next) {
      if (s < n) out[i].push_back(s);
      const auto r = returnsAt.find(s);
      if (r != returnsAt.end())
        for (uint32_t after : r->second)
          if (after < n) out[i].push_back(after);
    }
  }
  return out;
}

}  // namespace

void allocateRegisters(MachineProgram& program) {
  std::vector<MInstr>& code = program.code;
  const uint32_t n = static_cast<uint32_t>(code.size()), regs = program.numRegs;
  if (regs == 0) return;
  std::vector<Access> access;
  for (const MInstr& in : code) access.push_back(accessOf(in, regs));
  const std::vector<std::vector<uint32_t>> succ = successors(code);

  // Liveness, to a fixed point. A guarded write may not happen, so it kills nothing.
  std::vector<Live> liveIn(n), liveOut(n);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = n; i-- > 0;) {
      Live out;
      for (uint32_t s : succ[i]) out |= liveIn[s];
      Live in = out;
      if (access[i].write != kNoOperand && code[i].g == kNoGuard) in.reset(access[i].write);
      in |= access[i].reads;
      if (out != liveOut[i] || in != liveIn[i]) {
        liveOut[i] = out;
        liveIn[i] = in;
        changed = true;
      }
    }
  }

  // A write interferes with every register live after it, whether or not its own value is
  // ever read: it changes the register either way.
  std::vector<Live> interferes(regs);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t d = access[i].write;
    if (d == kNoOperand) continue;
    interferes[d] |= liveOut[i];
    for (uint32_t r = 0; r < regs; ++r)
      if (liveOut[i][r]) interferes[r].set(d);
    // An atomic writes d lane by lane while later lanes still read its sources (docs/machine.md
    // §5.3: the compiled machine commits each lane's old value to d at once), so d is apart
    // from them even where they die at the atomic.
    if (opInfo(code[i].op).exec == MExec::Atomic)
      for (uint32_t r = 0; r < regs; ++r)
        if (access[i].reads[r] && r != d) {
          interferes[d].set(r);
          interferes[r].set(d);
        }
  }
  // An atomic but CAS writes c too (its new values, the lowering's atom.new), which the access
  // lists as read only: c interferes with every register live after it, and with d and the
  // sources, as a write does.
  for (uint32_t i = 0; i < n; ++i) {
    const MInstr& in = code[i];
    if (opInfo(in.op).exec != MExec::Atomic || in.fl == static_cast<uint8_t>(MAtom::Cas) || in.c >= regs) continue;
    Live apart = liveOut[i] | access[i].reads;
    if (access[i].write != kNoOperand) apart.set(access[i].write);
    apart.reset(in.c);
    interferes[in.c] |= apart;
    for (uint32_t r = 0; r < regs; ++r)
      if (apart[r]) interferes[r].set(in.c);
  }

  // Colours in the order the registers first appear; a register no instruction names is gone.
  std::vector<uint32_t> order, colour(regs, kNoOperand);
  std::vector<bool> seen(regs, false);
  for (const Access& a : access) {
    Live named = a.reads;
    if (a.write != kNoOperand) named.set(a.write);
    for (uint32_t r = 0; r < regs; ++r)
      if (named[r] && !seen[r]) {
        seen[r] = true;
        order.push_back(r);
      }
  }
  uint32_t colours = 0;
  for (uint32_t r : order) {
    Live taken;
    for (uint32_t x = 0; x < regs; ++x)
      if (x != r && interferes[r][x] && colour[x] != kNoOperand) taken.set(colour[x]);
    uint32_t c = 0;
    while (taken[c]) ++c;
    colour[r] = c;
    colours = std::max(colours, c + 1);
  }

  // Rename the fields, and the names (for token meanings: "a | b | c | ...").
  for (MInstr& in : code)
    forEachRegister(in, regs, [&](uint16_t& r, bool) { r = static_cast<uint16_t>(colour[r]); });
  std::vector<std::string> names(colours);
  std::vector<size_t> sharers(colours, 0);
  for (uint32_t r : order) {
    const uint32_t c = colour[r];
    addSharedName(names[c], ++sharers[c], r < program.regNames.size() ? program.regNames[r] : "?");
  }
  program.numRegs = colours;
  program.regNames = std::move(names);
}

void addSharedName(std::string& names, size_t sharers, const std::string& name) {
  if (sharers == 1) names = name;
  else if (sharers <= 3) names += " | " + name;
  else if (sharers == 4) names += " | ...";
}

}  // namespace qgpu::machine
