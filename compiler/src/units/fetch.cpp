// The machine step's fetch (docs/machine.md §5.2, layer 7 of the plan) on top of the
// sequencer: the prompt's code words become attention lookup entries at the positions of
// their last chunks, keyed by their pc — the AT's 16 j plus the words counted since that AT
// or since the code size (the CHUNK-LAST right after CODE), so no index is kept from one
// position to the next — with the three chunks before the last one from the conv window;
// every generated position looks up the word at the sequencer's pc. Positions that are no
// entry store key and value 0, and a prompt position's query is 0: it matches those and
// reads exactly 0.
#include <fmt/format.h>

#include "qgpu/compiler/sequencer.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {
namespace {

// [on and x], x a bit-valued form: the structural bit a lookup's key, query or value needs.
WireId gated(Circuit& c, const std::string& name, WireId on, const Expr& x) { return c.step(name, w(on) + x - 2); }

}  // namespace

PromptFeatures declarePromptFeatures(Circuit& c) {
  PromptFeatures f;
  f.sectionHeader = c.inputBit("section header");  // PROMPT CODE CONSTS LAUNCH SEGMENT ZERO-SEGMENT GO
  f.codeHeader = c.inputBit("code header");
  f.goHeader = c.inputBit("go");
  f.constsHeader = c.inputBit("consts header");
  f.setsAt = c.inputBit("sets at");  // AT, or a section header (AT 0)
  f.isAt = c.inputBit("at");
  f.atField = c.inputBus("at field", kAtFieldBits);
  f.chunk = c.inputBus("chunk value", 16);
  f.segmentHeader = c.inputBit("segment header");
  f.chunkMore = c.inputBit("chunk more");
  return f;
}

FetchWires buildFetch(Circuit& c, const SequencerWires& s, const PromptFeatures& f) {
  const WireId sectionHeader = f.sectionHeader, codeHeader = f.codeHeader, goHeader = f.goHeader;
  const WireId setsAt = f.setsAt, isAt = f.isAt;
  const Bus& atField = f.atField;
  const Bus& chunk = f.chunk;

  // Layer 1: the section (in CODE; generating), the last AT, the token before, the chunks before.
  const Bus section = lastWritten(c, "section", s.machineToken, sectionHeader, {codeHeader, goHeader, f.constsHeader});
  const Bus at = lastWritten(c, "last at", s.machineToken, setsAt, atField);
  const Bus afterHeader = previousBits(c, "after code, consts", {codeHeader, f.constsHeader}, 1, s.machineToken);
  std::vector<Bus> before;
  for (uint32_t d = 1; d <= 3; ++d) before.push_back(previousBits(c, fmt::format("chunk(t-{})", d), chunk, d, s.machineToken));

  // A code word's last chunk is an entry; the words since the last AT (or the code size's
  // CHUNK-LAST) give its pc's low 4 bits, the AT its high ones. The same count gives a ROM
  // constant's index in the CONSTS section (after the constants' count).
  const WireId marker = c.step("item count mark", 2 * w(isAt) + w(s.chunkLast) + w(afterHeader[0]) + w(afterHeader[1]) - 2);
  const WireId entry = c.step("rom entry", w(section[0]) + w(s.chunkLast) - w(afterHeader[0]) - 2);
  // [k >= 2] .. [k >= 16]: k >= 1 holds at every entry (it counts itself), and 15 threshold
  // heads fit beside the sequencer's steps counter in one layer, where 16 would not.
  FetchWires out;
  out.items = c.countSince("items", marker, s.chunkLast, 15, 2);
  out.at = at;
  out.inConsts = section[2];
  out.afterConsts = afterHeader[1];
  Bus key{entry};
  const Bus pc = promptItemIndex(c, "rom key pc", entry, out, 10);
  key.insert(key.end(), pc.begin(), pc.end());
  Bus value;
  for (uint32_t i = 0; i < 64; ++i) {
    const uint32_t part = i / 16, bit = i % 16;  // chunk 0 (low) was three tokens back; chunk 3 is this one
    const Expr x = part == 3 ? w(chunk[bit]) : w(before[2 - part][bit]);
    value.push_back(gated(c, fmt::format("rom word[{}]", i), entry, x));
  }
  // The code size n (the CHUNK-LAST right after CODE), kept to tell a pc past the last word
  // (the implied pc after a warp's last step): pc < n is base + count < n, one threshold on
  // the count's thermometer bits, at the pc's own level.
  const Bus size = lastWritten(c, "code size", s.machineToken, w(afterHeader[0]) + w(s.chunkLast) - 1,
                               Bus(chunk.begin(), chunk.begin() + 11));
  Expr room(-1);  // n - base - count - 1
  for (uint32_t b = 0; b < 11; ++b) room += (int64_t{1} << b) * w(size[b]);
  for (uint32_t b = 0; b < 10; ++b) room -= (int64_t{1} << b) * w(s.pcBase[b]);
  for (WireId t : s.steps) room -= w(t);
  const WireId inCode = c.step("pc in code", room);
  // The query: while generating and in the code, 1 and the pc (10 bits: at most 1,024 words);
  // else 0, which every position that is no entry holds, with the word 0.
  const WireId running = c.step("generating", w(section[1]) - 1);
  Bus query{c.step("fetching", w(running) + w(inCode) - 2)};
  for (uint32_t b = 0; b < 10; ++b)  // one level: [generating, in the code and pc bit b]
    query.push_back(c.step(fmt::format("fetch pc[{}]", b), w(running) + w(inCode) + w(s.pc[b]) - 3));
  out.word = c.lookup("rom", key, query, value);
  out.generating = running;
  return out;
}

Bus promptItemIndex(Circuit& c, const std::string& name, WireId entry, const FetchWires& f, uint32_t bits) {
  Bus index;
  for (uint32_t b = 0; b < 4 && b < bits; ++b) {  // bit b of k - 1: +-[k >= m + 1] over the multiples m of 2^b
    Expr bit(0);
    for (uint32_t m = 1u << b; m <= 15; m += 1u << b) bit += ((m >> b) & 1 ? 1 : -1) * w(f.items[m - 1]);
    index.push_back(gated(c, fmt::format("{}[{}]", name, b), entry, bit));
  }
  for (uint32_t b = 4; b < bits; ++b) index.push_back(gated(c, fmt::format("{}[{}]", name, b), entry, w(f.at[b - 4])));
  return index;
}

Unit fetchUnit() {
  Unit u{Circuit("fetch"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const SequencerWires s = buildSequencer(c);
  const Bus word = buildFetch(c, s, declarePromptFeatures(c)).word;
  LaneBuses lb = outputSequencer(c, s);
  c.outputBus("word", word);
  lb.results.push_back(word);
  u.lanes.push_back(std::move(lb));
  return u;
}

std::vector<int64_t> fetchInputs(uint32_t id, uint32_t fullWarps, uint32_t tailMask) {
  std::vector<int64_t> in = sequencerInputs(id, fullWarps, tailMask);
  appendPromptFeatures(in, id);
  return in;
}

void appendPromptFeatures(std::vector<int64_t>& in, uint32_t id) {
  using namespace machine;
  auto bit = [&](bool b) { in.push_back(b ? 1 : 0); };
  auto bits = [&](uint64_t v, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) in.push_back(static_cast<int64_t>((v >> i) & 1));
  };
  bool header = false;
  for (Ctl h : {Ctl::Prompt, Ctl::Code, Ctl::Consts, Ctl::Launch, Ctl::Segment, Ctl::ZeroSegment, Ctl::Go})
    header = header || id == ctl(h);
  const bool isAt = id >= kAt && id < kActive;
  bit(header);
  bit(id == ctl(Ctl::Code));
  bit(id == ctl(Ctl::Go));
  bit(id == ctl(Ctl::Consts));
  bit(header || isAt);
  bit(isAt);
  bits(isAt ? id - kAt : 0, kAtFieldBits);
  bits(id >= kChunkMore && id < kPack4 ? (id - kChunkMore) & 0xffff : 0, 16);
  bit(id == ctl(Ctl::Segment));
  bit(id >= kChunkMore && id < kChunkLast);
}

}  // namespace qgpu::compiler
