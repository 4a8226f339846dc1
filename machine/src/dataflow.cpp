// Register dataflow of the lowering (docs/machine.md §2.2): successors, reads, analysis.
#include "dataflow.h"

#include <algorithm>
#include <span>

namespace qgpu::machine {
namespace {

class Cfg {
 public:
  Cfg(const Program& p, const FunctionInfo& f)
      : p_(p), f_(f), n_(f.endPc - f.entryPc),
        returns_(returnPoints(std::span(p.code).subspan(f.entryPc, n_), f.entryPc)) {}
  uint32_t size() const { return n_; }

  /// Successors of function-relative pc `i`.
  std::vector<uint32_t> succ(uint32_t i) const {
    return successors(p_.code[f_.entryPc + i], i, f_.entryPc, n_, returns_[i]);
  }

  /// Nodes reachable from `starts` without passing through `blocked`.
  std::vector<bool> reach(const std::vector<uint32_t>& starts, uint32_t blocked) const {
    std::vector<bool> seen(n_, false);
    std::vector<uint32_t> work;
    for (uint32_t s : starts)
      if (s != blocked && !seen[s]) { seen[s] = true; work.push_back(s); }
    while (!work.empty()) {
      uint32_t x = work.back();
      work.pop_back();
      for (uint32_t y : succ(x))
        if (y != blocked && !seen[y]) { seen[y] = true; work.push_back(y); }
    }
    return seen;
  }

 private:
  const Program& p_;
  const FunctionInfo& f_;
  uint32_t n_;
  std::vector<std::vector<uint32_t>> returns_;  // per END marker: the instructions after its CALLs
};

}  // namespace

std::vector<std::vector<uint32_t>> returnPoints(std::span<const Instr> code, uint32_t base) {
  std::vector<std::vector<uint32_t>> out(code.size());
  for (uint32_t i = 0; i < code.size(); ++i)
    if (code[i].flow == Flow::Call && code[i].mode == kMachineCall) out[code[i].reconverge - base].push_back(i + 1);
  return out;
}

std::vector<uint32_t> successors(const Instr& in, uint32_t i, uint32_t base, uint32_t n,
                                 const std::vector<uint32_t>& afterEnd) {
  std::vector<uint32_t> s;
  const bool guarded = in.guard != kNoSlot;
  switch (in.flow) {
    case Flow::Branch:
      s.push_back(in.target - base);
      if (guarded) s.push_back(i + 1);
      break;
    case Flow::Return: case Flow::Exit: case Flow::Trap:
      if (guarded) s.push_back(i + 1);
      break;
    case Flow::Call:
      if (in.mode == kMachineCall) s = {in.target - base, i + 1};
      else if (in.mode == kCallEnd) s = afterEnd;
      else s.push_back(i + 1);
      break;
    default:
      s.push_back(i + 1);
  }
  std::erase_if(s, [&](uint32_t x) { return x >= n; });
  return s;
}

namespace {

std::vector<uint32_t> readsOf(const Instr& in) {
  std::vector<uint32_t> r;
  for (uint32_t s : in.s)
    if (s != kNoSlot) r.push_back(s);
  if (in.guard != kNoSlot) r.push_back(in.guard);
  return r;
}

}  // namespace

uint32_t Dataflow::resolve(uint32_t slot) const {
  while (slot != kNoSlot && substitute[slot] != slot) slot = substitute[slot];
  return slot;
}

Dataflow analyzeFunction(const Program& program, const FunctionInfo& f,
                         const std::vector<bool>& isPure, const std::vector<bool>& isCopy) {
  Cfg cfg(program, f);
  const uint32_t n = cfg.size();
  Dataflow df;
  df.substitute.resize(f.numSlots);
  for (uint32_t s = 0; s < f.numSlots; ++s) df.substitute[s] = s;
  df.dropped.assign(n, false);
  std::vector<bool> fixed(f.numSlots, false);  // constants and special registers
  for (const auto& [slot, v] : f.constants) fixed[slot] = true;
  for (const auto& [slot, r] : f.specials) fixed[slot] = true;

  std::vector<std::vector<uint32_t>> defs(f.numSlots), uses(f.numSlots);
  for (uint32_t i = 0; i < n; ++i) {
    const Instr& in = program.code[f.entryPc + i];
    for (uint32_t d : in.d)
      if (d != kNoSlot) defs[d].push_back(i);
    for (uint32_t s : readsOf(in)) uses[s].push_back(i);
  }
  const std::vector<uint32_t> entry{0};

  for (uint32_t i = 0; i < n; ++i) {
    if (!isCopy[i]) continue;
    const Instr& in = program.code[f.entryPc + i];
    uint32_t d = in.d[0];
    uint32_t s = df.resolve(in.s[0]);
    if (d == kNoSlot || s == kNoSlot || d == s || fixed[d] || defs[d].size() != 1) continue;
    // The mov must dominate every use of d: no use is reachable from the entry around it.
    std::vector<bool> around = cfg.reach(entry, i);
    if (std::any_of(uses[d].begin(), uses[d].end(), [&](uint32_t u) { return around[u]; })) continue;
    if (!fixed[s]) {
      if (program.functions[in.function].slotBytes[s] != program.functions[in.function].slotBytes[d])
        continue;
      // No redefinition of s may lie between the mov and a use of d.
      std::vector<bool> after = cfg.reach(cfg.succ(i), i);
      bool clobbered = false;
      for (uint32_t x : defs[s]) {
        if (!after[x]) continue;
        std::vector<bool> fromX = cfg.reach(cfg.succ(x), i);
        if (std::any_of(uses[d].begin(), uses[d].end(), [&](uint32_t u) { return fromX[u]; })) {
          clobbered = true;
          break;
        }
      }
      if (clobbered) continue;
    }
    df.substitute[d] = s;
    df.dropped[i] = true;
    uses[s].insert(uses[s].end(), uses[d].begin(), uses[d].end());
    uses[d].clear();
  }

  // Dead instructions: pure, and no destination is ever read.
  bool changed = true;
  while (changed) {
    changed = false;
    df.reads.assign(f.numSlots, 0);
    for (uint32_t i = 0; i < n; ++i) {
      if (df.dropped[i]) continue;
      for (uint32_t s : readsOf(program.code[f.entryPc + i])) ++df.reads[df.resolve(s)];
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (df.dropped[i] || !isPure[i]) continue;
      const Instr& in = program.code[f.entryPc + i];
      bool anyDest = false, anyLive = false;
      for (uint32_t d : in.d) {
        if (d == kNoSlot) continue;
        anyDest = true;
        if (df.reads[df.resolve(d)] > 0) anyLive = true;
      }
      if (anyDest && !anyLive) {
        df.dropped[i] = true;
        changed = true;
      }
    }
  }
  return df;
}

}  // namespace qgpu::machine
