// Immediate post-dominators over the basic blocks of one function.
//
// Why this scheme: compiler-generated PTX has structured control flow
// (if/else, loops, early exits) whose natural join points are the immediate
// post-dominators of the branches; a divergent warp that runs each side and
// waits at the ipdom executes every thread's instructions exactly once and in
// program order, which is all a race-free kernel's results depend on.
// Post-dominators are computed with the iterative algorithm of Cooper, Harvey
// and Kennedy ("A Simple, Fast Dominance Algorithm") on the reverse CFG.
#include "cfg.h"

#include <algorithm>
#include <vector>

namespace qgpu {

void computeReconvergence(Program& program, const FunctionInfo& f) {
  const uint32_t begin = f.entryPc, end = f.endPc;
  auto& code = program.code;
  // Leaders: entry, branch targets, instructions after a control transfer.
  std::vector<bool> leader(end - begin + 1, false);
  leader[0] = true;
  for (uint32_t pc = begin; pc < end; ++pc) {
    const Instr& in = code[pc];
    if (in.flow == Flow::Branch) leader[in.target - begin] = true;
    if (in.flow == Flow::Branch || in.flow == Flow::Return || in.flow == Flow::Exit ||
        in.flow == Flow::Trap)
      leader[pc + 1 - begin] = true;
  }
  std::vector<uint32_t> blockStart, blockOf(end - begin);
  for (uint32_t pc = begin; pc < end; ++pc) {
    if (leader[pc - begin]) blockStart.push_back(pc);
    blockOf[pc - begin] = static_cast<uint32_t>(blockStart.size() - 1);
  }
  const uint32_t n = static_cast<uint32_t>(blockStart.size());
  const uint32_t exitNode = n;  // virtual exit
  std::vector<std::vector<uint32_t>> succ(n + 1), pred(n + 1);
  for (uint32_t b = 0; b < n; ++b) {
    uint32_t last = (b + 1 < n ? blockStart[b + 1] : end) - 1;
    const Instr& in = code[last];
    bool guarded = in.guard != kNoSlot;
    auto edge = [&](uint32_t to) {
      if (std::find(succ[b].begin(), succ[b].end(), to) == succ[b].end()) {
        succ[b].push_back(to);
        pred[to].push_back(b);
      }
    };
    auto fallthrough = [&]() { edge(last + 1 < end ? blockOf[last + 1 - begin] : exitNode); };
    switch (in.flow) {
      case Flow::Branch:
        edge(blockOf[in.target - begin]);
        if (guarded) fallthrough();
        break;
      case Flow::Return:
      case Flow::Exit:
      case Flow::Trap:
        edge(exitNode);
        if (guarded) fallthrough();
        break;
      default:
        fallthrough();
    }
  }
  // Reverse post-order of the reverse CFG, starting at the exit.
  std::vector<uint32_t> order, index(n + 1, UINT32_MAX);
  std::vector<bool> seen(n + 1, false);
  std::vector<std::pair<uint32_t, size_t>> stack{{exitNode, 0}};
  seen[exitNode] = true;
  while (!stack.empty()) {
    auto& [node, i] = stack.back();
    if (i < pred[node].size()) {
      uint32_t p = pred[node][i++];
      if (!seen[p]) {
        seen[p] = true;
        stack.push_back({p, 0});
      }
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }
  std::reverse(order.begin(), order.end());
  for (uint32_t i = 0; i < order.size(); ++i) index[order[i]] = i;
  std::vector<uint32_t> ipdom(n + 1, UINT32_MAX);
  ipdom[exitNode] = exitNode;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (index[a] > index[b]) a = ipdom[a];
      while (index[b] > index[a]) b = ipdom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t node : order) {
      if (node == exitNode) continue;
      uint32_t best = UINT32_MAX;
      for (uint32_t s : succ[node]) {
        if (ipdom[s] == UINT32_MAX) continue;
        best = best == UINT32_MAX ? s : intersect(s, best);
      }
      if (best != UINT32_MAX && ipdom[node] != best) {
        ipdom[node] = best;
        changed = true;
      }
    }
  }
  // Blocks that cannot reach the exit (infinite loops) keep kExitPc.
  for (uint32_t pc = begin; pc < end; ++pc) {
    Instr& in = code[pc];
    if (in.flow != Flow::Branch) continue;
    uint32_t b = blockOf[pc - begin];
    uint32_t p = ipdom[b];
    in.reconverge = (p == UINT32_MAX || p == exitNode) ? kExitPc : blockStart[p];
  }
}

}  // namespace qgpu
