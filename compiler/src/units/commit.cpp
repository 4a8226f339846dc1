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

#include <map>

#include "qgpu/compiler/schedule.h"
#include "qgpu/compiler/sequencer.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {

WriteFeatures declareWriteFeatures(Circuit& c) {
  WriteFeatures f;
  f.isMore = c.inputBit("chunk more");
  f.isPack4 = c.inputBit("pack4");
  f.isActive = c.inputBit("active");
  f.formBits = {c.inputBit("affine"), c.inputBit("lanes"), c.inputBit("lanes high")};
  f.field = c.inputBus("write field", 16);
  f.isWait = c.inputBit("wait");
  return f;
}

PendingWrite buildCommit(Circuit& c, const SequencerWires& s, const WriteFeatures& features, const Bus& width) {
  const WireId isMore = features.isMore, isPack4 = features.isPack4, isActive = features.isActive;
  const Bus& formBits = features.formBits;
  const Bus& field = features.field;
  const WireId one = s.machineToken;
  const WireId cl = s.chunkLast;

  // The three tokens before: chunk value, whether it was a CHUNK-MORE, whether an ACTIVE.
  Bus withFlags = field;
  withFlags.push_back(isMore);
  withFlags.push_back(isActive);
  std::vector<Bus> before;
  for (uint32_t d = 1; d <= 3; ++d) before.push_back(previousBits(c, fmt::format("token(t-{})", d), withFlags, d, one));
  const WireId prevActive = before[0][17];

  // Whether a CHUNK-LAST belongs to the last prefix's write: it is at most the n-th value
  // since that prefix (live >= 0). A uniform write may follow a LANES step's last value with
  // no prefix of its own: its value is the (n+1)-th. So the form and the lanes come from the
  // prefix and this count, both a layer or two deep, and not from "a step ended one token
  // ago", which a position learns only a layer after the step end (level 3) is known.
  const Bus& v = s.values;  // v[i] = [CHUNK-LASTs since the prefix >= i + 1], this one included
  Expr live(0);
  for (uint32_t j = 0; j < 4; ++j) live += static_cast<int64_t>(j + 1) * w(s.prefixCount[j]);
  for (WireId x : v) live -= w(x);
  constexpr int64_t kLiveMax = 4;
  auto liveAnd = [&](const std::string& name, const std::vector<Expr>& bits) { return andStep(c, name, bits, live, kLiveMax); };

  // The prefix's form, and whether its write is an ACTIVE one: ACTIVE stands right before the
  // write, so it is the prefix of a uniform write and the token before the form otherwise.
  const Bus formRaw = lastWritten(c, "form", one, s.prefix, formBits);
  const Expr anyForm = w(formBits[0]) + w(formBits[1]) + w(formBits[2]);
  const Expr anyFormRaw = w(formRaw[0]) + w(formRaw[1]) + w(formRaw[2]);
  const Bus activeWrite = lastWritten(c, "active write", one, s.prefix,
                                      {c.step("active write data", 2 * w(isActive) + w(prevActive) + anyForm - 2)});
  Bus activeLaneData;
  for (uint32_t l = 0; l < 4; ++l) {
    const WireId own = c.step(fmt::format("active lane {} (ACTIVE)", l), w(isActive) + w(field[l]) - 2);
    const WireId after = c.step(fmt::format("active lane {} (form after ACTIVE)", l), w(prevActive) + anyForm + w(before[0][l]) - 3);
    activeLaneData.push_back(c.step(fmt::format("active lane {}", l), w(own) + w(after) - 1));
  }
  const Bus activeLanes = lastWritten(c, "active lanes", one, s.prefix, activeLaneData);

  // At a CHUNK-LAST: its value, from its chunk count m (the MOREs just before it), sign-
  // extended to 64 bits (chunk q is the token m - 1 - q back; above the last chunk, its
  // sign); zero at any other token. The width's cut and LANES-HIGH's shift are applied where
  // the lanes are routed, so no slot waits for the form.
  const WireId m1 = before[0][16], m2 = before[1][16], m3 = before[2][16];
  const Expr chunkCond[4] = {-w(m1), w(m1) - w(m2) - 1, w(m1) + w(m2) - w(m3) - 2, w(m1) + w(m2) + w(m3) - 3};
  WireId ctl[4];
  for (uint32_t m = 0; m < 4; ++m) ctl[m] = andStep(c, fmt::format("value of {} chunks", m + 1), {w(cl)}, chunkCond[m], 0);
  Bus value;
  for (uint32_t b = 0; b < 64; ++b) {
    Expr x(0);
    for (uint32_t m = 1; m <= 4; ++m) {
      const uint32_t q = b / 16, j = b % 16;
      const WireId src = q + 1 > m ? field[15] : q + 1 == m ? field[j] : before[m - 2 - q][j];
      x += w(c.gate(fmt::format("value[{}] if {} chunks", b, m), ctl[m - 1], w(src)));
    }
    value.push_back(c.step(fmt::format("value[{}]", b), w(c.sum(fmt::format("value[{}] terms", b), x)) - 1));
  }

  // Four slots by index since the prefix, last write wins: slot i takes the write's i-th
  // value (index = count - 1); slot 0 also a value that is no prefix's (a uniform write).
  std::vector<Bus> slots;
  const int64_t M = kLiveMax + 2;
  slots.push_back(lastWritten(c, "value 0", one,
                              andStep(c, "value 0 write", {w(cl)}, -live - M * (w(v[1]) - 1) - 1), value));
  for (uint32_t i = 1; i < 4; ++i)
    slots.push_back(lastWritten(c, fmt::format("value {}", i), one,
                                liveAnd(fmt::format("value {} write", i), {w(cl), w(v[i]), 1 - w(v[i + 1])}), value));

  // The lanes: an ACTIVE write's, else the running ones. A PACK4 is its own prefix; an ACTIVE
  // before it is the token before.
  const WireId validValue = liveAnd("active write here", {w(cl), w(activeWrite[0])});
  const WireId validPack4 = andStep(c, "active pack4", {w(isPack4), w(prevActive)});
  const Expr valid = w(validValue) + w(validPack4);
  std::vector<Expr> activeHere;
  Bus lanes;
  for (uint32_t l = 0; l < 4; ++l) {
    const WireId a = liveAnd(fmt::format("active lane {} here", l), {w(cl), w(activeWrite[0]), w(activeLanes[l])});
    const WireId p = andStep(c, fmt::format("active pack4 lane {}", l), {w(isPack4), w(prevActive), w(before[0][l])});
    activeHere.push_back(w(a) + w(p));
    lanes.push_back(c.step(fmt::format("lane {} written", l), 2 * activeHere[l] + w(s.mask[l]) - valid - 1));
  }
  // [the lanes below l that are written >= i], from the same sources as the lanes (one level,
  // not one after them): the ACTIVE ones or the running ones.
  auto rankAtLeast = [&](uint32_t l, uint32_t i) {
    Expr act(0), run(0);
    for (uint32_t k = 0; k < l; ++k) {
      act += activeHere[k];
      run += w(s.mask[k]);
    }
    const WireId x = andStep(c, fmt::format("lane {} rank >= {} (ACTIVE)", l, i), {valid}, act - static_cast<int64_t>(i));
    const WireId y = andStep(c, fmt::format("lane {} rank >= {} (running)", l, i), {1 - valid}, run - static_cast<int64_t>(i));
    return w(x) + w(y);
  };

  // Bit b is kept by a write of width class widthClass(b) (1, 2, 4, 8 bytes) and wider. With
  // no width given the routes keep all 64 bits and the reader cuts them (one class).
  const bool cut = !width.empty();
  const uint32_t classes = cut ? 4 : 1;
  auto widthClass = [&](uint32_t b) { return cut ? widthClassOfBit(b) : 0u; };
  Expr fits[4];
  if (cut)
    for (uint32_t k = 0; k < 4; ++k)
      for (uint32_t j = k; j < 4; ++j) fits[k] += w(width[j]);
  auto fitting = [&](std::vector<Expr> bits, uint32_t k) {
    if (cut) bits.push_back(fits[k]);
    return bits;
  };
  // The routes, one control per (route, width class): uniform (no form, or a value past the
  // prefix's), AFFINE, and per lane and index LANES and LANES-HIGH.
  WireId uniformNoForm[4], uniformPast[4], affineSel[4];
  WireId lanesSel[2][4][4][4] = {};  // [high][lane][index][class]
  for (uint32_t k = 0; k < classes; ++k) {
    uniformNoForm[k] = andStep(c, fmt::format("uniform, width class {}", k), fitting({1 - w(isPack4), 1 - anyFormRaw}, k));
    uniformPast[k] = andStep(c, fmt::format("uniform past the prefix, width class {}", k),
                             fitting({1 - w(isPack4), anyFormRaw}, k), -live - 1);
    affineSel[k] = liveAnd(fmt::format("affine, width class {}", k), fitting({w(cl), w(formRaw[0])}, k));
  }
  for (uint32_t l = 0; l < 4; ++l) {
    std::vector<Expr> atLeast(l + 1);  // [rank >= i] for i = 1..l
    for (uint32_t i = 1; i <= l; ++i) atLeast[i] = rankAtLeast(l, i);
    for (uint32_t i = 0; i <= l; ++i) {
      std::vector<Expr> rank = {w(cl), w(lanes[l])};
      if (i > 0) rank.push_back(atLeast[i]);
      if (i < l) rank.push_back(1 - atLeast[i + 1]);
      for (uint32_t h = 0; h < 2; ++h)
        for (uint32_t k = 0; k < classes; ++k) {
          std::vector<Expr> bits = rank;
          bits.push_back(w(formRaw[1 + h]));
          lanesSel[h][l][i][k] =
              liveAnd(fmt::format("lane {} takes value {}{}, width class {}", l, i, h ? " high" : "", k), fitting(bits, k));
        }
    }
  }

  // AFFINE: lane l is base + l * stride modulo 2^64 (the base in slot 0, the stride in slot 1);
  // base + 3 stride through one carry-save level.
  std::vector<Expr> base, strideX, stride2;
  for (uint32_t b = 0; b < 64; ++b) {
    base.push_back(w(slots[0][b]));
    strideX.push_back(w(slots[1][b]));
    stride2.push_back(b == 0 ? Expr(0) : w(slots[1][b - 1]));
  }
  std::vector<Expr> csaSum, csaCarry = {Expr(0)};
  for (uint32_t b = 0; b < 64; ++b) {
    const Expr col = base[b] + strideX[b] + stride2[b];
    const WireId carry = c.step(fmt::format("base+3stride.csa carry[{}]", b), col - 2);
    csaSum.push_back(col - 2 * w(carry));
    if (b + 1 < 64) csaCarry.push_back(w(carry));  // worth bit b + 1 (bit 64 falls off)
  }
  std::vector<Bus> affine(4);
  affine[1] = addBuses(c, "base+stride", base, strideX, 0);
  affine[2] = addBuses(c, "base+2stride", base, stride2, 0);
  affine[3] = addBuses(c, "base+3stride", csaSum, csaCarry, 0);

  // The commit: a step's end at a value token; the lanes it writes.
  const WireId commit = c.step("commit", w(s.ended) + w(cl) + w(isPack4) - 2);
  Bus written;
  for (uint32_t l = 0; l < 4; ++l) written.push_back(c.step(fmt::format("commit lane {}", l), w(commit) + w(lanes[l]) - 2));

  // Each lane's value: the routes' gates (exclusive at a commit), summed per MLP level so
  // that each level's gates write one channel (a merged sum) instead of one channel each
  // waiting for the last level.
  std::vector<std::vector<std::vector<WireId>>> gates(4, std::vector<std::vector<WireId>>(64));
  for (uint32_t l = 0; l < 4; ++l)
    for (uint32_t b = 0; b < 64; ++b) {
      const uint32_t k = widthClass(b);
      auto g = [&](const std::string& what, WireId control, Expr x) {
        gates[l][b].push_back(c.gate(fmt::format("l{}[{}] {}", l, b, what), control, x));
      };
      g("uniform", uniformNoForm[k], w(slots[0][b]));
      g("uniform past", uniformPast[k], w(slots[0][b]));
      g("affine", affineSel[k], l == 0 ? w(slots[0][b]) : w(affine[l][b]));
      for (uint32_t i = 0; i <= l; ++i) {
        g(fmt::format("value {}", i), lanesSel[0][l][i][k], w(slots[i][b]));
        if (b >= 16) g(fmt::format("value {} high", i), lanesSel[1][l][i][k], w(slots[i][b - 16]));
      }
      if (b < 4) g("pack4", isPack4, w(field[4 * l + b]));
    }
  const Schedule levels = schedule(c);
  std::vector<Bus> values;
  for (uint32_t l = 0; l < 4; ++l) {
    Bus out;
    for (uint32_t b = 0; b < 64; ++b) {
      std::map<int, Expr> byLevel;
      for (WireId g : gates[l][b]) byLevel[levels.level[g]] += w(g);
      Expr x(0);
      for (const auto& [level, terms] : byLevel) x += w(c.sum(fmt::format("l{}[{}] level {}", l, b, level), terms));
      out.push_back(c.sum(fmt::format("l{}[{}]", l, b), x));
    }
    values.push_back(std::move(out));
  }
  return {commit, written, values, value};
}

Unit commitUnit() {
  Unit u{Circuit("commit"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const SequencerWires s = buildSequencer(c);
  // The write's features, in commitInputs' order.
  const WriteFeatures f = declareWriteFeatures(c);
  const Bus width = c.inputBus("write bytes", 4);  // one-hot: 1, 2, 4, 8 bytes
  const PendingWrite p = buildCommit(c, s, f, width);
  c.output("commit", p.commit);
  c.outputBus("lanes", p.lanes);
  for (uint32_t l = 0; l < 4; ++l) c.outputBus(fmt::format("l{}.value", l), p.values[l]);
  LaneBuses lb;
  lb.results = {{p.commit}, p.lanes, p.values[0], p.values[1], p.values[2], p.values[3]};
  u.lanes.push_back(std::move(lb));
  return u;
}

std::vector<int64_t> commitInputs(uint32_t id, uint32_t fullWarps, uint32_t tailMask, uint32_t writeBytes) {
  std::vector<int64_t> in = sequencerInputs(id, fullWarps, tailMask);
  appendWriteFeatures(in, id);
  for (uint32_t bytes : {1u, 2u, 4u, 8u}) in.push_back(writeBytes == bytes ? 1 : 0);
  return in;
}

void appendWriteFeatures(std::vector<int64_t>& in, uint32_t id) {
  using namespace machine;
  auto bit = [&](bool b) { in.push_back(b ? 1 : 0); };
  const bool chunk = id >= kChunkMore && id < kPack4, pack4 = id >= kPack4 && id < kTop;
  const bool active = isActiveToken(id);
  bit(id >= kChunkMore && id < kChunkLast);
  bit(pack4);
  bit(active);
  bit(id == ctl(Ctl::Affine));
  bit(id >= ctl(Ctl::Lanes) && id < ctl(Ctl::Lanes, 4));
  bit(id >= ctl(Ctl::LanesHigh) && id < ctl(Ctl::LanesHigh, 4));
  const uint32_t field = chunk ? (id - kChunkMore) & 0xffff : pack4 ? id - kPack4 : active ? id - kActive : 0;
  for (uint32_t i = 0; i < 16; ++i) bit((field >> i) & 1);
  bit(id == ctl(Ctl::Wait));
}

}  // namespace qgpu::compiler
