// The machine step's token intake and sequencer (docs/machine.md §5.2, layers 1–3 of the
// plan): from each token's features (what its embedding row holds: the class flags and
// fields of machine/tokens.h) and the launch's warp shape, the control state the stream
// implies after it — block, warp, pc, mask, SIMT depth, whether a step ended — by the rules
// of docs/machine.md §3.3: every field is the last token that carried it (a one-slot memory
// written where that token's flag is 1), the pc the last pc-carrying token's plus the steps
// ended since (a counter), a step's end its token's class or, for a CHUNK-LAST, the value
// count of the last prefix reached (another counter). machine::StreamDeriver is the
// reference; nothing here is updated from its own previous value.
#include "qgpu/compiler/sequencer.h"

#include <fmt/format.h>

#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {
namespace {

std::vector<Expr> forms(const Bus& b, size_t width) {
  std::vector<Expr> out;
  for (size_t i = 0; i < width; ++i) out.push_back(i < b.size() ? w(b[i]) : Expr(0));
  return out;
}

}  // namespace

SequencerWires buildSequencer(Circuit& c, const LaunchShapeSource& shape) {
  // The token's features, in sequencerInputs' order.
  const WireId machineToken = c.inputBit("machine token");
  const WireId chunkLast = c.inputBit("chunk last");
  const WireId prefix = c.inputBit("prefix");
  const Bus count = c.inputBus("prefix count", 5);  // one-hot: 1, 2, 3, 4 values, none (ATOMIC)
  const WireId endsByClass = c.inputBit("ends step");
  const WireId carriesPc = c.inputBit("carries pc");
  const WireId setsMask = c.inputBit("sets mask");
  const WireId maskExplicit = c.inputBit("mask explicit");  // TOP: its mask; BLOCK, WARP-START: the warp's valid lanes
  const Bus depthMode = c.inputBus("depth mode", 2);       // TOP depth 2, TOP deeper (the last DEPTH's); else depth 1
  const WireId isBlock = c.inputBit("block");
  const WireId setsWarp = c.inputBit("sets warp");
  const WireId isDepth = c.inputBit("depth");
  const Bus pcField = c.inputBus("pc field", 10);
  const Bus maskField = c.inputBus("mask field", 4);
  const Bus blockField = c.inputBus("block field", 12);
  const Bus warpField = c.inputBus("warp field", 8);
  const Bus depthField = c.inputBus("depth field", 5);  // DEPTH d: d - 1
  // The launch: warps whose four lanes all exist, and the next warp's valid lanes.
  LaunchShape launch;
  if (shape) {
    launch = shape(machineToken, chunkLast);
  } else {
    launch.fullWarps = c.inputBus("full warps", 9);
    launch.tailMask = c.inputBus("tail mask", 4);
  }
  const Bus& fullWarps = launch.fullWarps;
  const Bus& tailMask = launch.tailMask;

  // Layer 1: the fields as last written, and the values since the last prefix.
  const Bus pcBase = lastWritten(c, "pc base", machineToken, carriesPc, pcField);
  Bus maskData = maskField;
  maskData.push_back(maskExplicit);
  const Bus maskRead = lastWritten(c, "mask", machineToken, setsMask, maskData);
  const Bus block = lastWritten(c, "block", machineToken, isBlock, blockField);
  const Bus warp = lastWritten(c, "warp", machineToken, setsWarp, warpField);
  const Bus lastDepth = lastWritten(c, "last depth", machineToken, isDepth, depthField);
  // Warps start in order in a block's first pass (core.cpp's runBlock): a warp has started iff
  // its index is at most the last WARP-START's (BLOCK starts warp 0; its warp field is 0).
  const WireId startsWarp = c.step("starts a warp", w(setsWarp) + w(setsMask) - 2);
  const Bus lastStarted = lastWritten(c, "last warp started", machineToken, startsWarp, warpField);
  const Bus n = lastWritten(c, "prefix count", machineToken, prefix, count);
  // Five thresholds though a write has at most four values: the pending write (commit.cpp)
  // tells a prefix's fourth value from a uniform write's value right after it.
  const Bus values = c.countSince("values", prefix, chunkLast, 5);

  // A step ends at its class, or at a CHUNK-LAST that is at least the n-th value since the
  // prefix: sum_j [v >= j] (v capped at 4) >= n, with n = 0 before any prefix (a uniform
  // step's) and 5 for ATOMIC (its DONE ends it).
  Expr reached = 12 * w(endsByClass) + 6 * w(chunkLast) - 6;
  for (uint32_t j = 0; j < 4; ++j) reached += w(values[j]) - static_cast<int64_t>(j + 1) * w(n[j]);
  reached -= 5 * w(n[4]);
  const WireId ended = c.step("ended", reached);

  // The pc: the base plus the steps ended since it (binary from the thermometer bits).
  const Bus steps = c.countSince("steps", carriesPc, ended, machine::kPcCheckpointSteps);
  // Bit b of k (k <= 16) is the sum over the multiples j of 2^b of +-[k >= j], + where j / 2^b
  // is odd: a linear form whose value is a bit.
  std::vector<Expr> countBits(11, Expr(0));
  for (uint32_t b = 0; b < 5; ++b)
    for (uint32_t j = 1u << b; j <= 16; j += 1u << b) countBits[b] += ((j >> b) & 1 ? 1 : -1) * w(steps[j - 1]);
  const Bus pc = addBuses(c, "pc", forms(pcBase, 11), countBits, 0);

  // The mask: TOP's as written, else the warp's valid lanes: [w < full] or [w = full] and tail.
  Expr fw(0), ww(0);
  for (uint32_t i = 0; i < 9; ++i) fw += (static_cast<int64_t>(1) << i) * w(fullWarps[i]);
  for (uint32_t i = 0; i < 8; ++i) ww += (static_cast<int64_t>(1) << i) * w(warp[i]);
  const WireId below = c.step("warp below full", fw - ww - 1), within = c.step("warp at most full", fw - ww);
  const WireId explicitMask = maskRead[4];
  Bus mask;
  for (uint32_t l = 0; l < 4; ++l) {
    const WireId tail = c.step(fmt::format("tail lane {}", l), w(within) - w(below) + w(tailMask[l]) - 2);
    const WireId valid = c.step(fmt::format("valid lane {}", l), w(below) + w(tail) - w(explicitMask) - 1);
    const WireId given = c.step(fmt::format("given lane {}", l), w(maskRead[l]) + w(explicitMask) - 2);
    mask.push_back(c.sum(fmt::format("mask[{}]", l), w(valid) + w(given)));
  }
  // The depth - 1 as the last TOP, BLOCK or WARP-START set it: 0 (depth 1, and before any),
  // 1 (TOP depth 2), or the last DEPTH's as of that TOP — stored then, because a DEPTH token
  // names the depth of the TOP that follows it, not of the entry running before it.
  Bus depthNow;
  for (uint32_t i = 0; i < 5; ++i)
    depthNow.push_back(c.step(fmt::format("depth now[{}]", i),
                              (i == 0 ? 2 * w(depthMode[0]) : Expr(0)) + w(depthMode[1]) + w(lastDepth[i]) - 2));
  const Bus depth = lastWritten(c, "depth", machineToken, setsMask, depthNow);

  return {machineToken, chunkLast, prefix, values, n, pcBase, block, warp, pc, mask, depth, ended, steps, lastDepth, setsWarp,
          setsMask, lastStarted, isDepth, count[4]};
}

LaneBuses outputSequencer(Circuit& c, const SequencerWires& s) {
  c.outputBus("block", s.block);
  c.outputBus("warp", s.warp);
  c.outputBus("pc", s.pc);
  c.outputBus("mask", s.mask);
  c.outputBus("depth-1", s.depth);
  c.output("ended", s.ended);
  c.outputBus("steps>=", s.steps);
  LaneBuses lb;
  lb.results = {s.block, s.warp, s.pc, s.mask, s.depth, {s.ended}, s.steps};
  return lb;
}

Unit sequencerUnit() {
  Unit u{Circuit("sequencer"), {}, {}, {}, {}};
  u.lanes.push_back(outputSequencer(u.circuit, buildSequencer(u.circuit)));
  return u;
}

std::vector<int64_t> sequencerInputs(uint32_t id, uint32_t fullWarps, uint32_t tailMask) {
  std::vector<int64_t> in;
  appendSequencerFeatures(in, id);
  for (uint32_t i = 0; i < 9; ++i) in.push_back((fullWarps >> i) & 1);
  for (uint32_t i = 0; i < 4; ++i) in.push_back((tailMask >> i) & 1);
  return in;
}

void appendSequencerFeatures(std::vector<int64_t>& in, uint32_t id) {
  using namespace machine;
  auto bit = [&](bool b) { in.push_back(b ? 1 : 0); };
  auto bits = [&](uint64_t v, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) in.push_back(static_cast<int64_t>((v >> i) & 1));
  };
  const bool isTop = id >= kTop && id < kGoto, isGoto = id >= kGoto && id < kBlock;
  const bool isBlock = id >= kBlock && id < kWarpStart, isWarpStart = id >= kWarpStart && id < kWarpResume;
  const bool isWarp = id >= kWarpResume && id < kDepth, isDepth = id >= kDepth && id < kControl;
  const bool go = id == ctl(Ctl::Go);  // the prompt's last token: the stream starts at pc 0
  const TopFields top = isTop ? topFields(id) : TopFields{};
  const uint32_t n = prefixValueCount(id);
  bit(id >= kChunkMore);
  bit(id >= kChunkLast && id < kPack4);
  bit(n != 0);
  for (uint32_t j = 1; j <= 4; ++j) bit(n == j);
  bit(n == UINT32_MAX);
  bit(endsStepByClass(id));
  bit(isTop || isGoto || isBlock || isWarpStart || go);
  bit(isTop || isBlock || isWarpStart);
  bit(isTop);
  bit(isTop && top.k == 1);
  bit(isTop && top.k == 2);
  bit(isBlock);
  bit(isBlock || isWarpStart || isWarp);
  bit(isDepth);
  bits(isTop ? top.pc : isGoto ? id - kGoto : 0, 10);
  bits(isTop ? top.mask : 0, 4);
  bits(isBlock ? id - kBlock : 0, 12);
  bits(isWarpStart ? id - kWarpStart : isWarp ? id - kWarpResume : 0, 8);
  bits(isDepth ? id - kDepth : 0, 5);
}

}  // namespace qgpu::compiler
