// The step's first non-write tokens (step_control.h), mirroring machine/src/core.cpp's sync(),
// branchUpdate and laneSerialPositions.
//
//   early (from the sequencer and the fetched word, layers up to 12): the checkpoint, the
//     step's own token, the op flags, the WAITs since the last other token (a counter), the
//     word's compares a divergence's pushes need (b vs c, pc + 1 vs c) and the last DEPTH
//     against the depths a pop or push may leave
//   carried packed (four bits to a channel) across the register reads, the step's widest
//     layers, and unpacked where the SIMT stack is kept (its bank and conv tap need the free
//     heads of layers 38 and on): the flags, the pc, b and c, the depth and the lanes
//   the SIMT stack (two heads: odd and even slots, {rpc, resume, lanes below} per entry;
//     written at a BRA's own position and at the TOP after a two-entry push, read at the
//     running depth) and the compares with the running entry's rpc
//   late: from the active lanes none / all active, the BRA's outcome (each one step over
//     its facts), the pop at a step's end, TOP or DEPTH by the depth left, DONE, WAIT
//     (lane-serial steps and ST); a warp leaving its pass (a retiring EXIT, a BAR it waits
//     at): HALT, and carried one and two positions by conv taps, WARP-START / WARP / BLOCK
//     and the resumed warp's TOP; the value bits as gates of the pcs, lanes and depths by
//     the token chosen, one channel per bit
#include "qgpu/compiler/step_control.h"

#include <fmt/format.h>

#include <array>

#include "qgpu/machine/isa.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {
namespace {

Expr valueOf(const std::vector<Expr>& bits) {
  Expr e;
  for (size_t i = 0; i < bits.size(); ++i) e += (int64_t{1} << i) * bits[i];
  return e;
}

// The early flags, in the order they are packed.
enum Flag : uint32_t {  // four to a channel: the op's flags share channels with the word's compares, computed a
                       // level later where the step's widest layer leaves no room (see pushCompare)
  kCheckpoint,  // the checkpoint GOTO is next
  kOwn,         // the step's own first token is next
  kSixteenth,   // 15 or more steps ended since the last pc (a BRA's sync would be the 16th)
  kDepth1,      // the SIMT depth is 1
  kLaneSerial,  // the op is lane-serial (the float, compare and conversion ops, ST: one position per active lane)
  kBGeC,        // [b >= c], [b <= c]: a divergence pushes the taken entry unless both
  kBLeC,
  kBra,         // the op is BRA
  kStore,       // the op is ST (DONE at its last lane's position)
  kNextGeC,     // [pc + 1 >= c], [pc + 1 <= c]: a divergence pushes the fall-through entry unless both
  kNextLeC,
  kExitOrBar,   // the op is EXIT or BAR
  kBraOrCall,   // the op is BRA or CALL
  kEnded,       // a step ended while generating (the next pc may be the running entry's reconvergence pc)
  kLastIsJm1,   // the last DEPTH's d - 1 is j - 1 (j: the depth - 1): a pop's TOP needs no DEPTH
  kLastIsJ,     // ... is j, j + 1, j + 2: the three depths a push may leave
  kLastIsJp1,
  kLastIsJp2,
  kWaits,       // [WAITs read since the step began >= 1, 2, 3] (three flags)
  kFlags = kWaits + 3
};
constexpr uint32_t kWarpBits = 8, kBlockBits = 12;
constexpr uint32_t kCompareAfterWord = 3;
constexpr uint32_t kPcBits = 10;

}  // namespace

StepControlWires buildStepControl(Circuit& c, const FrontWires& front, const std::vector<WireId>& op,
                                  const Bus& active, const Bus& waits, const Bus& k, WireId unpackAt,
                                  uint32_t stackAfterActive) {
  using machine::MOp;
  const SequencerWires& s = front.sequencer;
  const Bus& word = front.fetch.word;
  auto field = [&](uint32_t at) {
    std::vector<Expr> v;
    for (uint32_t i = 0; i < kPcBits; ++i) v.push_back(w(word[at + i]));
    return v;
  };
  const std::vector<Expr> b = field(machine::kWordBAt), join = field(machine::kWordCAt);
  std::vector<Expr> pc;
  for (uint32_t i = 0; i < kPcBits; ++i) pc.push_back(w(s.pc[i]));
  auto isOp = [&](MOp o) { return w(op.at(static_cast<size_t>(o))); };

  StepControlWires out;
  // ---- early ----
  // The sync before this step restates the pc after 16 step ends (kPcCheckpointSteps); a
  // token that ended a step is the only place it can be next.
  const WireId checkpointEarly = c.step("GOTO checkpoint next", w(s.ended) + w(s.steps[machine::kPcCheckpointSteps - 1]) +
                                                      w(front.fetch.generating) - 3);
  // The step's own first token is next: k = 0, generating, not after its ACTIVE, no checkpoint.
  // (Inside an atomic step, from its ATOMIC on, k restarts at each value: not the step's own.)
  const WireId own = c.step("the step's own first token next", (1 - w(k[0])) + w(front.fetch.generating) -
                                                                   w(front.write.isActive) - w(checkpointEarly) -
                                                                   w(front.atomic.inStep) - 2);
  Expr depthSum;
  for (WireId d : s.depth) depthSum += w(d);
  std::vector<Expr> flags(kFlags);
  flags[kCheckpoint] = w(checkpointEarly);
  flags[kOwn] = w(own);
  flags[kSixteenth] = w(s.steps[machine::kPcCheckpointSteps - 2]);
  flags[kDepth1] = w(c.step("SIMT depth 1", -depthSum));
  // A step ended (the token, or the token before a DEPTH: a pop's DEPTH repeats the pop's
  // decision one position on, where the pc and depth are still the popped entry's).
  const Bus endedBack = previousBits(c, "a step ended one position back", {s.ended}, 1, s.machineToken);
  flags[kEnded] = w(c.step("a step ended while generating",
                           w(s.ended) + w(andStep(c, "a DEPTH after a step's end", {w(s.isDepth), w(endedBack[0])})) +
                               w(front.fetch.generating) - 2));
  flags[kBra] = isOp(MOp::Bra);
  flags[kExitOrBar] = isOp(MOp::Exit) + isOp(MOp::Bar);
  flags[kBraOrCall] = isOp(MOp::Bra) + isOp(MOp::Call);
  // [x = y] as the pair [x - y >= 0], [y - x >= 0]: their sum is 2 where x = y, else 1.
  auto equal = [&](const std::string& name, const Expr& d) {
    return w(c.step(name + " >=", d)) + w(c.step(name + " <=", -d)) - 1;
  };
  // A divergence pushes the taken entry iff b != c, the fall-through one iff pc + 1 != c
  // (branchUpdate), from the word and the pc where they are read.
  std::vector<Expr> pcNow;
  for (uint32_t i = 0; i < kPcBits; ++i) pcNow.push_back(w(front.pcBits[i]));
  {
    std::vector<Expr> last, j;
    for (WireId x : s.lastDepth) last.push_back(w(x));
    for (WireId x : s.depth) j.push_back(w(x));
    for (int d = -1; d <= 2; ++d) flags[kLastIsJm1 + (d + 1)] = equal(fmt::format("last DEPTH = depth-1{:+}", d), valueOf(last) - valueOf(j) - d);
  }
  // As the compares' own steps, a level after the word (its fields' other readers are
  // there): computed where the word is read, they would end its bits' channels at the step's
  // widest layer and move its operand decoders' steps up into it.
  auto pushCompare = [&](const std::string& name, const Expr& d) {
    const WireId x = c.step(name, d);
    c.notBefore(x, word[0], kCompareAfterWord);
    return w(x);
  };
  flags[kBGeC] = pushCompare("b - c >= 0", valueOf(b) - valueOf(join));
  flags[kBLeC] = pushCompare("b - c <= 0", valueOf(join) - valueOf(b));
  flags[kNextGeC] = pushCompare("pc+1 - c >= 0", valueOf(pcNow) + 1 - valueOf(join));
  flags[kNextLeC] = pushCompare("pc+1 - c <= 0", valueOf(join) - valueOf(pcNow) - 1);
  // The launch's shape from the prompt (step_front.h): the last warp is the front end's; the
  // last block, block + 1 = blocks.
  const PromptLaunch& launch = front.launch;
  std::vector<Expr> warpBits, blockBits, fullWarps, blocks;
  for (WireId x : s.warp) warpBits.push_back(w(x));
  for (WireId x : s.block) blockBits.push_back(w(x));
  for (WireId x : launch.shape.fullWarps) fullWarps.push_back(w(x));
  for (WireId x : launch.blocks) blocks.push_back(w(x));
  const Expr& lastWarp = front.lastWarp;
  const Expr lastBlock = equal("last block", valueOf(blockBits) + 1 - valueOf(blocks));
  std::vector<Expr> lastStarted;
  for (WireId x : s.lastStarted) lastStarted.push_back(w(x));
  const Expr startedNext = w(c.step("warp+1 has started", valueOf(lastStarted) - valueOf(warpBits) - 1));
  const Expr warpIsZero = w(c.step("warp 0", -valueOf(warpBits)));
  // The warp's valid lanes (a resumed warp's TOP): four where it is a full warp, else the tail's.
  const WireId fullWarp = c.step("a full warp", valueOf(fullWarps) - valueOf(warpBits) - 1);
  std::vector<Expr> validLanes;
  for (uint32_t l = 0; l < 4; ++l)
    validLanes.push_back(w(c.step(fmt::format("valid lane {} (control)", l), w(fullWarp) + w(launch.shape.tailMask[l]) - 1)));
  // The warp and block that come after this one: WARP-START's and BLOCK's values where a
  // retiring EXIT came one position back (the sequencer's warp and block have not moved).
  warpBits.resize(kWarpBits);
  blockBits.resize(kBlockBits);
  const Bus nextWarp = addBuses(c, "warp+1", warpBits, std::vector<Expr>(kWarpBits, Expr(0)), 1);
  const Bus nextBlock = addBuses(c, "block+1", blockBits, std::vector<Expr>(kBlockBits, Expr(0)), 1);
  std::vector<Expr> following;
  for (WireId x : nextWarp) following.push_back(w(x));
  for (WireId x : nextBlock) following.push_back(w(x));
  // Every op ops.def marks LaneSerial, and ST (one position per active lane as well).
  flags[kLaneSerial] = isOp(MOp::St);
  for (uint32_t o = 0; o < static_cast<uint32_t>(MOp::Count); ++o)
    if (machine::opInfo(static_cast<MOp>(o)).exec == machine::MExec::LaneSerial) flags[kLaneSerial] = flags[kLaneSerial] + isOp(static_cast<MOp>(o));
  flags[kStore] = isOp(MOp::St);
  // A lane-serial step says WAIT at every active lane's position but the last (core.cpp's
  // laneSerialPositions, store): the WAITs read since the last token that is none.
  // (As steps: a counter's read is re-quantised with a large gain, which packed beside others
  // in one channel at the re-quantiser's level would pass f32's exact range.)
  for (uint32_t i = 0; i < 3; ++i) flags[kWaits + i] = w(c.step(fmt::format("WAITs >= {} (bit)", i + 1), w(waits[i]) - 1));

  // ---- carried packed (four bits to a channel) across the register reads and the units,
  // the step's widest layers, each group from the level its bits are ready ----
  std::vector<Expr> fields = b;
  fields.insert(fields.end(), join.begin(), join.end());
  // The SIMT stack's bank needs them twelve levels before the token (its read, the compares
  // with its rpc, the decisions and their value bits): unpacked where the caller says, not
  // at `unpackAt` like the rest.
  const WireId stackAt = active[0];
  const std::vector<Expr> f = unpackBits(c, "control flags", packBits(c, "control flags", flags), stackAt, stackAfterActive);
  const std::vector<Expr> P = unpackBits(c, "control pc", packBits(c, "control pc", pc), stackAt, stackAfterActive);
  const std::vector<Expr> F = unpackBits(c, "control b, c", packBits(c, "control b, c", fields), stackAt, stackAfterActive);
  // The depth - 1 and the running lanes the same way, as declared bits (exclusiveOr channels
  // of the unpacked forms: no MLP level) — carried packed, not as the sequencer's wires.
  std::vector<Expr> depthAndLanes;
  // (the depth as steps: a slot read's re-quantiser writes its channel with a large gain,
  // which 2^i of them in one channel would take past f32's exact range)
  for (size_t i = 0; i < s.depth.size(); ++i)
    depthAndLanes.push_back(w(c.step(fmt::format("depth-1[{}] (bit)", i), w(s.depth[i]) - 1)));
  for (WireId x : s.mask) depthAndLanes.push_back(w(x));
  const std::vector<Expr> DL =
      unpackBits(c, "control depth, lanes", packBits(c, "control depth, lanes", depthAndLanes), stackAt, stackAfterActive);
  Bus depthW, maskW;
  for (size_t i = 0; i < s.depth.size(); ++i) depthW.push_back(c.exclusiveOr(fmt::format("depth-1[{}] (control)", i), DL[i]));
  for (uint32_t l = 0; l < 4; ++l) maskW.push_back(c.exclusiveOr(fmt::format("running lane {} (control)", l), DL[s.depth.size() + l]));
  auto late = [&](WireId x) { c.notBefore(x, stackAt, stackAfterActive); };
  const std::vector<Expr> B(F.begin(), F.begin() + kPcBits), C(F.begin() + kPcBits, F.end());
  const std::vector<Expr> after = unpackBits(c, "control warp+1, block+1", packBits(c, "control warp+1, block+1", following), unpackAt);
  out.own = f[kOwn];

  // ---- late: the BRA's facts from the word and the pc (branchUpdate) ----
  const Bus next = addBuses(c, "control pc+1", P, std::vector<Expr>(kPcBits, Expr(0)), 1);
  std::vector<Expr> N;
  for (WireId x : next) N.push_back(w(x));
  const Expr toNext = equal("b = pc+1", valueOf(B) - valueOf(P) - 1);
  const Expr pushTaken = 2 - f[kBGeC] - f[kBLeC], pushFall = 2 - f[kNextGeC] - f[kNextLeC];
  const Expr two = w(andStep(c, "a divergence pushes two entries", {pushTaken, pushFall}));

  // ---- from the active lanes ----
  Expr taken, running;
  for (uint32_t l = 0; l < 4; ++l) {
    taken += w(active[l]);
    running += w(maskW[l]);
  }
  const WireId none = c.step("no lane active", -taken);
  const WireId all = c.step("every running lane active", taken - running);  // the active are among the running
  const Expr diverged = 1 - w(none) - w(all);

  // ---- the SIMT stack below the running entry (docs/compiler.md §4, "The SIMT stack") ----
  // Slot j (the entry at depth j + 1) holds {rpc, resume, lanes below}: the entry's
  // reconvergence pc, the pc the entry under it runs from when it pops, and that entry's
  // lanes — all a pop needs, at one key. No push rewrites an entry under it: a divergence's
  // entries all reconverge at c, the lower one's resume is c (the entry under it, now at c)
  // and the taken one's over a fall-through entry is pc + 1; where the BRA pops the running
  // entry (c is its rpc) the lowest entry pushed takes its slot as it is (same rpc, same
  // resume, same entry under it). Two writes keep it:
  //   * at every BRA's (and CALL's) own position, slot depth + 1 <- {c, c (a CALL's: pc + 1),
  //     running lanes}: the lower (or only) entry a divergence pushes over the running one;
  //     above the stack's top where the BRA pushes nothing or pops, so written without
  //     waiting for the outcome (nor for the stack's own read, which a write at the bank's
  //     layer cannot use);
  //   * at the TOP a divergence that pushes two entries says, slot depth' <- {c, pc + 1, the
  //     fall-through lanes}: the taken entry, from the BRA's position one back (a conv tap;
  //     a DEPTH between them repeats the BRA's decision, so one back is always the BRA's).
  // Both at one position (the TOP's step is a BRA) go to slots j and j + 1: two heads, one
  // for the odd slots and one for the even, each written once a position.
  std::vector<Expr> jBits;
  for (WireId x : depthW) jBits.push_back(w(x));
  const std::vector<WireId> pairOf = decodeAddress(c, "SIMT slot pair", Bus(depthW.begin() + 1, depthW.end()));
  // j + 1 and j - 1 without an adder: bit i is j_i +- p_i -+ 2 p_(i+1), p_i = [the bits of j
  // below i are all 1] (the carry, +) or all 0 (the borrow, -); bit n of j + 1 is p_n.
  auto plusOrMinusOne = [&](const std::string& name, int64_t sign) {
    std::vector<Expr> p{Expr(1)}, bits;
    for (uint32_t i = 1; i <= jBits.size(); ++i) {
      Expr lower;
      for (uint32_t k2 = 0; k2 < i; ++k2) lower += jBits[k2];
      const WireId pi = c.step(fmt::format("{} {}", name, i), sign > 0 ? lower - static_cast<int64_t>(i) : -lower);
      late(pi);
      p.push_back(w(pi));
    }
    for (uint32_t i = 0; i < jBits.size(); ++i) bits.push_back(jBits[i] + sign * p[i] - 2 * sign * p[i + 1]);
    if (sign > 0) bits.push_back(p.back());
    return bits;
  };
  // (j + 1) >> 1 for the even slots' write key.
  const std::vector<Expr> jPlusOne = plusOrMinusOne("depth-1+1 carry", 1);
  Bus pairAboveBits;  // (j + 1) >> 1 as proven bits
  for (uint32_t i = 1; i < jPlusOne.size(); ++i)
    pairAboveBits.push_back(c.step(fmt::format("(depth-1+1)[{}] (bit)", i), jPlusOne[i] - 1));
  const std::vector<WireId> pairAbove = decodeAddress(c, "SIMT slot pair above", pairAboveBits);
  const WireId jOdd = c.step("SIMT depth even", w(depthW[0]) - 1);  // j odd: depth j + 1 even
  const WireId jEven = c.step("SIMT depth odd", -w(depthW[0]));
  // The stack's keys where it is read and written, after the unpack, not where the depth is
  // known (they would cross the step's widest layers).
  for (const std::vector<WireId>* ws : {&pairOf, &pairAbove})
    for (WireId x : *ws) late(x);
  for (WireId x : pairAboveBits) late(x);
  late(jOdd);
  late(jEven);
  // The BRA's facts one position back, for the taken entry's write (a conv tap): its own
  // position and two pushes (where the TOP that follows is deeper, it diverged), its depth,
  // c, pc and running lanes. Declared bits (exclusiveOr channels of the unpacked forms) so
  // that the tap waits for no MLP level.
  Bus tapData;
  auto declared = [&](const std::string& name, const Expr& v) { tapData.push_back(c.exclusiveOr(name, v)); };
  declared("BRA here (for the tap)", f[kOwn]);
  declared("op BRA (for the tap)", f[kBra]);
  for (Flag x : {kBGeC, kBLeC, kNextGeC, kNextLeC}) declared(fmt::format("push compare {} (for the tap)", static_cast<int>(x)), f[x]);
  for (WireId x : depthW) tapData.push_back(x);
  for (uint32_t i = 0; i < kPcBits; ++i) declared(fmt::format("c[{}] (for the tap)", i), C[i]);
  for (uint32_t i = 0; i < kPcBits; ++i) declared(fmt::format("pc[{}] (for the tap)", i), P[i]);
  for (WireId x : maskW) tapData.push_back(x);
  const Bus back = previousBits(c, "the BRA one position back", tapData, 1, s.machineToken);
  const size_t backDepthAt = 6, backCAt = backDepthAt + s.depth.size(), backPcAt = backCAt + kPcBits, backMaskAt = backPcAt + kPcBits;
  Expr backDepth;
  for (uint32_t i = 0; i < s.depth.size(); ++i) backDepth += (int64_t{1} << i) * w(back[backDepthAt + i]);
  // Data: rpc, the resume field, the lanes below, and whether resume is the field + 1 (the
  // taken entry over a fall-through one resumes it at the BRA's pc + 1; a CALL's entry, its
  // caller at the CALL's pc + 1: CALL's tokens are not decided here, but its entry is kept,
  // so that the steps under it pop right).
  std::vector<Expr> topData, lowerData;
  for (uint32_t i = 0; i < kPcBits; ++i) topData.push_back(w(back[backCAt + i]));
  for (uint32_t i = 0; i < kPcBits; ++i) topData.push_back(w(back[backPcAt + i]));
  const Expr isCall = f[kBraOrCall] - f[kBra];
  lowerData = C;
  lowerData.insert(lowerData.end(), C.begin(), C.end());
  for (uint32_t l = 0; l < 4; ++l) lowerData.push_back(w(maskW[l]));
  // Odd slots (j odd): the taken entry's write where j is odd, the lower entry's (slot j + 1)
  // where j is even; even slots the other way round.
  auto bank = [&](const std::string& name, WireId topHere, WireId lowerHere, const std::vector<WireId>& writeKey,
                  WireId readSelect) {
    MemoryBank m;
    m.writeKey = writeKey;
    m.readKey = pairOf;
    m.readSelect = readSelect;
    // The taken entry's write where the TOP after a BRA that pushes two is deeper than the BRA.
    const WireId top = andStep(c, name + " taken entry write",
                               {w(back[0]), w(back[1]), 2 - w(back[2]) - w(back[3]), 2 - w(back[4]) - w(back[5]), w(topHere)},
                               valueOf(jBits) - backDepth - 1);
    const WireId lower = andStep(c, name + " lower entry write", {f[kOwn], f[kBraOrCall], w(lowerHere)});
    m.writeEnable = w(c.exclusiveOr(name + " write", {top, lower}));
    for (size_t i = 0; i < lowerData.size(); ++i) {
      const WireId fromTop = i < topData.size()
                                 ? andStep(c, fmt::format("{} taken data[{}]", name, i), {topData[i], w(topHere)})
                                 : andStep(c, fmt::format("{} taken data[{}]", name, i),  // the fall-through lanes
                                           {w(back[backMaskAt + i - topData.size()]), w(topHere)},
                                           -w(maskW[i - topData.size()]), 0);
      std::vector<WireId> terms = {fromTop};
      if (i >= kPcBits && i < 2 * kPcBits) {  // resume: c after a BRA, the pc after a CALL
        terms.push_back(andStep(c, fmt::format("{} lower data[{}] (BRA)", name, i), {lowerData[i], f[kBra], w(lowerHere)}));
        terms.push_back(andStep(c, fmt::format("{} lower data[{}] (CALL)", name, i), {P[i - kPcBits], isCall, w(lowerHere)}));
      } else {
        terms.push_back(andStep(c, fmt::format("{} lower data[{}]", name, i), {lowerData[i], w(lowerHere)}));
      }
      m.data.push_back(c.exclusiveOr(fmt::format("{} data[{}]", name, i), terms));
    }
    m.data.push_back(c.exclusiveOr(name + " resume + 1", {topHere, andStep(c, name + " CALL's resume + 1", {isCall, w(lowerHere)})}));
    return m;
  };
  const std::vector<WireId> evenKey(pairAbove.begin(), pairAbove.begin() + 17);
  const Bus entry = c.memoryRead("SIMT stack", {bank("SIMT odd slots", jOdd, jEven, pairOf, jOdd),
                                                bank("SIMT even slots", jEven, jOdd, evenKey, jEven)});
  std::vector<Expr> rpcBits, resumeField, below;
  for (uint32_t i = 0; i < kPcBits; ++i) rpcBits.push_back(w(entry[i]));
  for (uint32_t i = 0; i < kPcBits; ++i) resumeField.push_back(w(entry[kPcBits + i]));
  for (uint32_t l = 0; l < 4; ++l) below.push_back(w(c.step(fmt::format("lanes below {} (bit)", l), w(entry[2 * kPcBits + l]) - 1)));
  const Bus resumeSum = addBuses(c, "resume", resumeField, std::vector<Expr>(kPcBits, Expr(0)), w(entry[2 * kPcBits + 4]));
  std::vector<Expr> resume;
  for (WireId x : resumeSum) resume.push_back(w(x));
  // The base entry's rpc is the exit (its slot is never written: it reads 0).
  const Expr rpc = valueOf(rpcBits) + int64_t{machine::kExitTarget} * f[kDepth1];
  const Expr atRpc = equal("pc = rpc", valueOf(P) - rpc);
  const Expr bIsRpc = equal("b = rpc", valueOf(B) - rpc);
  const Expr nextIsRpc = equal("pc+1 = rpc", valueOf(P) + 1 - rpc);
  const Expr popTop = equal("c = rpc", valueOf(C) - rpc);
  // The depth a push leaves: j + 1 - popTop + two (as d - 1: DEPTH's value), and a pop's: j - 1.
  std::vector<Expr> twoBit(jBits.size(), Expr(0));
  twoBit[0] = two;
  const Bus pushDepth = addBuses(c, "depth after a push", jBits, twoBit, 1 - popTop);
  const std::vector<Expr> popDepth = plusOrMinusOne("depth-1-1 borrow", -1);  // j - 1
  // TOP names depths 1 and 2; deeper, the last DEPTH's, which is said first where it differs.
  struct Target {
    Expr mode1, mode2, deep, needsDepth;
  };
  auto target = [&](const std::string& name, const Expr& d, const Expr& lastIsD) {  // d: the new depth - 1
    auto lateBit = [&](WireId x) {  // decided where the pop or push is, not where the depth is known
      late(x);
      return w(x);
    };
    Target t;
    t.mode1 = lateBit(c.step(name + " depth 1", -d));
    t.mode2 = lateBit(c.step(name + " depth 2 >=", d - 1)) + lateBit(c.step(name + " depth 2 <=", 1 - d)) - 1;
    t.deep = lateBit(c.step(name + " deeper", d - 2));
    t.needsDepth = lateBit(andStep(c, name + " needs DEPTH", {t.deep}, -lastIsD, 0));
    return t;
  };
  // A push leaves d - 1 = j + 1 - popTop + two: j (popTop, not two), j + 1 (both or
  // neither) or j + 2 (two, not popTop).
  const Expr lastIsPush = w(c.exclusiveOr("the last DEPTH is the push's",
                                          {andStep(c, "last DEPTH = j, left", {popTop, f[kLastIsJ]}, -two, 0),
                                           andStep(c, "last DEPTH = j+1, left (both)", {popTop, two, f[kLastIsJp1]}),
                                           andStep(c, "last DEPTH = j+1, left (neither)", {f[kLastIsJp1]}, -popTop - two, 0),
                                           andStep(c, "last DEPTH = j+2, left", {two, f[kLastIsJp2]}, -popTop, 0)}));
  const Target pushTo = target("push", valueOf(jBits) + 1 - popTop + two, lastIsPush);
  const Target popTo = target("pop", valueOf(jBits) - 1, f[kLastIsJm1]);

  // A step ended and the running entry's next pc is its rpc: the sync pops it, a TOP before
  // anything the next step says (core.cpp's runWarpSteps) — after a DEPTH where the entry
  // under it is deeper than 2 and not the last DEPTH's (one position on, a conv tap).
  const WireId popEnd = andStep(c, "pop at the step's end", {f[kEnded], atRpc}, -f[kDepth1], 0);

  // ---- a warp's end and a barrier (core.cpp's runBlock: passes over the warps in order) ----
  // A warp leaves the pass at an EXIT at depth 1 that every running lane takes (it retires)
  // or at a BAR at depth 1 that every running lane reaches (it waits). Its step says DONE
  // (HALT where the launch's last warp of its last block retires) and the position after it
  // — two conv taps carry the flags one and two positions — says what comes next:
  //   * not the block's last warp: warp w + 1, WARP-START if it has not started (warps start
  //     in order in the first pass: w + 1 > the last warp started), else WARP w + 1;
  //   * the last warp waits at the BAR: the pass ends and the waiting warps run again from
  //     warp 0, WARP 0 (nothing where the block has one warp: it runs on);
  //   * the last warp retires: BLOCK b + 1 (HALT, above, after the launch's last block).
  // After a WARP the position says the resumed warp's TOP: the last BAR's pc + 1, its valid
  // lanes, depth 1. This is exact while every warp leaves each pass at the same BAR, at depth
  // 1 with all its lanes, and the warps retire in the last pass in order; otherwise the
  // executor's order needs per-warp state (not built): a run that leaves these conditions
  // spells a wrong token, which `--backend circuit` stops at and names. Decided from the early
  // flags at the active lanes' level (layer 19), off the token's path (a pop's TOP, which
  // comes first, is at depth 2 or deeper: none of this there).
  // Two positions are not the step's own though the sequencer says so: the one after a
  // warp's DONE (its next token is the next warp's), where the fetched word is the leaving
  // warp's next instruction, and the one after a WARP (the resumed warp's TOP is next). A
  // leave is not taken at the first where the position before left (a conv tap of the raw
  // flag: the leave's own flag would be a loop), nor at the second (the token is WARP).
  const Expr afterWarp = w(c.step("the token is WARP", w(s.setsWarp) - w(s.setsMask) - 1));
  const WireId rawRetire = andStep(c, "EXIT at depth 1, all lanes", {flags[kOwn], isOp(MOp::Exit), flags[kDepth1], w(all)},
                                   -afterWarp, 0);
  const WireId rawWait = andStep(c, "BAR at depth 1, all lanes", {flags[kOwn], isOp(MOp::Bar), flags[kDepth1], w(all)},
                                 -afterWarp, 0);
  // A one-warp block's BAR hands over to no one: its warp runs on at the next position.
  const WireId oneWarpWaits = andStep(c, "a one-warp block waits", {w(rawWait), lastWarp, warpIsZero});
  const Bus leftBefore = previousBits(
      c, "a warp left one position back",
      {c.step("a warp hands over (raw)", w(rawRetire) + w(rawWait) - w(oneWarpWaits) - 1)}, 1, s.machineToken);
  const WireId retires = andStep(c, "EXIT retires the warp", {w(rawRetire)}, -w(leftBefore[0]), 0);
  const WireId atBarrier = andStep(c, "BAR: the warp waits", {w(rawWait)}, -w(leftBefore[0]), 0);
  out.halt = andStep(c, "HALT next", {w(retires), lastWarp, lastBlock});
  const WireId startsNext = andStep(c, "the next warp starts", {w(retires) + w(atBarrier)}, -lastWarp - startedNext, 0);
  const WireId resumesNext = andStep(c, "the next warp resumes", {w(retires) + w(atBarrier), startedNext}, -lastWarp, 0);
  const WireId resumesFirst = andStep(c, "warp 0 resumes", {w(atBarrier), lastWarp}, -warpIsZero, 0);
  const WireId blockFollows = andStep(c, "another block follows", {w(retires), lastWarp}, -lastBlock, 0);
  const WireId resumes = c.step("a warp resumes", w(resumesNext) + w(resumesFirst) - 1);
  const Bus carried = previousBits(c, "after a warp leaves", {startsNext, resumesNext, resumesFirst, blockFollows}, 1,
                                   s.machineToken);
  const Bus carried2 = previousBits(c, "after a warp resumes", {resumes}, 2, s.machineToken);
  // Steps of their own: a gate's control must be a proven bit, a slot's read is not one.
  out.warpStart = c.step("WARP-START next", w(carried[0]) - 1);
  const WireId resumeNext = c.step("WARP w+1 next", w(carried[1]) - 1);
  out.warp = c.step("WARP next", w(carried[1]) + w(carried[2]) - 1);
  out.block = c.step("BLOCK next", w(carried[3]) - 1);
  const WireId topResumed = c.step("TOP of the resumed warp next", w(carried2[0]) - 1);

  // Whatever the step at this position would say waits for a pop's TOP (or its DEPTH), or
  // for the tokens that start the next warp or block or resume a warp.
  const Expr preempted = w(popEnd) + w(out.warpStart) + w(out.warp) + w(out.block) + w(topResumed);
  // ---- the BRA (branchUpdate), each outcome one step over the BRA's facts ----
  const std::vector<Expr> braHere = {f[kOwn], f[kBra]};
  auto braAnd = [&](const std::string& name, std::vector<Expr> bits, const Expr& L = Expr(0)) {
    bits.insert(bits.begin(), braHere.begin(), braHere.end());
    return andStep(c, name, bits, L - 2 * preempted);  // L is at most 1
  };
  // Where its new pc is the running entry's rpc the entry pops (not the base entry's: depth 1
  // has none to pop to): every lane or none takes it to the rpc, or a divergence that pushes
  // nothing reconverges at c = rpc. [x and not depth 1] as L = D1 - x.
  const WireId popAll = braAnd("BRA taken by all to the rpc", {w(all), bIsRpc}, -f[kDepth1]);
  const WireId popNone = braAnd("BRA taken by none, the rpc next", {w(none), nextIsRpc}, -f[kDepth1]);
  const WireId popJoin = braAnd("BRA divergence reconverges at the rpc", {diverged, 1 - pushTaken, 1 - pushFall, popTop}, -f[kDepth1]);
  const Expr popAny = w(popEnd) + w(popAll) + w(popNone) + w(popJoin);
  // Nothing changes: none taken, all to pc + 1, or a divergence that pushes nothing: FALL, or
  // the checkpoint GOTO when the BRA's sync is the 16th since a pc.
  out.jump = braAnd("GOTO b next", {w(all)}, -2 * toNext - bIsRpc + f[kDepth1]);
  const Expr same = w(braAnd("BRA none taken", {w(none)}, f[kDepth1] - nextIsRpc)) +
                    w(braAnd("BRA all to pc+1", {w(all), toNext}, f[kDepth1] - bIsRpc)) +
                    w(braAnd("BRA divergence keeps the entry", {diverged, 1 - pushTaken, 1 - pushFall}, -popTop));
  out.braCheckpoint = andStep(c, "GOTO pc+1 next", {same, f[kSixteenth]});
  out.fall = andStep(c, "FALL next", {same}, -f[kSixteenth], 0);
  const WireId takenRuns = braAnd("divergence: the taken entry runs", {diverged, pushTaken});
  const WireId fallRuns = braAnd("divergence: the fall-through entry runs", {diverged, 1 - pushTaken, pushFall});
  const Expr pushes = w(takenRuns) + w(fallRuns);
  // A CALL (core.cpp's call) pushes {b, END, its lanes} over the caller's entry, whose slot
  // the lower-entry write above keeps: the callee's entry runs, one deeper (d - 1 = j + 1,
  // whatever b, c and the rpc are: a recursive CALL's END is its caller's rpc), TOP of b and
  // the active lanes — every running lane: CALL takes no guard.
  const WireId callRuns = andStep(c, "CALL: the callee's entry runs", {f[kOwn], isCall}, -w(none) - 2 * preempted, 0);
  const Target callTo = target("call", valueOf(jBits) + 1, f[kLastIsJp1]);
  // TOP or DEPTH by the depth each leaves.
  const WireId depthPush = andStep(c, "DEPTH of a push next", {pushes, pushTo.needsDepth});
  const WireId depthPop = andStep(c, "DEPTH of a pop next", {popAny, popTo.needsDepth});
  const WireId depthCall = andStep(c, "DEPTH of a CALL next", {w(callRuns), callTo.needsDepth});
  out.depth = c.exclusiveOr("DEPTH next", {depthPush, depthPop, depthCall});
  const WireId topTaken = c.exclusiveOr("TOP of the taken entry next",
                                        {andStep(c, "TOP of the taken entry next (BRA)", {w(takenRuns)}, -pushTo.needsDepth, 0),
                                         andStep(c, "TOP of the callee's entry next", {w(callRuns)}, -callTo.needsDepth, 0)});
  const WireId topFall = andStep(c, "TOP of the fall-through entry next", {w(fallRuns)}, -pushTo.needsDepth, 0);
  const WireId topPop = andStep(c, "TOP of the entry under (a pop) next", {popAny}, -popTo.needsDepth, 0);
  out.checkpoint = andStep(c, "GOTO pc next", {f[kCheckpoint]}, -preempted, 0);
  out.gotoAny = c.exclusiveOr("GOTO next", {out.checkpoint, out.jump, out.braCheckpoint});
  out.top1 = c.exclusiveOr("TOP depth 1 next", {andStep(c, "TOP depth 1 (push)", {pushes, pushTo.mode1}),
                                                andStep(c, "TOP depth 1 (pop)", {w(topPop), popTo.mode1}), topResumed});
  out.top2 = c.exclusiveOr("TOP depth 2 next", {andStep(c, "TOP depth 2 (push)", {pushes, pushTo.mode2}),
                                                andStep(c, "TOP depth 2 (pop)", {w(topPop), popTo.mode2}),
                                                andStep(c, "TOP depth 2 (CALL)", {w(callRuns), callTo.mode2})});
  out.topDeeper = c.exclusiveOr("TOP deeper next", {andStep(c, "TOP deeper (push)", {pushes, pushTo.deep}, -pushTo.needsDepth, 0),
                                                    andStep(c, "TOP deeper (pop)", {w(topPop), popTo.deep}),
                                                    andStep(c, "TOP deeper (CALL)", {w(callRuns), callTo.deep}, -callTo.needsDepth, 0)});
  // WAIT: a lane-serial step (a store too) with more active lanes than WAITs + 1 so far.
  Expr waitsSoFar = f[kWaits] + f[kWaits + 1] + f[kWaits + 2];
  out.wait =
      c.step("WAIT next (lane-serial)", taken - waitsSoFar - 2 + 5 * (f[kOwn] - 1) + 5 * (f[kLaneSerial] - 1) - 5 * preempted);
  const WireId storeDone =
      c.step("DONE next (a store's last lane)", waitsSoFar - taken + 1 + 5 * (f[kOwn] - 1) + 5 * (f[kStore] - 1) - 5 * preempted);
  // DONE: EXIT, BAR, a store's last lane, or no lane active in a step that is no BRA or CALL
  // (a write of no lanes).
  const WireId ownDone = c.step("DONE next (the step's own)", 2 * f[kOwn] + f[kExitOrBar] + w(storeDone) +
                                     w(andStep(c, "no lane active, not BRA or CALL", {f[kOwn], w(none)}, -f[kBraOrCall], 0)) -
                                     3 - 3 * preempted - 3 * w(out.halt));
  // Or an atomic step's, once each of its lanes has spelled its two values (atomic_step.h).
  const WireId atomicDone = andStep(c, "DONE next (an atomic's last value is in)", {w(front.atomic.inStep)}, front.atomic.done);
  out.done = c.exclusiveOr("DONE next", std::vector<WireId>{ownDone, atomicDone});
  out.preempted = preempted;

  // The value bits: GOTO's pc (bits 0-9), TOP's lanes (0-3) and pc (4-13), DEPTH's d - 1.
  std::vector<Expr> value(16, Expr(0));
  auto gated = [&](WireId control, const std::string& name, uint32_t bit, const Expr& v) {
    value[bit] += w(c.gate(fmt::format("{} value[{}]", name, bit), control, v));
  };
  for (uint32_t i = 0; i < kPcBits; ++i) {
    gated(out.checkpoint, "GOTO pc", i, P[i]);
    gated(out.braCheckpoint, "GOTO pc+1", i, N[i]);
    gated(out.jump, "GOTO b", i, B[i]);
  }
  for (uint32_t l = 0; l < 4; ++l) {
    gated(topTaken, "TOP taken", l, w(active[l]));
    gated(topFall, "TOP fall-through", l, w(maskW[l]) - w(active[l]));
    gated(topPop, "TOP popped to", l, below[l]);
  }
  for (uint32_t i = 0; i < kPcBits; ++i) {
    gated(topTaken, "TOP taken", 4 + i, B[i]);
    gated(topFall, "TOP fall-through", 4 + i, N[i]);
    gated(topPop, "TOP popped to", 4 + i, resume[i]);
  }
  for (uint32_t i = 0; i < 5; ++i) {
    gated(depthPush, "DEPTH of a push", i, w(pushDepth[i]));
    gated(depthPop, "DEPTH of a pop", i, popDepth[i]);
    gated(depthCall, "DEPTH of a CALL", i, jPlusOne[i]);
  }
  for (uint32_t i = 0; i < kWarpBits; ++i) gated(out.warpStart, "WARP-START", i, after[i]);
  for (uint32_t i = 0; i < kWarpBits; ++i) gated(resumeNext, "WARP w+1", i, after[i]);
  for (uint32_t l = 0; l < 4; ++l) gated(topResumed, "TOP resumed", l, validLanes[l]);
  for (uint32_t i = 0; i < kPcBits; ++i) gated(topResumed, "TOP resumed", 4 + i, w(front.barrierResume[i]));
  for (uint32_t i = 0; i < kBlockBits; ++i) gated(out.block, "BLOCK", i, after[kWarpBits + i]);
  // One channel per bit from here to the token's level.
  for (uint32_t i = 0; i < value.size(); ++i) out.value.push_back(w(c.exclusiveOr(fmt::format("control value[{}]", i), value[i])));
  out.any = w(out.gotoAny) + w(out.fall) + w(out.top1) + w(out.top2) + w(out.depth) + w(out.topDeeper) + w(out.done) + w(out.wait) +
            w(out.halt) + w(out.warpStart) + w(out.warp) + w(out.block);
  return out;
}

}  // namespace qgpu::compiler
