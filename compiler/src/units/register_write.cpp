// The step's register write spelled from its results (register_write.h).
//
//   the word's op, ty, fl and c bits -> the write width (one level of exclusive steps,
//     summed per width into one exclusiveOr channel: write_form's gates read it)
//   the token's write flags and the sequencer's `ended` -> the index counter's marker; the
//     counter's read is two layers on, long before the results
//   results, lanes, width, index -> buildWriteForm, buildWriteToken
#include "qgpu/compiler/register_write.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <string>

#include "qgpu/compiler/step_front.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {

RegisterWriteWires buildRegisterWrite(Circuit& c, const FrontWires& front, const std::vector<WireId>& op,
                                      const std::vector<Bus>& results, const Bus& lanes, const Bus& waits,
                                      uint32_t stackAfterActive) {
  const Bus& word = front.fetch.word;
  WriteWidthFields fields;
  for (uint32_t b = 0; b < machine::kWordOpBits; ++b) fields.op.push_back(w(word[b]));
  fields.ty = {w(word[machine::kWordTyAt]), w(word[machine::kWordTyAt + 1])};
  fields.c = {w(word[machine::kWordCAt]), w(word[machine::kWordCAt + 1])};
  fields.i2f64 = w(word[kWordI2FDest64Bit]);
  const std::array<Expr, 4> widthTerms = writeWidthTerms(c, "write", fields);

  RegisterWriteWires out;
  // The proof takes a channel's range from the weights alone, and the result select's
  // exclusiveOr channels are bits only by the machine's declaration: the decision's linear
  // forms over 16 and 64 of a value's bits are exact in f32 only on proven bits. One level.
  for (uint32_t l = 0; l < 4; ++l) {
    Bus v;
    for (uint32_t i = 0; i < 64; ++i) v.push_back(c.step(fmt::format("l{} value[{}]", l, i), w(results[l][i]) - 1));
    out.in.value.push_back(std::move(v));
  }
  // Likewise a gate's control: one threshold makes each lane of the active mask (an
  // exclusiveOr) a proven bit (it is ready long before the results).
  for (uint32_t l = 0; l < 4; ++l) out.in.lanes.push_back(c.step(fmt::format("l{} written", l), w(lanes[l]) - 1));
  for (uint32_t t = 0; t < 4; ++t)
    out.in.width.push_back(c.exclusiveOr(fmt::format("write width {} bytes", 1u << t), widthTerms[t]));

  // The marker: a token that is no write token, or one that ended a step. The write flags are
  // one token's classes (exclusive), ended a bit: [ended - write tokens >= 0].
  const WriteFeatures& f = front.write;
  Expr writeToken = w(f.isMore) + w(front.sequencer.chunkLast) + w(f.isPack4);
  for (WireId b : f.formBits) writeToken += w(b);
  // Inside an atomic step each value starts at k = 0: its values' CHUNK-LASTs mark too.
  const WireId atomicValueEnds =
      andStep(c, "an atomic's value ends", {w(front.atomic.inStep), w(front.sequencer.chunkLast)});
  const WireId marker = c.step("write index marker", w(front.sequencer.ended) - writeToken + 2 * w(atomicValueEnds));
  out.index = c.countSince("write index", marker, front.sequencer.machineToken, kMaxCountBits);

  // The control tokens and DONE (step_control.h), and ACTIVE m (docs/machine.md §3.3) take
  // the write's place at k = 0: ACTIVE when fewer lanes are written than run (the written are
  // among the running), in an op that writes a register, where no checkpoint comes first.
  out.control = buildStepControl(c, front, op, out.in.lanes, waits, out.index, out.in.value[0][0], stackAfterActive);
  Expr running, written, writes;
  for (uint32_t l = 0; l < 4; ++l) {
    running += w(front.sequencer.mask[l]);
    written += w(out.in.lanes[l]);
  }
  for (WireId x : out.in.width) writes += w(x);
  const WireId none = c.step("no lane written", -written);
  const WireId fewer = c.step("fewer lanes written than running", running - written - 1);
  out.activeNext = c.step("ACTIVE next", w(fewer) - w(none) + out.control.own + writes - w(out.control.wait) -
                                             2 * out.control.preempted - 3);
  // ATOMIC: the step's own first token of an atomic with every running lane active, or the
  // token after its ACTIVE (docs/machine.md §5.3).
  const WireId atomicOwn = c.step("ATOMIC next (the step's own)", out.control.own + front.atomicWord - w(fewer) - w(none) -
                                                                      2 * out.control.preempted - 2);
  const WireId atomicAfterActive =
      andStep(c, "ATOMIC next (after its ACTIVE)", {w(front.write.isActive), w(front.fetch.generating), front.atomicWord});
  out.atomicNext = c.exclusiveOr("ATOMIC next", std::vector<WireId>{atomicOwn, atomicAfterActive});
  InsteadOfWrite instead{w(out.activeNext) + w(out.atomicNext) + out.control.any, out.control.value};
  for (uint32_t l = 0; l < 4; ++l)
    instead.value[l] += w(c.step(fmt::format("ACTIVE lane {}", l), w(out.activeNext) + w(out.in.lanes[l]) - 2));

  out.form = buildWriteForm(c, out.in);
  out.token = buildWriteToken(c, out.in, out.form, out.index, instead);
  return out;
}

void writeTokenOutput(Circuit& c, const TokenVocabulary& vocab, const RegisterWriteWires& rw) {
  const WriteTokenWires& t = rw.token;
  static const char* kKindClasses[kWriteTokenKinds] = {"chunk_more", "chunk_last", "pack4", "affine", "lanes", "lanes_high"};
  const StepControlWires& ctl = rw.control;
  const std::map<std::string, WireId> otherClass = {
      {"active", rw.activeNext}, {"done", ctl.done},         {"goto", ctl.gotoAny},     {"fall", ctl.fall},
      {"top_depth1", ctl.top1},  {"top_depth2", ctl.top2},   {"depth", ctl.depth},      {"top_deeper", ctl.topDeeper},
      {"wait", ctl.wait},        {"halt", ctl.halt},         {"warp_start", ctl.warpStart}, {"warp", ctl.warp},
      {"block", ctl.block},      {"atomic", rw.atomicNext}};
  TokenPort next;
  for (const TokenClass& k : vocab.classes) {
    const auto* it = std::find(std::begin(kKindClasses), std::end(kKindClasses), k.name);
    if (it != std::end(kKindClasses)) {
      next.classBits.push_back(t.kind[static_cast<size_t>(it - std::begin(kKindClasses))]);
    } else if (const auto other = otherClass.find(k.name); other != otherClass.end()) {
      next.classBits.push_back(other->second);
    } else {
      const WireId none = c.step("next." + k.name + " (not spelled yet)", Expr(-1));
      c.notBefore(none, t.kind[0]);
      next.classBits.push_back(none);
    }
  }
  for (uint32_t i = 0; i < vocab.valueBits(); ++i) next.valueBits.push_back(t.payload.at(i));
  c.exclusiveGroup("the next token's class", next.classBits);
  tokenOutput(c, vocab, next);
}

Unit aluWriteUnit(const TokenVocabulary* head) {
  Unit u{Circuit("alu_write"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const FrontWires front = buildFront(c);
  const OperandWires operands = buildOperandSelect(c, front);
  const AluWires alu = buildAlu(c, front, operands);
  // The SIMT stack three levels after the active lanes: 36 layers (two kept it at 35 until
  // VOTE and the 2-byte SHR took layer 20 to 2,081 channels; fewer take it over 2,048, where
  // the ALU's layers are full; each level more, a layer).
  const RegisterWriteWires rw = buildRegisterWrite(c, front, operands.op, alu.result, alu.active, countWaits(c, front), 3);
  LaneBuses lb = outputAlu(c, alu);
  outputRegisterWrite(c, rw, lb);
  u.lanes.push_back(std::move(lb));
  if (head) writeTokenOutput(c, *head, rw);
  return u;
}

void outputRegisterWrite(Circuit& c, const RegisterWriteWires& rw, LaneBuses& lb) {
  c.outputBus("kind", rw.token.kind);
  c.outputBus("value", rw.token.payload);
  c.output("last", rw.token.last);
  c.outputBus("index", rw.index);
  const StepControlWires& ctl = rw.control;
  const std::array<std::pair<const char*, WireId>, kOtherTokens> others = {{{"ACTIVE next", rw.activeNext},
      {"DONE next", ctl.done}, {"GOTO next", ctl.gotoAny}, {"FALL next", ctl.fall}, {"TOP depth 1 next", ctl.top1},
      {"TOP depth 2 next", ctl.top2}, {"DEPTH next", ctl.depth}, {"TOP deeper next", ctl.topDeeper}, {"WAIT next", ctl.wait},
      {"HALT next", ctl.halt}, {"WARP-START next", ctl.warpStart}, {"WARP next", ctl.warp},
      {"BLOCK next", ctl.block}, {"ATOMIC next", rw.atomicNext}}};
  Bus otherBits;
  for (const auto& [name, wire] : others) {
    c.output(name, wire);
    otherBits.push_back(wire);
  }
  lb.results.push_back(rw.token.kind);
  lb.results.push_back(rw.token.payload);
  lb.results.push_back({rw.token.last});
  lb.results.push_back(rw.index);
  lb.results.push_back(otherBits);
}

uint32_t spelledWriteToken(const std::vector<int64_t>& outputs, size_t kindAt) {
  uint32_t kind = kWriteTokenKinds, kinds = 0, value = 0;
  for (uint32_t j = 0; j < kWriteTokenKinds; ++j)
    if (outputs.at(kindAt + j)) kind = j, ++kinds;
  for (uint32_t b = 0; b < 16; ++b) value |= static_cast<uint32_t>(outputs.at(kindAt + kWriteTokenKinds + b) != 0) << b;
  // AFFINE carries no value; the LANES prefixes count 1..4 lanes (value n - 1).
  if (kinds != 1 || (kind == 3 && value != 0) || (kind >= 4 && value >= 4)) return 0;
  return writeTokenId(kind, value);
}

SpelledToken spelledToken(const std::vector<int64_t>& outputs, size_t at) {
  const size_t valueAt = at + kWriteTokenKinds, otherAt = valueAt + 16 + 1 + 16;
  if (outputs.size() < otherAt + kOtherTokens) return {{}, "fewer outputs than a register write's"};
  uint32_t kinds = 0, kind = 0, value = 0;
  for (uint32_t j = 0; j < kWriteTokenKinds; ++j)
    if (outputs[at + j] != 0) kind = j, ++kinds;
  for (uint32_t b = 0; b < 16; ++b) value |= static_cast<uint32_t>(outputs[valueAt + b] != 0) << b;
  uint32_t others = 0, other = 0;
  for (uint32_t j = 0; j < kOtherTokens; ++j)
    if (outputs[otherAt + j] != 0) other = j, ++others;
  if (kinds + others > 1) {
    static const char* kNames[kOtherTokens] = {"ACTIVE", "DONE", "GOTO", "FALL", "TOP depth 1", "TOP depth 2", "DEPTH",
                                               "TOP deeper", "WAIT", "HALT", "WARP-START", "WARP", "BLOCK", "ATOMIC"};
    std::string which = kinds ? "a write token" : "";
    for (uint32_t j = 0; j < kOtherTokens; ++j)
      if (outputs[otherAt + j] != 0) which += fmt::format("{}{}", which.empty() ? "" : ", ", kNames[j]);
    return {{}, "two tokens at once (" + which + ")"};
  }
  if (kinds + others == 0) return {{}, "no token"};
  auto bounded = [&](uint32_t limit, uint32_t id) -> SpelledToken {
    if (value < limit) return {id, {}};
    return {{}, fmt::format("a value {} out of range", value)};
  };
  if (kinds == 1) {
    if (const uint32_t id = spelledWriteToken(outputs, at)) return {id, {}};
    return {{}, fmt::format("write kind {} with value {}", kind, value)};
  }
  using machine::Ctl;
  switch (static_cast<OtherToken>(other)) {
    case OtherToken::Active:
      if (value > 0 && value < 16) return {machine::kActive + value, {}};
      return {{}, fmt::format("ACTIVE with value {}", value)};
    case OtherToken::Done: return bounded(1, machine::ctl(Ctl::Done));
    case OtherToken::Fall: return bounded(1, machine::ctl(Ctl::Fall));
    case OtherToken::Goto: return bounded(1024, machine::kGoto + value);
    case OtherToken::Top1: return bounded(1u << 14, machine::topToken(value >> 4, value & 15, 1));
    case OtherToken::Top2: return bounded(1u << 14, machine::topToken(value >> 4, value & 15, 2));
    case OtherToken::TopDeeper: return bounded(1u << 14, machine::topToken(value >> 4, value & 15, 3));
    case OtherToken::Depth: return bounded(32, machine::kDepth + value);
    case OtherToken::Wait: return bounded(1, machine::ctl(Ctl::Wait));
    case OtherToken::Halt: return bounded(1, machine::ctl(Ctl::Halt));
    case OtherToken::WarpStart: return bounded(machine::kMaxWarpsPerBlock, machine::kWarpStart + value);
    case OtherToken::Warp: return bounded(machine::kMaxWarpsPerBlock, machine::kWarpResume + value);
    case OtherToken::Block: return bounded(machine::kMaxBlocks, machine::kBlock + value);
    case OtherToken::Atomic: return bounded(1, machine::ctl(Ctl::Atomic));
  }
  return {{}, "?"};
}

}  // namespace qgpu::compiler
