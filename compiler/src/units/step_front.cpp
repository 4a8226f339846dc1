// The machine step's front end (step_front.h, docs/machine.md §5.2): the sequencer, the
// fetch, the pending write and the register-file copies in one circuit, wired as the step
// wires them — the written register and the write's width from the committed instruction
// (the word fetched one position before the commit, through the conv window), the warp from
// the sequencer, the registers read from the fetched word's operand fields.
#include "qgpu/compiler/step_front.h"

#include <fmt/format.h>

#include "qgpu/compiler/commit.h"
#include "qgpu/compiler/sequencer.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {
namespace {

using machine::kWordCAt, machine::kWordDAt, machine::kWordOpBits, machine::kWordTyAt;
constexpr uint32_t kOperandAt[kRegisterFilePorts] = {machine::kWordAAt, machine::kWordBAt, machine::kWordCAt,
                                                     machine::kWordGAt};  // the ports a, b, c, guard

}  // namespace

std::array<Expr, 4> writeWidthTerms(Circuit& c, const std::string& name, const WriteWidthFields& f) {
  // One level: per op that exists and per width its write can have, [op == j and the width
  // code's condition], each added to its width's sum (exclusive: one op, one code).
  auto code = [](const std::array<Expr, 2>& bits, uint32_t v) {
    return std::vector<Expr>{v & 1 ? bits[0] : 1 - bits[0], v & 2 ? bits[1] : 1 - bits[1]};
  };
  std::array<Expr, 4> width;
  for (uint32_t j = 0; j < static_cast<uint32_t>(machine::MOp::Count); ++j) {
    const machine::MOp op = static_cast<machine::MOp>(j);
    std::vector<Expr> isOp;
    for (uint32_t b = 0; b < kWordOpBits; ++b) isOp.push_back((j >> b) & 1 ? f.op[b] : 1 - f.op[b]);
    auto when = [&](uint32_t bytesLog2, std::vector<Expr> more, const std::string& what) {
      std::vector<Expr> bits = isOp;
      bits.insert(bits.end(), more.begin(), more.end());
      width[bytesLog2] += w(andStep(c, fmt::format("{} {} {}", name, machine::opName(op), what), bits));
    };
    switch (machine::opInfo(op).write) {
      case machine::MWrite::W:
        for (uint32_t t = 0; t < 4; ++t) when(t, code(f.ty, t), fmt::format("ty {}", t));
        break;
      case machine::MWrite::TwoW:  // a 16-byte write does not exist
        for (uint32_t t = 0; t < 3; ++t) when(t + 1, code(f.ty, t), fmt::format("ty {}", t));
        break;
      case machine::MWrite::One: when(0, {}, "1 byte"); break;
      case machine::MWrite::Two: when(1, {}, "2 bytes"); break;
      case machine::MWrite::Four: when(2, {}, "4 bytes"); break;
      case machine::MWrite::Eight: when(3, {}, "8 bytes"); break;
      case machine::MWrite::RegWidth:
        for (uint32_t t = 0; t < 4; ++t) when(t, code(f.c, t), fmt::format("c {}", t));
        break;
      case machine::MWrite::I2FDest:
        when(2, {1 - f.i2f64}, "to 4 bytes");
        when(3, {f.i2f64}, "to 8 bytes");
        break;
      case machine::MWrite::None: break;
    }
  }
  return width;
}

CommittedWrite buildCommittedWrite(Circuit& c, const Bus& word, WireId one, const Bus& warp, const Bus& k,
                                   std::optional<WireId> cNext) {
  // The fields the write's width depends on — op, ty's width code, fl's I2F-destination bit,
  // c's width code — one position back, re-thresholded into structural bits (what a bank
  // stores; a lookup's read bits are exact, but linear).
  std::vector<uint32_t> at;
  for (uint32_t b = 0; b < kWordOpBits; ++b) at.push_back(b);
  at.push_back(kWordTyAt);
  at.push_back(kWordTyAt + 1);
  at.push_back(kWordI2FDest64Bit);
  at.push_back(kWordCAt);
  at.push_back(kWordCAt + 1);
  Bus fields;
  for (uint32_t b : at) fields.push_back(c.step(fmt::format("word[{}] bit", b), w(word[b]) - 1));
  const Bus prev = previousBits(c, "committed fields", fields, 1, one);
  const WireId ty0 = prev[kWordOpBits], ty1 = prev[kWordOpBits + 1], i2f64 = prev[kWordOpBits + 2];
  const WireId c0 = prev[kWordOpBits + 3], c1 = prev[kWordOpBits + 4];
  // The written slot, warp << k | d, where the word is fetched (the warp is the step's there
  // too) and then one position back: its decoders need not wait for the fields' bank.
  // Where an atomic's new value is next (`cNext`), the register is c: a write that ends at
  // the next position is that value's (docs/machine.md §5.3).
  Bus d(word.begin() + kWordDAt, word.begin() + kWordDAt + kRegisterSlotBits);
  std::optional<std::pair<Bus, WireId>> instead;
  if (cNext) instead = std::make_pair(Bus(word.begin() + kWordCAt, word.begin() + kWordCAt + kRegisterSlotBits), *cNext);
  CommittedWrite out;
  out.slot = previousBits(c, "committed slot", registerSlotBits(c, "committed", d, warp, k, instead), 1, one);

  WriteWidthFields widthFields;
  for (uint32_t b = 0; b < kWordOpBits; ++b) widthFields.op.push_back(w(prev[b]));
  widthFields.ty = {w(ty0), w(ty1)};
  widthFields.c = {w(c0), w(c1)};
  widthFields.i2f64 = w(i2f64);
  const std::array<Expr, 4> width = writeWidthTerms(c, "committed", widthFields);
  for (uint32_t i = 0; i < 4; ++i) out.width.push_back(c.sum(fmt::format("committed width {} bytes", 1u << i), width[i]));
  return out;
}

PromptLaunch buildPromptLaunch(Circuit& c, WireId one, WireId chunkLast, WireId launchHeader, const Bus& chunk) {
  // Layer 1: the tokens one, two and three after LAUNCH (conv taps); layer 2: their values, kept.
  const Bus after1 = previousBits(c, "after launch", {launchHeader}, 1, one);
  const Bus after2 = previousBits(c, "two after launch", {launchHeader}, 2, one);
  const Bus after3 = previousBits(c, "three after launch", {launchHeader}, 3, one);
  auto keep = [&](const std::string& name, WireId after, uint32_t bits) {
    return lastWritten(c, name, one, w(after) + w(chunkLast) - 1, Bus(chunk.begin(), chunk.begin() + bits));
  };
  const Bus threads = keep("threads", after1[0], 11);  // at most 1,024
  const Bus registers = keep("registers", after2[0], kRegisterSlotBits);
  PromptLaunch out;
  out.blocks = keep("blocks", after3[0], kBlockCountBits);
  // Full warps: threads / 4; the next warp's lanes: [threads mod 4 > l].
  out.shape.fullWarps = Bus(threads.begin() + 2, threads.end());
  out.shape.tailMask = {c.step("tail lane 0", w(threads[0]) + w(threads[1]) - 1), threads[1],
                        c.step("tail lane 2", w(threads[0]) + w(threads[1]) - 2), c.sum("tail lane 3", Expr(0))};
  // k: the smallest with registers <= 2^k, one-hot.
  Expr r(0);
  for (uint32_t i = 0; i < kRegisterSlotBits; ++i) r += (int64_t{1} << i) * w(registers[i]);
  std::vector<WireId> atMost;  // [registers <= 2^s]
  for (uint32_t s = 0; s < kRegisterShifts; ++s)
    atMost.push_back(c.step(fmt::format("registers <= {}", 1u << s), (int64_t{1} << s) - r));
  out.k.push_back(atMost[0]);
  for (uint32_t s = 1; s < kRegisterShifts; ++s)
    out.k.push_back(c.step(fmt::format("k = {}", s), w(atMost[s]) - w(atMost[s - 1]) - 1));
  return out;
}

FrontWires buildFront(Circuit& c) {
  // The launch's shape and registers come from the prompt, so the prompt's features are
  // declared where the sequencer would take the shape as inputs (frontInputs' order).
  PromptFeatures prompt;
  PromptLaunch launch;
  const SequencerWires s = buildSequencer(c, [&](WireId one, WireId chunkLast) {
    prompt = declarePromptFeatures(c);
    const WireId launchHeader = c.inputBit("launch header");
    launch = buildPromptLaunch(c, one, chunkLast, launchHeader, prompt.chunk);
    return launch.shape;
  });
  const FetchWires f = buildFetch(c, s, prompt);
  // Where the warps waiting at a barrier resume: the pc + 1 of the BAR that ended the last
  // pass — the block's last warp's (every warp waits at the same BAR, step_control.h). Kept at
  // the position after one where the block's last warp fetched a BAR: there the BAR's step has
  // ended and the sequencer's pc is the BAR's + 1 (an earlier position's write, after a control
  // token before the BAR, is overwritten there). Built here, before the units' banks, so that
  // its heads are placed with the front end's (the scheduler places heads in node order).
  // The block's last warp: warp + 1 = the full warps + [a tail warp] (a pair [D >= 0], [D <= 0]).
  Expr warp, fullWarps;
  for (uint32_t i = 0; i < s.warp.size(); ++i) warp += (int64_t{1} << i) * w(s.warp[i]);
  for (uint32_t i = 0; i < launch.shape.fullWarps.size(); ++i) fullWarps += (int64_t{1} << i) * w(launch.shape.fullWarps[i]);
  const Expr d = warp + 1 - fullWarps - w(launch.shape.tailMask[0]);
  const Expr lastWarp = w(c.step("last warp >=", d)) + w(c.step("last warp <=", -d)) - 1;
  Bus barrierResume, pcBits;
  {
    const Bus opBits(f.word.begin(), f.word.begin() + machine::kWordOpBits);
    const WireId lastAtBarrier = c.step("the last warp's word is BAR", bitsMatching(opBits, static_cast<uint64_t>(machine::MOp::Bar)) +
                                                                         w(f.generating) + lastWarp - machine::kWordOpBits - 2);
    const Bus afterBarrier = previousBits(c, "after the last warp's BAR", {lastAtBarrier}, 1, s.machineToken);
    for (uint32_t i = 0; i < 10; ++i) pcBits.push_back(c.step(fmt::format("pc[{}] (bit)", i), w(s.pc[i]) - 1));
    barrierResume = lastWritten(c, "barrier resume pc", s.machineToken, w(afterBarrier[0]), pcBits);
  }
  const WriteFeatures features = declareWriteFeatures(c);
  const Bus& k = launch.k;

  // The atomic's wires first: where a new value is next, the token after commits it to c.
  const AtomicStepWires atomic = buildAtomicStep(c, s, features);
  const CommittedWrite committed = buildCommittedWrite(c, f.word, s.machineToken, s.warp, k, atomic.newNext);
  // The width cuts the values where they are re-thresholded for the banks, not in the
  // routes: the routes need not wait for the committed word (docs/machine.md §5.2).
  const PendingWrite pending = buildCommit(c, s, features, {});
  // An atomic's values commit inside its step, one lane each: the old value to d, the new one
  // to c (atomic_step.h), from the same chunk value the uniform route gives every lane.
  RegisterFileWires rf;
  // The prompt's CHUNK-LASTs end uniform "steps" for the sequencer (no prefix yet), so a
  // lane is written only while generating (past GO).
  // A CAS's c is its operand, not the new values' register: its new values go to memory alone.
  const Bus fl(f.word.begin() + machine::kWordFlAt, f.word.begin() + machine::kWordFlAt + 4);
  const WireId casWord = c.step("the word is an atomic CAS", bitsMatching(fl, static_cast<uint64_t>(machine::MAtom::Cas)) - 4);
  Bus writes;
  for (uint32_t l = 0; l < 4; ++l)
    writes.push_back(andStep(c, fmt::format("lane {} written while generating", l),
                             {w(pending.lanes[l]) + w(atomic.oldCommit[l]) + w(atomic.newCommit[l]), w(f.generating)},
                             1 - w(atomic.anyNewCommit) - w(casWord), 1));
  rf.commit = c.exclusiveOr("commit (a write's end or an atomic value's)",
                            std::vector<WireId>{pending.commit, atomic.anyOldCommit, atomic.anyNewCommit});
  rf.lanes = writes;
  // The values are merged sums of the routes' gates, a bank stores structural bits: one
  // threshold per bit, [value bit and the width holds it].
  for (uint32_t l = 0; l < 4; ++l) {
    Bus v;
    for (uint32_t b = 0; b < 64; ++b) {
      v.push_back(andStep(c, fmt::format("l{} write[{}]", l, b), {w(pending.values[l][b]), widthHoldsBit(committed.width, b)}));
    }
    rf.values.push_back(std::move(v));
  }
  const Bus dField(f.word.begin() + kWordDAt, f.word.begin() + kWordDAt + kRegisterSlotBits);
  rf.writeSlot = committed.slot;
  rf.warp = s.warp;
  rf.k = k;
  for (uint32_t p = 0; p < kRegisterFilePorts; ++p)
    rf.read.push_back(Bus(f.word.begin() + kOperandAt[p], f.word.begin() + kOperandAt[p] + kRegisterSlotBits));
  // An atomic's new value is op(old, b): port a reads d there, where the old value went.
  rf.instead = {std::make_pair(dField, atomic.newNext)};
  // A source field with bit 9 set names a constant, a special or none: its port reads 0 (the
  // guard's bit 9 is its negation, not a kind). Port a reads d where an atomic's new value is
  // next (a register: stepRuns), port b nothing elsewhere in an atomic (its address is a).
  const Expr atomicWord = isAtomicWord(c, "fetched word", f.word);
  const Expr aNone = w(f.word[kOperandAt[0] + kRegisterSlotBits]), bNone = w(f.word[kOperandAt[1] + kRegisterSlotBits]);
  rf.noRegister.push_back(c.step("port a reads no register", aNone - w(atomic.newNext) - 1));
  rf.noRegister.push_back(c.step("port b reads no register", 2 * bNone + atomicWord - w(atomic.newNext) - 1));
  rf.noRegister.push_back(f.word[kOperandAt[2] + kRegisterSlotBits]);
  return {s, prompt, f, features, pending, launch, lastWarp, pcBits, barrierResume, buildRegisterFile(c, rf), writes, atomic, atomicWord};
}

Unit frontUnit() {
  Unit u{Circuit("front"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const FrontWires front = buildFront(c);
  outputRegisterReads(c, front.reads);
  c.outputBus("word", front.fetch.word);
  c.outputBus("lanes written", front.written);
  LaneBuses lb;
  lb.results = front.reads;
  lb.results.push_back(front.fetch.word);
  lb.results.push_back(front.written);
  u.lanes.push_back(std::move(lb));
  return u;
}

std::vector<int64_t> frontInputs(uint32_t id) {
  std::vector<int64_t> in;
  appendSequencerFeatures(in, id);
  appendPromptFeatures(in, id);
  in.push_back(id == machine::ctl(machine::Ctl::Launch) ? 1 : 0);
  appendWriteFeatures(in, id);
  return in;
}

}  // namespace qgpu::compiler
