// The machine step's pending write (docs/machine.md §5.2) on top of the sequencer: where a
// register write's last token is read (its commit position), every lane's value and the
// lanes it goes to, from the tokens alone — the data the register-file copies are written
// with, at a layer below their reads. Each value is assembled at its CHUNK-LAST from the
// conv window (a value is at most four chunks, the last one sign-extends) and kept in one of
// four last-write-wins slots by its index since the write's prefix; at the commit the form
// (uniform, PACK4, AFFINE, LANES, LANES-HIGH) routes the slots to the lanes. The lanes are
// the running entry's, or an ACTIVE token's when the guard turned some off: the guard is a
// register, which the copies cannot read back at the position they are written.
#include "qgpu/compiler/commit.h"

#include <fmt/format.h>

#include "qgpu/compiler/sequencer.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {

Unit commitUnit() {
  Unit u{Circuit("commit"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const SequencerWires s = buildSequencer(c);
  // The write's features, in commitInputs' order.
  const WireId isMore = c.inputBit("chunk more");
  const WireId isPack4 = c.inputBit("pack4");
  const WireId isActive = c.inputBit("active");
  const Bus formBits = {c.inputBit("affine"), c.inputBit("lanes"), c.inputBit("lanes high")};
  const Bus field = c.inputBus("write field", 16);  // a chunk's value, PACK4's nibbles, ACTIVE's lanes
  const Bus width = c.inputBus("write bytes", 4);   // one-hot: 1, 2, 4, 8 bytes
  const WireId one = s.machineToken;

  // The three tokens before (chunk value and whether it was a CHUNK-MORE), and whether the
  // token before ended a step: then this one is a new step's first.
  Bus withMore = field;
  withMore.push_back(isMore);
  std::vector<Bus> before;
  for (uint32_t d = 1; d <= 3; ++d) before.push_back(previousBits(c, fmt::format("chunk(t-{})", d), withMore, d, one));
  const WireId newStep = previousBits(c, "ended(t-1)", {s.ended}, 1, one)[0];

  // The form of this step's write: set by its prefix, cleared when a step starts without one
  // (a uniform write may follow a LANES step's last chunk directly).
  const Bus form = lastWritten(c, "form", one, c.step("form write", w(s.prefix) + w(newStep) - 1), formBits);

  // The lanes: an ACTIVE token's (kept from the step's first token on), else the running ones.
  Bus activeData;
  for (uint32_t l = 0; l < 4; ++l) activeData.push_back(c.step(fmt::format("active lane {}", l), w(isActive) + w(field[l]) - 2));
  activeData.push_back(isActive);
  const Bus active = lastWritten(c, "active", one, c.step("active write", w(isActive) + w(newStep) - 1), activeData);
  Bus lanes;
  for (uint32_t l = 0; l < 4; ++l)
    lanes.push_back(c.step(fmt::format("lane {} written", l), 2 * w(active[l]) + w(s.mask[l]) - w(active[4]) - 1));

  // At a CHUNK-LAST: the value, from its chunk count m (the MOREs just before it), sign-
  // extended (chunk q is the token m - 1 - q back; above the last chunk, its sign), shifted
  // up 16 bits in a LANES-HIGH write, and cut to the write's width — one control per (m,
  // shift, width class), so every bit's terms are gates of one level summed into one
  // channel. Zero at any other token (a PACK4 writes zeros into the lane slots).
  const WireId m1 = before[0][16], m2 = before[1][16], m3 = before[2][16];
  const Expr chunkCond[4] = {-w(m1), w(m1) - w(m2) - 1, w(m1) + w(m2) - w(m3) - 2, w(m1) + w(m2) + w(m3) - 3};
  // Bit b is kept by a write of width class widthClass(b) (1, 2, 4, 8 bytes) and wider.
  auto widthClass = [](uint32_t b) { return b < 8 ? 0u : b < 16 ? 1u : b < 32 ? 2u : 3u; };
  WireId ctl[4][2][4];
  for (uint32_t m = 0; m < 4; ++m)
    for (uint32_t h = 0; h < 2; ++h)
      for (uint32_t k = 0; k < 4; ++k) {
        Expr fits(0);
        for (uint32_t j = k; j < 4; ++j) fits += w(width[j]);
        ctl[m][h][k] = andStep(c, fmt::format("value of {} chunks{}, width class {}", m + 1, h ? " high" : "", k),
                               {w(s.chunkLast), h ? w(form[2]) : 1 - w(form[2]), fits}, chunkCond[m], 0);
      }
  Bus value;
  for (uint32_t b = 0; b < 64; ++b) {
    Expr x(0);
    for (uint32_t m = 1; m <= 4; ++m)
      for (uint32_t h = 0; h < 2; ++h) {
        if (h && b < 16) continue;
        const uint32_t at = h ? b - 16 : b, q = at / 16, j = at % 16;
        const WireId src = q + 1 > m ? field[15] : q + 1 == m ? field[j] : before[m - 2 - q][j];
        x += w(c.gate(fmt::format("value[{}] if {} chunks{}", b, m, h ? " high" : ""), ctl[m - 1][h][widthClass(b)], w(src)));
      }
    value.push_back(c.step(fmt::format("value[{}]", b), w(c.sum(fmt::format("value[{}] terms", b), x)) - 1));
  }

  // Its index: the CHUNK-LASTs since the prefix, this one included, minus one (v[i] =
  // [count >= i + 1], so v[0] is 1 at every CHUNK-LAST).
  const Bus& v = s.values;
  const Expr index = w(v[1]) + w(v[2]) + w(v[3]);
  // The lane slots, last write wins: a value goes to every lane (a uniform write, an AFFINE
  // base), or to the lane whose rank among the write's lanes is its index (LANES,
  // LANES-HIGH); a PACK4 clears them all. An AFFINE stride goes to a slot of its own.
  const Expr lanesForm = w(form[1]) + w(form[2]);
  const WireId toAll = c.step("value to every lane", 1 - 2 * lanesForm - w(form[0]) - w(v[1]));
  std::vector<Bus> slots;
  for (uint32_t l = 0; l < 4; ++l) {
    Expr below(0);
    for (uint32_t k = 0; k < l; ++k) below += w(lanes[k]);
    const WireId ge = c.step(fmt::format("lane {} rank >= index", l), below - index);
    const WireId le = c.step(fmt::format("lane {} rank <= index", l), index - below);
    const WireId ranked = andStep(c, fmt::format("value to lane {} by rank", l), {lanesForm, w(lanes[l]), w(ge), w(le)});
    const WireId write = c.step(fmt::format("lane {} slot write", l), w(s.chunkLast) + w(toAll) + w(ranked) - 2 + 2 * w(isPack4));
    slots.push_back(lastWritten(c, fmt::format("lane {} value", l), one, write, value));
  }
  const WireId strideWrite = c.step("stride write", w(s.chunkLast) + w(form[0]) + w(v[1]) - w(v[2]) - 3);
  const Bus stride = lastWritten(c, "stride", one, strideWrite, value);

  // The commit: a step's end at a value token.
  const WireId commit = c.step("commit", w(s.ended) + w(s.chunkLast) + w(isPack4) - 2);
  Bus written;
  for (uint32_t l = 0; l < 4; ++l) written.push_back(c.step(fmt::format("commit lane {}", l), w(commit) + w(lanes[l]) - 2));

  // AFFINE: lane l is base + l * stride modulo 2^64, cut to the width; lane 0's slot holds the base.
  std::vector<Expr> base, strideX, stride2;
  for (uint32_t b = 0; b < 64; ++b) {
    base.push_back(w(slots[0][b]));
    strideX.push_back(w(stride[b]));
    stride2.push_back(b == 0 ? Expr(0) : w(stride[b - 1]));
  }
  std::vector<Bus> affine(4);
  affine[1] = addBuses(c, "base+stride", base, strideX, 0);
  affine[2] = addBuses(c, "base+2stride", base, stride2, 0);
  std::vector<Expr> plus1;
  for (WireId x : affine[1]) plus1.push_back(w(x));
  affine[3] = addBuses(c, "base+3stride", plus1, stride2, 0);
  WireId affineFits[4];
  for (uint32_t k = 0; k < 4; ++k) {
    Expr fits(0);
    for (uint32_t j = k; j < 4; ++j) fits += w(width[j]);
    affineFits[k] = andStep(c, fmt::format("affine, width class {}", k), {w(form[0]), fits});
  }

  // Each lane's value: its slot, but an AFFINE lane's sum and a PACK4's nibble (whose slots are 0).
  std::vector<Bus> values;
  for (uint32_t l = 0; l < 4; ++l) {
    Bus out;
    for (uint32_t b = 0; b < 64; ++b) {
      Expr x = w(slots[l][b]);
      if (l > 0)
        x += w(c.gate(fmt::format("l{}[{}] affine", l, b), affineFits[widthClass(b)], w(affine[l][b]) - w(slots[l][b])));
      if (b < 4) x += w(c.gate(fmt::format("l{}[{}] pack4", l, b), isPack4, w(field[4 * l + b])));
      out.push_back(c.sum(fmt::format("l{}[{}]", l, b), x));
    }
    values.push_back(std::move(out));
  }
  c.output("commit", commit);
  c.outputBus("lanes", written);
  for (uint32_t l = 0; l < 4; ++l) c.outputBus(fmt::format("l{}.value", l), values[l]);
  LaneBuses lb;
  lb.results = {{commit}, written, values[0], values[1], values[2], values[3]};
  u.lanes.push_back(std::move(lb));
  return u;
}

std::vector<int64_t> commitInputs(uint32_t id, uint32_t fullWarps, uint32_t tailMask, uint32_t writeBytes) {
  using namespace machine;
  std::vector<int64_t> in = sequencerInputs(id, fullWarps, tailMask);
  auto bit = [&](bool b) { in.push_back(b ? 1 : 0); };
  const bool chunk = id >= kChunkMore && id < kPack4, pack4 = id >= kPack4 && id < kTop;
  const bool active = id >= kActive && id < kTextVocab + kNumMachineIds;
  bit(id >= kChunkMore && id < kChunkLast);
  bit(pack4);
  bit(active);
  bit(id == ctl(Ctl::Affine));
  bit(id >= ctl(Ctl::Lanes) && id < ctl(Ctl::Lanes, 4));
  bit(id >= ctl(Ctl::LanesHigh) && id < ctl(Ctl::LanesHigh, 4));
  const uint32_t field = chunk ? (id - kChunkMore) & 0xffff : pack4 ? id - kPack4 : active ? id - kActive : 0;
  for (uint32_t i = 0; i < 16; ++i) bit((field >> i) & 1);
  for (uint32_t bytes : {1u, 2u, 4u, 8u}) bit(writeBytes == bytes);
  return in;
}

}  // namespace qgpu::compiler
