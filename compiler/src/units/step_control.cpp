// The step's first non-write tokens (step_control.h), mirroring machine/src/core.cpp's sync(),
// branchUpdate and laneSerialPositions.
//
//   early (from the sequencer and the fetched word, layers up to 12): the checkpoint, the
//     step's own token, the op and depth flags, the WAITs since the last other token (a
//     counter), the entry under depth 2 (last-write slots written at every BRA at depth 1:
//     the join and the running lanes; and that BRA's pc, whose + 1 is the fall-through entry
//     under depth 3) and the compares against its join: the pop after a step (to depth 1
//     from depth 2, to depth 2 from depth 3), b = join, pc + 1 = join
//   carried packed (four bits to a channel) across the register reads, the step's widest
//     layers, to the results' level, and unpacked there: the flags, the pc, b and c, the entry
//   late: pc + 1, the equalities b = pc + 1, b = c, pc + 1 = c, c = exit (pairs [D >= 0],
//     [D <= 0]) and the stack a divergence leaves; from the active lanes none / all active,
//     the BRA's outcome, DONE, WAIT (lane-serial steps: FADD, FSUB, FMUL, FFMA, ST);
//     a warp leaving its pass (a retiring EXIT, a BAR it waits at): HALT, and carried one
//     and two positions by conv taps, WARP-START / WARP / BLOCK and the resumed warp's TOP;
//     the value bits as gates of the pcs and lanes by the token
//     chosen, one channel per bit
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
enum Flag : uint32_t {
  kCheckpoint,  // the checkpoint GOTO is next
  kOwn,         // the step's own first token is next
  kSixteenth,   // 15 or more steps ended since the last pc (a BRA's sync would be the 16th)
  kDeep3,       // the last DEPTH is 3
  kDepth1,      // the SIMT depth is 1
  kDepth2,      // the SIMT depth is 2
  kBra,         // the op is BRA
  kExitOrBar,   // the op is EXIT or BAR
  kBraOrCall,   // the op is BRA or CALL
  kLaneSerial,  // the op is lane-serial (the float, compare and conversion ops, ST: one position per active lane)
  kStore,       // the op is ST (DONE at its last lane's position)
  kPopEnd,      // a step ended at depth 2 and the next pc is the base entry's join: a pop
  kBIsJoin,     // the word's b is the base entry's join
  kNextIsJoin,  // pc + 1 is the base entry's join
  kWaits,       // [WAITs read since the step began >= 1, 2, 3] (three flags)
  kDepth3 = kWaits + 3,  // the SIMT depth is 3
  kPop3End,     // a step ended at depth 3 and the next pc is the join: a pop to the fall-through entry
  kFlags
};
constexpr uint32_t kWarpBits = 8, kBlockBits = 12;
constexpr uint32_t kPcBits = 10;

}  // namespace

StepControlWires buildStepControl(Circuit& c, const FrontWires& front, const std::vector<WireId>& op,
                                  const Bus& active, const Bus& waits, const Bus& k, WireId unpackAt) {
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
  const WireId own = c.step("the step's own first token next", (1 - w(k[0])) + w(front.fetch.generating) -
                                                                   w(front.write.isActive) - w(checkpointEarly) - 2);
  Expr depthSum;
  for (WireId d : s.depth) depthSum += w(d);
  std::vector<Expr> flags(kFlags);
  flags[kCheckpoint] = w(checkpointEarly);
  flags[kOwn] = w(own);
  flags[kSixteenth] = w(s.steps[machine::kPcCheckpointSteps - 2]);
  flags[kDeep3] = w(c.step("the last DEPTH is 3", bitsMatching(s.lastDepth, 2) - static_cast<int64_t>(s.lastDepth.size())));
  flags[kDepth1] = w(c.step("SIMT depth 1", -depthSum));
  flags[kDepth2] = w(c.step("SIMT depth 2", bitsMatching(s.depth, 1) - static_cast<int64_t>(s.depth.size())));
  flags[kDepth3] = w(c.step("SIMT depth 3", bitsMatching(s.depth, 2) - static_cast<int64_t>(s.depth.size())));
  // The base entry under a divergence at depth 1 (branchUpdate): its pc becomes the join and
  // it keeps the lanes that ran. Depth 2 is entered only from a BRA at depth 1 that diverges
  // (or a CALL, not decided here), so a last-write slot written at every BRA at depth 1 holds
  // it whenever the warp runs at depth 2 — written from the word and the mask alone, early.
  const WireId braAtDepth1 = andStep(c, "BRA at depth 1 (early)", {w(own), isOp(MOp::Bra)}, -depthSum, 0);
  Bus joinField, runningLanes;
  for (uint32_t i = 0; i < kPcBits; ++i) joinField.push_back(c.step(fmt::format("join[{}]", i), w(word[machine::kWordCAt + i]) - 1));
  for (uint32_t l = 0; l < 4; ++l) runningLanes.push_back(c.step(fmt::format("running lane {}", l), w(s.mask[l]) - 1));
  const Bus baseJoin = lastWritten(c, "base entry pc", s.machineToken, braAtDepth1, joinField);
  const Bus baseLanes = lastWritten(c, "base entry lanes", s.machineToken, braAtDepth1, runningLanes);
  // The fall-through entry over it when a BRA at depth 1 pushed three (depth 3): pc + 1 of that
  // BRA and the running lanes it did not take — the base entry's lanes less the ones running
  // at depth 3 (the taken entry's), so only the BRA's pc needs a slot.
  Bus braPc;
  for (uint32_t i = 0; i < kPcBits; ++i) braPc.push_back(front.pcBits[i]);
  const Bus divergedAt = lastWritten(c, "divergent BRA pc", s.machineToken, braAtDepth1, braPc);
  std::vector<Expr> J, pcNow;
  for (WireId x : baseJoin) J.push_back(w(x));
  // The pc as bits of its own for the compares after the slot's read (the sequencer's pc is a
  // form over its base, carries and counter bits: 27 channels live that long instead of 10).
  for (uint32_t i = 0; i < kPcBits; ++i) pcNow.push_back(w(front.pcBits[i]));
  // [x = y] as the pair [x - y >= 0], [y - x >= 0]: their sum is 2 where x = y, else 1.
  auto equal = [&](const std::string& name, const Expr& d) {
    return w(c.step(name + " >=", d)) + w(c.step(name + " <=", -d)) - 1;
  };
  // A step ended at depth 2 and the running entry's next pc is its join: the sync pops to the
  // base entry, a TOP at depth 1 before anything the next step says (core.cpp's runWarpSteps).
  const Expr atJoin = equal("pc = join", valueOf(pcNow) - valueOf(J));
  flags[kPopEnd] = w(andStep(c, "pop to the base entry", {w(s.ended), w(front.fetch.generating), flags[kDepth2], atJoin}));
  // The same at depth 3: the taken entry reached the join, the fall-through entry runs (TOP at
  // depth 2).
  flags[kPop3End] = w(andStep(c, "pop to the fall-through entry", {w(s.ended), w(front.fetch.generating), flags[kDepth3], atJoin}));
  flags[kBIsJoin] = equal("b = join", valueOf(b) - valueOf(J));
  flags[kNextIsJoin] = equal("pc+1 = join", valueOf(pcNow) + 1 - valueOf(J));
  // Packed from steps: a memory read's re-quantiser writes its channel with a large gain, and
  // 2^i of them in one channel would leave f32's exact range (the proof refuses it).
  std::vector<Expr> base;
  for (uint32_t i = 0; i < kPcBits; ++i) base.push_back(w(c.step(fmt::format("base entry pc[{}] (bit)", i), J[i] - 1)));
  for (uint32_t l = 0; l < 4; ++l) base.push_back(w(c.step(fmt::format("base entry lane {} (bit)", l), w(baseLanes[l]) - 1)));
  std::vector<Expr> divergedPc;
  for (uint32_t i = 0; i < kPcBits; ++i)
    divergedPc.push_back(w(c.step(fmt::format("divergent BRA pc[{}] (bit)", i), w(divergedAt[i]) - 1)));
  for (WireId x : addBuses(c, "fall-through entry pc", divergedPc, std::vector<Expr>(kPcBits, Expr(0)), 1)) base.push_back(w(x));
  flags[kBra] = isOp(MOp::Bra);
  flags[kExitOrBar] = isOp(MOp::Exit) + isOp(MOp::Bar);
  flags[kBraOrCall] = isOp(MOp::Bra) + isOp(MOp::Call);
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
  for (uint32_t i = 0; i < 3; ++i) flags[kWaits + i] = w(waits[i]);

  // ---- carried packed (four bits to a channel) across the register reads and the units,
  // the step's widest layers, each group from the level its bits are ready ----
  std::vector<Expr> fields = b;
  fields.insert(fields.end(), join.begin(), join.end());
  const std::vector<Expr> f = unpackBits(c, "control flags", packBits(c, "control flags", flags), unpackAt);
  const std::vector<Expr> P = unpackBits(c, "control pc", packBits(c, "control pc", pc), unpackAt);
  const std::vector<Expr> F = unpackBits(c, "control b, c", packBits(c, "control b, c", fields), unpackAt);
  const std::vector<Expr> B(F.begin(), F.begin() + kPcBits), C(F.begin() + kPcBits, F.end());
  const std::vector<Expr> baseEntry = unpackBits(c, "control base entry", packBits(c, "control base entry", base), unpackAt);
  const std::vector<Expr> after = unpackBits(c, "control warp+1, block+1", packBits(c, "control warp+1, block+1", following), unpackAt);
  out.own = f[kOwn];

  // ---- late: the BRA's stack from the word and the pc (branchUpdate) ----
  const Bus next = addBuses(c, "control pc+1", P, std::vector<Expr>(kPcBits, Expr(0)), 1);
  std::vector<Expr> N;
  for (WireId x : next) N.push_back(w(x));
  const Expr toNext = equal("b = pc+1", valueOf(B) - valueOf(P) - 1);
  const Expr takenJoins = equal("b = c", valueOf(B) - valueOf(C));
  const Expr fallJoins = equal("pc+1 = c", valueOf(P) + 1 - valueOf(C));
  const Expr atExit = equal("c = exit", valueOf(C) - int64_t{machine::kExitTarget});
  const Expr pushTaken = 1 - takenJoins, pushFall = 1 - fallJoins, stays = 1 - atExit;
  const WireId bra1 = andStep(c, "BRA at depth 1", {f[kOwn], f[kBra], f[kDepth1]});
  const Expr bra = w(bra1);
  // The base entry pops iff the join is its reconvergence pc (exit); the taken entry is pushed
  // iff b != c, the fall-through one iff pc + 1 != c. The new depth is (1 - pop) + pushes, the
  // new running entry the taken one if pushed, else the fall-through one.
  const Expr taken1 = w(andStep(c, "divergence: taken entry alone", {bra, atExit, pushTaken, fallJoins}));
  const Expr fall1 = w(andStep(c, "divergence: fall-through entry alone", {bra, atExit, takenJoins, pushFall}));
  const Expr taken2 = w(andStep(c, "divergence: taken entry over the base", {bra, stays, pushTaken, fallJoins})) +
                      w(andStep(c, "divergence: taken over fall-through", {bra, atExit, pushTaken, pushFall}));
  const Expr fall2 = w(andStep(c, "divergence: fall-through entry over the base", {bra, stays, takenJoins, pushFall}));
  const Expr taken3New = w(andStep(c, "divergence: three entries, a new depth", {bra, stays, pushTaken, pushFall}, -f[kDeep3], 0));
  const Expr taken3 = w(andStep(c, "divergence: three entries", {bra, stays, pushTaken, pushFall, f[kDeep3]}));
  const Expr keepsShape = w(andStep(c, "divergence: nothing pushed", {bra, stays, takenJoins, fallJoins}));

  // ---- from the active lanes ----
  Expr taken, running;
  for (uint32_t l = 0; l < 4; ++l) {
    taken += w(active[l]);
    running += w(s.mask[l]);
  }
  const WireId none = c.step("no lane active", -taken);
  const WireId all = c.step("every running lane active", taken - running);  // the active are among the running
  const Expr diverged = 1 - w(none) - w(all);

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
  // comes first, is at depth 2: none of this there).
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

  // Whatever the step at this position would say waits for a pop's TOP, or for the tokens
  // that start the next warp or block or resume a warp.
  const Expr preempted = f[kPopEnd] + f[kPop3End] + w(out.warpStart) + w(out.warp) + w(out.block) + w(topResumed);
  // A BRA at depth 2 that every lane or none takes pops to the base entry where its new pc
  // (b, or pc + 1) is the join; otherwise it says what it says at depth 1.
  const WireId bra2 = andStep(c, "BRA at depth 2", {f[kOwn], f[kBra], f[kDepth2]}, -preempted, 0);
  const WireId popAll = andStep(c, "BRA at depth 2 taken by all to the join", {w(bra2), w(all), f[kBIsJoin]});
  const WireId popNone = andStep(c, "BRA at depth 2 taken by none, the join next", {w(bra2), w(none), f[kNextIsJoin]});
  const Expr popBra = w(popAll) + w(popNone);
  // At depth 3 the same pops to the fall-through entry.
  const WireId bra3 = andStep(c, "BRA at depth 3", {f[kOwn], f[kBra], f[kDepth3]}, -preempted, 0);
  const Expr popBra3 = w(andStep(c, "BRA at depth 3 taken by all to the join", {w(bra3), w(all), f[kBIsJoin]})) +
                       w(andStep(c, "BRA at depth 3 taken by none, the join next", {w(bra3), w(none), f[kNextIsJoin]}));
  const WireId braUniform =
      c.step("BRA at depth 1, 2 or 3, no pop", bra + w(bra2) + w(bra3) - popBra - popBra3 - 1 - 2 * preempted);

  // Nothing changes: none taken, all to pc + 1, or a divergence that pushes nothing: FALL, or
  // the checkpoint GOTO when the BRA's sync is the 16th since a pc.
  out.jump = andStep(c, "GOTO b next", {w(braUniform), w(all)}, -toNext, 0);
  const WireId same = c.sum("BRA changes nothing",
                            w(andStep(c, "BRA none taken", {w(braUniform), w(none)})) +
                                w(andStep(c, "BRA all to pc+1", {w(braUniform), toNext, w(all)})) +
                                w(andStep(c, "BRA divergence keeps the entry", {keepsShape, diverged}, -preempted, 0)));
  out.braCheckpoint = andStep(c, "GOTO pc+1 next", {w(same), f[kSixteenth]});
  out.fall = andStep(c, "FALL next", {w(same)}, -f[kSixteenth], 0);
  auto ifNotPreempted = [&](const std::string& name, std::vector<Expr> bits) { return andStep(c, name, std::move(bits), -preempted, 0); };
  const WireId top1T = ifNotPreempted("TOP depth 1 (taken) next", {taken1, diverged});
  const WireId top1F = ifNotPreempted("TOP depth 1 (fall-through) next", {fall1, diverged});
  const WireId top2T = ifNotPreempted("TOP depth 2 (taken) next", {taken2, diverged});
  const WireId top2F = ifNotPreempted("TOP depth 2 (fall-through) next", {fall2, diverged});
  out.depth3 = ifNotPreempted("DEPTH 3 next", {taken3New, diverged});
  out.top3 = ifNotPreempted("TOP depth 3 next", {taken3, diverged});
  const WireId topBase = c.step("TOP of the base entry next", f[kPopEnd] + popBra - 1);
  const WireId topFallEntry = c.step("TOP of the fall-through entry (a pop) next", f[kPop3End] + popBra3 - 1);
  out.checkpoint = ifNotPreempted("GOTO pc next", {f[kCheckpoint]});
  out.gotoAny = c.exclusiveOr("GOTO next", {out.checkpoint, out.jump, out.braCheckpoint});
  out.top1 = c.exclusiveOr("TOP depth 1 next", {top1T, top1F, topBase, topResumed});
  out.top2 = c.exclusiveOr("TOP depth 2 next", {top2T, top2F, topFallEntry});
  // WAIT: a lane-serial step (a store too) with more active lanes than WAITs + 1 so far.
  Expr waitsSoFar = f[kWaits] + f[kWaits + 1] + f[kWaits + 2];
  out.wait =
      c.step("WAIT next (lane-serial)", taken - waitsSoFar - 2 + 5 * (f[kOwn] - 1) + 5 * (f[kLaneSerial] - 1) - 5 * preempted);
  const WireId storeDone =
      c.step("DONE next (a store's last lane)", waitsSoFar - taken + 1 + 5 * (f[kOwn] - 1) + 5 * (f[kStore] - 1) - 5 * preempted);
  // DONE: EXIT, BAR, a store's last lane, or no lane active in a step that is no BRA or CALL
  // (a write of no lanes).
  out.done = c.step("DONE next", 2 * f[kOwn] + f[kExitOrBar] + w(storeDone) +
                                     w(andStep(c, "no lane active, not BRA or CALL", {f[kOwn], w(none)}, -f[kBraOrCall], 0)) -
                                     3 - 3 * preempted - 3 * w(out.halt));
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
  for (uint32_t l = 0; l < 4; ++l) gated(topBase, "TOP base", l, baseEntry[kPcBits + l]);
  for (uint32_t i = 0; i < kPcBits; ++i) gated(topBase, "TOP base", 4 + i, baseEntry[i]);
  for (uint32_t l = 0; l < 4; ++l)
    gated(topFallEntry, "TOP fall-through entry", l,
          w(c.step(fmt::format("fall-through entry lane {}", l), baseEntry[kPcBits + l] - w(s.mask[l]) - 1)));
  for (uint32_t i = 0; i < kPcBits; ++i) gated(topFallEntry, "TOP fall-through entry", 4 + i, baseEntry[kPcBits + 4 + i]);
  const WireId topT = c.step("TOP of the taken entry next", w(top1T) + w(top2T) + w(out.top3) - 1);
  const WireId topF = c.step("TOP of the fall-through entry next", w(top1F) + w(top2F) - 1);
  for (uint32_t l = 0; l < 4; ++l) {
    gated(topT, "TOP taken", l, w(active[l]));
    gated(topF, "TOP fall-through", l, w(s.mask[l]) - w(active[l]));
  }
  for (uint32_t i = 0; i < kPcBits; ++i) {
    gated(topT, "TOP taken", 4 + i, B[i]);
    gated(topF, "TOP fall-through", 4 + i, N[i]);
  }
  value[1] += w(out.depth3);  // DEPTH 3: d - 1 = 2
  for (uint32_t i = 0; i < kWarpBits; ++i) gated(out.warpStart, "WARP-START", i, after[i]);
  for (uint32_t i = 0; i < kWarpBits; ++i) gated(resumeNext, "WARP w+1", i, after[i]);
  for (uint32_t l = 0; l < 4; ++l) gated(topResumed, "TOP resumed", l, validLanes[l]);
  for (uint32_t i = 0; i < kPcBits; ++i) gated(topResumed, "TOP resumed", 4 + i, w(front.barrierResume[i]));
  for (uint32_t i = 0; i < kBlockBits; ++i) gated(out.block, "BLOCK", i, after[kWarpBits + i]);
  // One channel per bit from here to the token's level.
  for (uint32_t i = 0; i < value.size(); ++i) out.value.push_back(w(c.exclusiveOr(fmt::format("control value[{}]", i), value[i])));
  out.any = w(out.gotoAny) + w(out.fall) + w(out.top1) + w(out.top2) + w(out.depth3) + w(out.top3) + w(out.done) + w(out.wait) +
            w(out.halt) + w(out.warpStart) + w(out.warp) + w(out.block);
  return out;
}

}  // namespace qgpu::compiler
