// The write-form decision (write_form.h): machine::encodeWrite's choice as thresholds.
//
//   from the values: each lane's sign-extension ranges (its chunk count, that of v >> 16),
//     small (bits 4..63 zero) and low-zero (bits 0..15) tests, 8-bit piece compares of every
//     pair of lanes (uniform); from the lanes: the first active lane and the pair of the
//     first two (AFFINE's cases: at most two lanes apart, docs/machine.md §3.3)
//   AFFINE: the differences of lanes 1-0, 2-0, 2-1, 3-1, 3-2 (adders straight from the
//     values, in parallel); the stride (the pair's difference or its half); base = x -
//     l0·stride (x: the first written lane's value); each later written lane's difference
//     to the lane before it (or two before) against the stride (or twice it), piece by
//     piece, the pieces above the width folded into the same threshold
//   the five forms' costs (linear in the chunk counts), pairwise compares, the choice
//
// Values come cut to the width (the units cut their results), so "bits 4..63 zero" is
// "below 16" at every width and only the sign-extension ranges need the width.
#include "qgpu/compiler/write_form.h"

#include <fmt/format.h>

#include <array>

#include "qgpu/compiler/commit.h"
#include "qgpu/compiler/error.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {
namespace {

constexpr uint32_t kLanes = 4;
constexpr uint32_t kForms = 5;  // machine::WriteForm order
enum Form { kUniform, kPack4, kAffine, kLanesHigh, kLanesForm };

Expr rangeSum(const std::vector<Expr>& v, uint32_t lo, uint32_t hi) {
  Expr e;
  for (uint32_t i = lo; i <= hi; ++i) e += v[i];
  return e;
}

// A value's chunk tokens (machine::valueTokens' count) from its sign-extension ranges, the
// width folded into each test: 1 + [w = 4 and bits 15..31 not all equal] + [w = 8 and ...]
// for 15..63, 31..63, 47..63 (nested: equal on 15..63 implies equal on 31..63). The count
// of v >> 16 (LANES-HIGH, width w - 2 bytes) reuses the last two ranges.
struct ChunkCounts {
  Expr chunks, high;
};
ChunkCounts chunkCounts(Circuit& c, const std::string& name, const std::vector<Expr>& v, const Bus& width) {
  constexpr int64_t M = 64;  // beyond any range's bit count: a closed width wins
  auto equal = [&](uint32_t lo, uint32_t hi, WireId enable) {  // [enable and bits lo..hi all 0 or all 1]
    const Expr s = rangeSum(v, lo, hi);
    const int64_t n = hi - lo + 1;
    return w(c.step(fmt::format("{} bits {}..{} zero", name, lo, hi), M * (w(enable) - 1) - s)) +
           w(c.step(fmt::format("{} bits {}..{} one", name, lo, hi), M * (w(enable) - 1) + s - n));
  };
  const Expr e4 = equal(15, 31, width[2]);
  const Expr e15 = equal(15, 63, width[3]), e31 = equal(31, 63, width[3]), e47 = equal(47, 63, width[3]);
  return {1 + w(width[2]) - e4 + 3 * w(width[3]) - e15 - e31 - e47, 1 + 2 * w(width[3]) - e31 - e47};
}

// [the lanes `when` (forms of bits) all 1 and a != b below the width], one threshold over
// 8-bit piece compares in which the pieces at or above the width always agree.
Expr differs(Circuit& c, const std::string& name, const std::vector<Expr>& when, const std::vector<Expr>& a,
             const std::vector<Expr>& b, const Bus& width) {
  Expr agree;
  for (uint32_t p = 0; p < 8; ++p) {
    Expr d;
    for (uint32_t j = 0; j < 8; ++j) d += (int64_t{1} << j) * (a[8 * p + j] - b[8 * p + j]);
    const Expr above = 1 - widthHoldsBit(width, 8 * p);
    agree += w(c.step(fmt::format("{} piece {} >=", name, p), d + 256 * above)) +
             w(c.step(fmt::format("{} piece {} <=", name, p), -d + 256 * above));
  }
  Expr all = -static_cast<int64_t>(when.size());
  for (const Expr& e : when) all += e;
  return w(c.step(name, 16 * all + 15 - agree));
}

// The unit inputs, in writeFormInputs' order: each lane's value, the lanes written, the width.
WriteFormInputs declareWriteFormInputs(Circuit& c) {
  WriteFormInputs in;
  for (uint32_t l = 0; l < kLanes; ++l) in.value.push_back(c.inputBus(fmt::format("l{} value", l), 64));
  in.lanes = c.inputBus("lanes written", kLanes);
  in.width = c.inputBus("width", 4);
  return in;
}

}  // namespace

WriteFormWires buildWriteForm(Circuit& c, const WriteFormInputs& in) {
  if (in.value.size() != kLanes || in.lanes.size() != kLanes || in.width.size() != 4)
    throw CompileError("buildWriteForm: four lanes' values, four lane bits and a width one-hot are needed");
  const Bus& m = in.lanes;
  const Bus& W = in.width;
  WriteFormWires out;
  std::vector<std::vector<Expr>> v;
  for (const Bus& b : in.value) v.push_back(forms(b));

  // ---- per lane: chunk counts, small, low-zero ----
  Expr badSmall, badLow;
  for (uint32_t l = 0; l < kLanes; ++l) {
    const ChunkCounts cc = chunkCounts(c, fmt::format("l{}", l), v[l], W);
    out.chunks.push_back(cc.chunks);
    out.highChunks.push_back(cc.high);
    const WireId small = c.step(fmt::format("l{} below 16", l), -rangeSum(v[l], 4, 63));
    const WireId low = c.step(fmt::format("l{} low half zero", l), -rangeSum(v[l], 0, 15));
    badSmall += w(c.step(fmt::format("l{} written, not below 16", l), w(m[l]) - w(small) - 1));
    badLow += w(c.step(fmt::format("l{} written, low half not zero", l), w(m[l]) - w(low) - 1));
  }
  const WireId allSmall = c.step("every written value below 16", -badSmall);
  const WireId allLow = c.step("every written low half zero, width >= 4", -badLow - (1 - w(W[2]) - w(W[3])));

  // ---- uniform: no pair of written lanes differs ----
  Expr badPairs;
  for (uint32_t l = 0; l < kLanes; ++l)
    for (uint32_t k = l + 1; k < kLanes; ++k)
      badPairs += differs(c, fmt::format("l{} l{} written, differ", l, k), {w(m[l]), w(m[k])}, v[l], v[k], W);
  const WireId uniform = c.step("every written lane equal", -badPairs);

  // ---- the lanes: the first written lane, and AFFINE's pair of the first two ----
  std::vector<WireId> first;
  for (uint32_t l = 0; l < kLanes; ++l) {
    Expr cond = w(m[l]) - 1;
    for (uint32_t k = 0; k < l; ++k) cond -= w(m[k]);
    first.push_back(c.step(fmt::format("first written lane {}", l), cond));
  }
  struct Pair {
    uint32_t l0, l1;
    WireId is;
  };
  std::vector<Pair> pairs;  // at most two lanes apart (machine::encodeWrite)
  for (auto [l0, l1] : {std::pair{0u, 1u}, {0u, 2u}, {1u, 2u}, {1u, 3u}, {2u, 3u}}) {
    Expr cond = w(m[l0]) + w(m[l1]) - 2;
    for (uint32_t k = 0; k < l1; ++k)
      if (k != l0) cond -= w(m[k]);
    pairs.push_back({l0, l1, c.step(fmt::format("first two written lanes {} {}", l0, l1), cond)});
  }
  auto pairIs = [&](uint32_t l0, uint32_t l1) {
    for (const Pair& p : pairs)
      if (p.l0 == l0 && p.l1 == l1) return w(p.is);
    throw CompileError("buildWriteForm: no such pair");
  };

  // ---- AFFINE: the lanes' differences, the stride, base, the later lanes' checks ----
  // Every difference a pair or a check needs comes straight from the values (adders in
  // parallel, not after a mux): the stride is v1 - v0, v2 - v1 or v3 - v2 (adjacent lanes)
  // or half of v2 - v0 or v3 - v1 (two apart), and a later written lane is on the line when
  // its difference to the lane before it (or two before, across an unwritten lane) is the
  // stride (or twice it), which needs no 3 x stride.
  std::vector<Expr> x(64);
  for (uint32_t i = 0; i < 64; ++i) {
    Expr xs;
    for (uint32_t l = 0; l < kLanes; ++l) xs += w(c.gate(fmt::format("x[{}] from l{}", i, l), first[l], v[l][i]));
    out.first.push_back(c.sum(fmt::format("x[{}]", i), xs));
    x[i] = w(out.first.back());
  }
  auto minus = [&](const std::string& name, const std::vector<Expr>& a, const std::vector<Expr>& b) {
    std::vector<Expr> nb;
    for (const Expr& e : b) nb.push_back(1 - e);
    return forms(addBuses(c, name, a, nb, 1));
  };
  const std::vector<Expr> e10 = minus("l1 - l0", v[1], v[0]), e20 = minus("l2 - l0", v[2], v[0]),
                          e21 = minus("l2 - l1", v[2], v[1]), e31 = minus("l3 - l1", v[3], v[1]),
                          e32 = minus("l3 - l2", v[3], v[2]);
  auto pairDiff = [&](uint32_t l0, uint32_t l1) -> const std::vector<Expr>& {
    return l0 == 0 ? (l1 == 1 ? e10 : e20) : l0 == 1 ? (l1 == 2 ? e21 : e31) : e32;
  };
  std::vector<Expr> stride(64), twice(64);
  for (uint32_t i = 0; i < 64; ++i) {
    Expr s;
    for (const Pair& p : pairs) {
      const bool half = p.l1 - p.l0 == 2;
      if (half && i == 63) continue;  // the half's top bit: bit 64 of the difference, 0
      const std::vector<Expr>& d = pairDiff(p.l0, p.l1);
      s += w(c.gate(fmt::format("stride[{}] for {} {}", i, p.l0, p.l1), p.is, half ? d[i + 1] : d[i]));
    }
    stride[i] = w(c.sum(fmt::format("stride[{}]", i), s));
  }
  for (uint32_t i = 0; i < 64; ++i) twice[i] = i == 0 ? Expr(0) : stride[i - 1];
  // base = x - l0 stride: l0 is the first written lane (1 or 2 where a pair exists).
  std::vector<Expr> offset(64);
  for (uint32_t i = 0; i < 64; ++i)
    offset[i] = w(c.sum(fmt::format("l0 stride[{}]", i),
                        w(c.gate(fmt::format("l0 stride[{}] l0=1", i), first[1], stride[i])) +
                            (i == 0 ? Expr(0) : w(c.gate(fmt::format("l0 stride[{}] l0=2", i), first[2], stride[i - 1])))));
  const std::vector<Expr> base = minus("base", x, offset);
  const Expr bad =
      differs(c, "lane 2 off the line after 0, 1", {pairIs(0, 1), w(m[2])}, e21, stride, W) +
      differs(c, "lane 3 off the line after 0, 1, 2", {pairIs(0, 1), w(m[2]), w(m[3])}, e32, stride, W) +
      differs(c, "lane 3 off the line after 0, 1", {pairIs(0, 1), 1 - w(m[2]), w(m[3])}, e31, twice, W) +
      differs(c, "lane 3 off the line after 0, 2 or 1, 2", {pairIs(0, 2) + pairIs(1, 2), w(m[3])}, e32, stride, W) +
      w(c.step("odd difference, lanes 0 and 2", pairIs(0, 2) + e20[0] - 2)) +
      w(c.step("odd difference, lanes 1 and 3", pairIs(1, 3) + e31[0] - 2));
  Expr anyPair;
  for (const Pair& p : pairs) anyPair += w(p.is);
  const WireId affine = c.step("affine", anyPair - bad - 1);

  // ---- costs, the pairwise compares and the choice (ties to the earlier form) ----
  const ChunkCounts xc = chunkCounts(c, "x", x, W), bc = chunkCounts(c, "base", base, W), sc = chunkCounts(c, "stride", stride, W);
  out.uniformChunks = xc.chunks;
  out.baseChunks = bc.chunks;
  out.strideChunks = sc.chunks;
  Expr lanesCost(1), highCost(1);
  {
    Expr lc, hc;
    for (uint32_t l = 0; l < kLanes; ++l) {
      out.writtenChunks.push_back(c.gate(fmt::format("l{} written: chunks", l), m[l], out.chunks[l]));
      out.writtenHighChunks.push_back(c.gate(fmt::format("l{} written: high chunks", l), m[l], out.highChunks[l]));
      lc += w(out.writtenChunks.back());
      hc += w(out.writtenHighChunks.back());
    }
    lanesCost += w(c.sum("LANES chunks", lc));
    highCost += w(c.sum("LANES-HIGH chunks", hc));
  }
  const Expr cost[kForms] = {xc.chunks, Expr(1), 1 + bc.chunks + sc.chunks, highCost, lanesCost};
  const Expr valid[kForms] = {w(uniform), w(allSmall), w(affine), w(allLow), Expr(1)};
  static const char* kNames[kForms] = {"uniform", "PACK4", "AFFINE", "LANES-HIGH", "LANES"};
  constexpr int64_t M = 32;  // beyond any cost difference (costs 1..17)
  for (uint32_t f = 0; f < kForms; ++f) {
    Expr wins = M * (valid[f] - 1) - int64_t{kForms - 1};
    for (uint32_t g = 0; g < kForms; ++g) {
      if (g == f) continue;
      // f beats g: g is not valid, or f costs less (than an earlier g) or no more (than a later g).
      wins += w(c.step(fmt::format("{} beats {}", kNames[f], kNames[g]),
                       cost[g] - cost[f] - (g < f ? 1 : 0) + M * (1 - valid[g])));
    }
    out.form.push_back(c.step(fmt::format("form {}", kNames[f]), wins));
  }
  Expr tokens;
  for (uint32_t f = 0; f < kForms; ++f) tokens += w(c.gate(fmt::format("tokens if {}", kNames[f]), out.form[f], cost[f]));
  out.tokens = c.sum("tokens", tokens);
  for (uint32_t i = 0; i < 64; ++i) {
    out.base.push_back(c.sum(fmt::format("base[{}]", i), base[i]));
    out.stride.push_back(c.sum(fmt::format("stride out[{}]", i), stride[i]));
  }
  return out;
}

WriteTokenWires buildWriteToken(Circuit& c, const WriteFormInputs& in, const WriteFormWires& wf, const Bus& k,
                                const InsteadOfWrite& other) {
  using machine::Ctl;
  if (k.size() != 16) throw CompileError("buildWriteToken: k needs its 16 thermometer bits");
  const Bus& m = in.lanes;
  Expr kv;
  for (WireId b : k) kv += w(b);
  Expr n;  // lanes written
  for (WireId b : m) n += w(b);
  constexpr int64_t M = 64;  // beyond k and any index: a closed form or an invalid source never hits
  // A token source at index `idx` of form `f` (valid: a form whose value is a bit): [k == idx]
  // as the difference of two thresholds [k >= idx] - [k >= idx + 1], both closed unless f and valid.
  auto hitAt = [&](const std::string& name, WireId f, const Expr& idx, const Expr& valid) {
    const Expr off = M * (w(f) - 1) - M * (1 - valid) - M * other.instead;
    return w(c.step(name + " k >= idx", kv - idx + off)) - w(c.step(name + " k > idx", kv - idx - 1 + off));
  };
  if (other.value.size() > 16) throw CompileError("buildWriteToken: more than 16 value bits instead of the write");
  Expr payload[16], more, lastChunk;
  for (size_t b = 0; b < other.value.size(); ++b) payload[b] += other.value[b];
  // A value's chunks from index `start`: chunk j is valid below `count` and the last at count - 1.
  // The lanes' values come cut to the width; AFFINE's base and stride are differences
  // modulo 2^64 and are cut here (widthHoldsBit).
  auto chunks = [&](const std::string& name, WireId f, const std::vector<Expr>& value, const Expr& start, const Expr& count,
                    bool cut = false) {
    for (uint32_t j = 0; j < 4; ++j) {
      const std::string nj = fmt::format("{} chunk {}", name, j);
      const WireId valid = c.step(nj + " exists", count - int64_t{j} - 1);
      const WireId notLast = c.step(nj + " is not the last", count - int64_t{j} - 2);
      const Expr hit = hitAt(nj, f, start + int64_t{j}, w(valid));
      for (uint32_t b = 0; b < 16 && 16 * j + b < value.size(); ++b)
        payload[b] += w(c.step(fmt::format("{} bit {}", nj, b),
                               cut ? value[16 * j + b] + hit + widthHoldsBit(in.width, 16 * j + b) - 3 : value[16 * j + b] + hit - 2));
      more += w(c.step(nj + " more", hit + w(notLast) - 2));
      lastChunk += w(c.step(nj + " last", hit + w(valid) - w(notLast) - 2));
    }
  };
  auto valueOf = [](const Bus& b, uint32_t from) {
    std::vector<Expr> out;
    for (uint32_t i = from; i < b.size(); ++i) out.push_back(w(b[i]));
    return out;
  };
  // uniform: the first written lane's value from index 0.
  chunks("uniform", wf.form[kUniform], valueOf(wf.first, 0), Expr(0), wf.uniformChunks);
  // PACK4: one token, lane l's nibble where written.
  const Expr pack = hitAt("PACK4", wf.form[kPack4], Expr(0), Expr(1));
  Expr prefixes[2];  // LANES-HIGH, LANES
  for (uint32_t l = 0; l < kLanes; ++l)
    for (uint32_t b = 0; b < 4; ++b)
      payload[4 * l + b] += w(c.step(fmt::format("PACK4 l{} bit {}", l, b), w(in.value[l][b]) + w(m[l]) + pack - 3));
  // AFFINE: the prefix, base from 1, stride after it.
  const Expr affine = hitAt("AFFINE", wf.form[kAffine], Expr(0), Expr(1));
  chunks("AFFINE base", wf.form[kAffine], valueOf(wf.base, 0), Expr(1), wf.baseChunks, true);
  chunks("AFFINE stride", wf.form[kAffine], valueOf(wf.stride, 0), 1 + wf.baseChunks, wf.strideChunks, true);
  // LANES-HIGH n and LANES n: the prefix (its id names n), then each written lane's chunks.
  for (const bool high : {true, false}) {
    const WireId f = wf.form[high ? kLanesHigh : kLanesForm];
    const std::string name = high ? "LANES-HIGH" : "LANES";
    const Expr prefix = hitAt(name, f, Expr(0), Expr(1));
    prefixes[high ? 0 : 1] = prefix;
    // The prefix's value n - 1 in two bits from the thresholds [prefix and n >= j]: bit 0 =
    // t2 - t3 + t4, bit 1 = t3 (a prefix is at index 0, where no chunk is: the payload's).
    Expr t[5];
    for (int64_t j = 2; j <= 4; ++j) t[j] = w(c.step(fmt::format("{} names {}+ lanes", name, j), 8 * (prefix - 1) + n - j));
    payload[0] += t[2] - t[3] + t[4];
    payload[1] += t[3];
    Expr start(1);
    for (uint32_t l = 0; l < kLanes; ++l) {
      const WireId count = high ? wf.writtenHighChunks[l] : wf.writtenChunks[l];
      chunks(fmt::format("{} l{}", name, l), f, valueOf(in.value[l], high ? 16 : 0), start, w(count));
      start += w(count);
    }
  }
  WriteTokenWires out;
  const Expr kinds[kWriteTokenKinds] = {more, lastChunk, pack, affine, prefixes[1], prefixes[0]};
  static const char* kKindNames[kWriteTokenKinds] = {"CHUNK-MORE", "CHUNK-LAST", "PACK4", "AFFINE", "LANES", "LANES-HIGH"};
  for (uint32_t j = 0; j < kWriteTokenKinds; ++j) out.kind.push_back(c.exclusiveOr(fmt::format("token is {}", kKindNames[j]), kinds[j]));
  for (uint32_t b = 0; b < 16; ++b) out.payload.push_back(c.exclusiveOr(fmt::format("token payload[{}]", b), payload[b]));
  out.last = c.sum("last token of the write",
                   w(c.step("k >= tokens - 1", kv - w(wf.tokens) + 1)) - w(c.step("k >= tokens", kv - w(wf.tokens))));
  return out;
}

uint32_t writeTokenId(uint32_t kind, uint32_t value) {
  using machine::Ctl;
  switch (kind) {
    case 0: return machine::kChunkMore + value;
    case 1: return machine::kChunkLast + value;
    case 2: return machine::kPack4 + value;
    case 3: return machine::ctl(Ctl::Affine);
    case 4: return machine::ctl(Ctl::Lanes, value);
    default: return machine::ctl(Ctl::LanesHigh, value);
  }
}

std::optional<WriteTokenSpelling> spellWriteToken(uint32_t id) {
  using machine::Ctl;
  if (id >= machine::kChunkMore && id < machine::kChunkLast) return WriteTokenSpelling{0, id - machine::kChunkMore};
  if (id >= machine::kChunkLast && id < machine::kPack4) return WriteTokenSpelling{1, id - machine::kChunkLast};
  if (id >= machine::kPack4 && id < machine::kTop) return WriteTokenSpelling{2, id - machine::kPack4};
  if (id == machine::ctl(Ctl::Affine)) return WriteTokenSpelling{3, 0};
  for (uint32_t n = 0; n < 4; ++n) {
    if (id == machine::ctl(Ctl::Lanes, n)) return WriteTokenSpelling{4, n};
    if (id == machine::ctl(Ctl::LanesHigh, n)) return WriteTokenSpelling{5, n};
  }
  return std::nullopt;
}

Unit writeTokenUnit() {
  Unit u{Circuit("write_token"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const WriteFormInputs in = declareWriteFormInputs(c);
  const Bus k = c.inputBus("k >=", 16);
  const WriteFormWires wf = buildWriteForm(c, in);
  const WriteTokenWires t = buildWriteToken(c, in, wf, k);
  c.outputBus("kind", t.kind);
  c.outputBus("payload", t.payload);
  c.output("last", t.last);
  LaneBuses lb;
  lb.operands = in.value;
  lb.results = {t.kind, t.payload, {t.last}};
  u.lanes.push_back(std::move(lb));
  return u;
}

std::vector<int64_t> writeTokenInputs(const std::array<uint64_t, 4>& values, uint32_t lanes, uint32_t bytes, uint32_t k) {
  std::vector<int64_t> in = writeFormInputs(values, lanes, bytes);
  for (uint32_t i = 1; i <= 16; ++i) in.push_back(k >= i ? 1 : 0);
  return in;
}

Unit writeFormUnit() {
  Unit u{Circuit("write_form"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const WriteFormInputs in = declareWriteFormInputs(c);
  const WriteFormWires wf = buildWriteForm(c, in);
  c.outputBus("form", wf.form);
  c.output("tokens", wf.tokens);
  // AFFINE's base and stride as its tokens spell them: cut to the width, 0 for another form.
  Bus base, stride;
  for (uint32_t i = 0; i < 64; ++i) {
    const Expr cond = w(wf.form[kAffine]) + widthHoldsBit(in.width, i) - 2;
    base.push_back(c.step(fmt::format("AFFINE base[{}]", i), cond, w(wf.base[i])));
    stride.push_back(c.step(fmt::format("AFFINE stride[{}]", i), cond, w(wf.stride[i])));
  }
  c.outputBus("base", base);
  c.outputBus("stride", stride);
  LaneBuses lb;
  lb.operands = in.value;
  lb.results = {wf.form, {wf.tokens}, base, stride};
  u.lanes.push_back(std::move(lb));
  return u;
}

std::vector<int64_t> writeFormInputs(const std::array<uint64_t, 4>& values, uint32_t lanes, uint32_t bytes) {
  std::vector<int64_t> in;
  for (uint64_t v : values)
    for (uint32_t i = 0; i < 64; ++i) in.push_back(static_cast<int64_t>((v >> i) & 1));
  for (uint32_t l = 0; l < kLanes; ++l) in.push_back((lanes >> l) & 1);
  for (uint32_t t = 0; t < 4; ++t) in.push_back(bytes == (1u << t) ? 1 : 0);
  return in;
}

}  // namespace qgpu::compiler
