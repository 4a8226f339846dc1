// The integer adder (machine ADD, SUB and the address adds): a carry-select design in
// two MLP levels over 12-bit chunks.
#include <fmt/format.h>

#include "qgpu/compiler/error.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {
namespace {
// 12-bit chunks keep every carry threshold's pre-activation (128 * 2^13) far below 2^24.
constexpr size_t kChunk = 12;
}  // namespace

Bus addBuses(Circuit& c, const std::string& name, const std::vector<Expr>& a, const std::vector<Expr>& b, int carryIn,
             bool carryOut) {
  return addBuses(c, name, a, b, Expr(carryIn), carryOut);
}

Bus addBuses(Circuit& c, const std::string& name, const std::vector<Expr>& a, const std::vector<Expr>& b,
             const Expr& carryIn, bool carryOut) {
  if (a.size() != b.size() || a.empty()) throw CompileError(fmt::format("{}: adder operands differ in width", name));
  const size_t n = a.size(), chunks = (n + kChunk - 1) / kChunk;
  // Level 1: within each chunk, the carry into bit j for a chunk carry-in of 0 (c0) and
  // of 1 (c1): [sum of the lower bit pairs + cin >= 2^j]. j = chunk width is the carry-out
  // (generate c0 and propagate c1).
  std::vector<std::vector<Expr>> carry(chunks);  // carry[m][j]: the real carry into bit j of chunk m
  std::vector<std::vector<WireId>> c0(chunks), c1(chunks);
  // c0 + c1 of each bit: level 2 reads only that sum beyond chunk 0, and the two steps are a
  // chain (unit steps on one form): one channel for both.
  std::vector<std::vector<Expr>> pair(chunks);
  for (size_t m = 0; m < chunks; ++m) {
    const size_t lo = m * kChunk, width = std::min(kChunk, n - lo);
    Expr low;  // sum over i < j of (a_i + b_i) 2^i
    for (size_t j = 0; j <= width; ++j) {
      if (j > 0) {
        const int64_t weight = int64_t{1} << (j - 1);
        low += weight * (a[lo + j - 1] + b[lo + j - 1]);
        const int64_t threshold = int64_t{1} << j;
        c0[m].push_back(c.step(fmt::format("{}.c0[{}]", name, lo + j), low - threshold));
        c1[m].push_back(c.step(fmt::format("{}.c1[{}]", name, lo + j), low + 1 - threshold));
        pair[m].push_back(m == 0 ? Expr() : w(c.sum(fmt::format("{}.c01[{}]", name, lo + j), w(c0[m].back()) + w(c1[m].back()))));
      }
    }
  }
  // Chunk 0's carries are final: for a constant carry-in its c0 or c1 (the other is dead),
  // else [low + cin >= 2^j] with the carry-in in the threshold.
  carry[0].push_back(carryIn);
  if (carryIn.terms.empty()) {
    for (WireId k : carryIn.constant ? c1[0] : c0[0]) carry[0].push_back(w(k));
  } else {
    Expr low;
    for (size_t j = 1; j <= std::min(kChunk, n); ++j) {
      low += (int64_t{1} << (j - 1)) * (a[j - 1] + b[j - 1]);
      carry[0].push_back(w(c.step(fmt::format("{}.c[{}]", name, j), low + carryIn - (int64_t{1} << j))));
    }
  }
  // Level 2: the carry into chunk m is [V_m >= 2^(m-1)] with V_m = C_1 + sum_{1<=k<m}
  // (gen_k + prop_k) 2^(k-1), C_1 chunk 0's carry-out; a bit carry of chunk m merges its
  // c0/c1 with that threshold: [V_m + 2^m (c0 + c1 - 1) >= 2^(m-1)].
  for (size_t m = 1; m < chunks; ++m) {
    Expr v = carry[0].back();
    for (size_t k = 1; k < m; ++k) v += (int64_t{1} << (k - 1)) * pair[k].back();  // gen_k + prop_k
    const int64_t M = int64_t{1} << m, T = int64_t{1} << (m - 1);
    carry[m].push_back(w(c.step(fmt::format("{}.cin[{}]", name, m * kChunk), v - T)));
    for (size_t j = 0; j < c0[m].size(); ++j) {
      WireId k = c.step(fmt::format("{}.carry[{}]", name, m * kChunk + j + 1), v + M * (pair[m][j] - 1) - T);
      carry[m].push_back(w(k));
    }
  }
  // Sum bits: s_j = a_j + b_j + carry_j - 2 carry_{j+1}, linear in what is known.
  Bus out;
  for (size_t m = 0; m < chunks; ++m) {
    const size_t lo = m * kChunk, width = std::min(kChunk, n - lo);
    for (size_t j = 0; j < width; ++j)
      out.push_back(c.sum(fmt::format("{}.s[{}]", name, lo + j), a[lo + j] + b[lo + j] + carry[m][j] - 2 * carry[m][j + 1]));
  }
  if (carryOut) out.push_back(c.sum(name + ".cout", carry[chunks - 1].back()));
  return out;
}

AddSubCarries addSubCarries(Circuit& c, const std::string& name, const std::vector<Expr>& a, const std::vector<Expr>& b,
                            WireId sub, std::optional<WireId> firstLevelAt, std::optional<WireId> carryIn) {
  if (a.size() != b.size() || a.empty()) throw CompileError(fmt::format("{}: adder operands differ in width", name));
  const size_t n = a.size();
  // The chunks: (first bit, width).
  std::vector<std::pair<size_t, size_t>> chunk;
  for (size_t lo = 0; lo < n; lo += kChunk) chunk.push_back({lo, std::min(kChunk, n - lo)});
  const size_t chunks = chunk.size();
  if (chunks == 1) throw CompileError(fmt::format("{}: addSubCarries wants more than one chunk", name));
  const Expr isSub = w(sub), isAdd = 1 - w(sub);
  // Level 1, per chunk and bit j: [low + cin >= 2^j] for both carry-ins, where low is the
  // lower bits' sum of a and b (ADD) or of a and ~b, a - b + 2^j - 1 (SUB). The four steps of a
  // bit (two per op, the other op's silenced) are written into one channel: for chunk 0 with
  // the real carry-in (0 for ADD, 1 for SUB) the carry itself; beyond, and for every chunk
  // where the carry-in is a bit of its own, c0 + c1 of the op.
  std::vector<std::vector<Expr>> carry(chunks), pair(chunks);
  for (size_t m = 0; m < chunks; ++m) {
    const auto [lo, width] = chunk[m];
    Expr lowA, lowB;
    for (size_t j = 1; j <= width; ++j) {
      const int64_t weight = int64_t{1} << (j - 1), threshold = int64_t{1} << j;
      lowA += weight * a[lo + j - 1];
      lowB += weight * b[lo + j - 1];
      const Expr added = lowA + lowB, subtracted = lowA - lowB + (threshold - 1);
      // The silencing weight: low + cin - 2^j is at most 2^j - 1, so 2^j outweighs it; no more,
      // as the proof bounds these channels (four steps, not one chain) by their pre-activations.
      const int64_t M = threshold;
      auto both = [&](const char* what, int64_t cin, bool subCase) {
        const Expr& low = subCase ? subtracted : added;
        const WireId k = c.step(fmt::format("{}.{}{}[{}]", name, subCase ? "sub" : "add", what, lo + j),
                                low + cin - threshold - M * (subCase ? isAdd : isSub));
        if (firstLevelAt) c.notBefore(k, *firstLevelAt);
        return w(k);
      };
      if (m == 0 && !carryIn) {
        carry[0].push_back(w(c.channel(fmt::format("{}.c[{}]", name, j), both("c0", 0, false) + both("c1", 1, true))));
      } else {
        const Expr p = both("c0", 0, false) + both("c1", 1, false) + both("c0", 0, true) + both("c1", 1, true);
        pair[m].push_back(w(c.channel(fmt::format("{}.c01[{}]", name, lo + j), p)));
      }
    }
  }
  WireId last = 0;
  if (carryIn) {
    // Level 2: every carry a threshold over the chunks' digits pair - 1 (kill -1, propagate
    // 0, generate +1) weighted 2, 4, 8 … above the carry-in's cin - 1 (weight 1).
    // Chunk 0's own carries are left to the reader, [pair + cin >= 2] at its level
    // (AddSubCarries::lowPairs): as wires here they would each be a channel more at this level.
    const Expr cin = w(*carryIn);
    carry[0] = {cin};
    for (size_t m = 1; m < chunks; ++m) {
      Expr u = cin - 1;
      for (size_t k = 0; k < m; ++k) u += (int64_t{2} << k) * (pair[k].back() - 1);
      const int64_t Mm = int64_t{2} << m;  // beyond |u| <= 2^(m+1) - 1
      last = c.step(fmt::format("{}.cin[{}]", name, chunk[m].first), u);
      carry[m].push_back(w(last));
      for (size_t j = 0; j < pair[m].size(); ++j) {
        last = c.step(fmt::format("{}.carry[{}]", name, chunk[m].first + j + 1), u + Mm * (pair[m][j] - 1));
        carry[m].push_back(w(last));
      }
    }
  } else {
    carry[0].insert(carry[0].begin(), isSub);
    // Level 2: addBuses' chunk carries over the generate/propagate digits (c0 + c1 of a chunk's
    // top bit), merged with the bit carries.
    for (size_t m = 1; m < chunks; ++m) {
      Expr v = carry[0].back();
      for (size_t k = 1; k < m; ++k) v += (int64_t{1} << (k - 1)) * pair[k].back();
      const int64_t Mm = int64_t{1} << m, T = int64_t{1} << (m - 1);
      last = c.step(fmt::format("{}.cin[{}]", name, chunk[m].first), v - T);
      carry[m].push_back(w(last));
      for (size_t j = 0; j < pair[m].size(); ++j) {
        last = c.step(fmt::format("{}.carry[{}]", name, chunk[m].first + j + 1), v + Mm * (pair[m][j] - 1) - T);
        carry[m].push_back(w(last));
      }
    }
  }
  AddSubCarries out;
  out.last = last;
  if (carryIn) {
    out.lowPairs = pair[0];
    carry[0].resize(chunk[0].second);  // carries into bits 1 .. 11: none (lowPairs)
  }
  for (size_t m = 0; m < chunks; ++m) {
    // carry[m] holds carries into bits lo..lo+width; the next chunk's first repeats the last.
    for (size_t j = 0; j < chunk[m].second; ++j) out.carry.push_back(carry[m][j]);
  }
  out.carry.push_back(carry[chunks - 1].back());
  return out;
}

Unit integerAddUnit(uint32_t bits, uint32_t lanes, bool subtract) {
  Unit u{Circuit(fmt::format("{}{}x{}", subtract ? "sub" : "add", bits, lanes)), {}, {}, {}, {}};
  for (uint32_t l = 0; l < lanes; ++l) {
    LaneBuses lb;
    lb.operands.push_back(u.circuit.inputBus(fmt::format("l{}.a", l), bits));
    lb.operands.push_back(u.circuit.inputBus(fmt::format("l{}.b", l), bits));
    std::vector<Expr> a, b;
    for (uint32_t i = 0; i < bits; ++i) {
      a.push_back(w(lb.operands[0][i]));
      b.push_back(subtract ? 1 - w(lb.operands[1][i]) : w(lb.operands[1][i]));  // a - b = a + ~b + 1
    }
    lb.results.push_back(addBuses(u.circuit, fmt::format("l{}", l), a, b, subtract ? 1 : 0));
    u.circuit.outputBus(fmt::format("l{}.d", l), lb.results[0]);
    u.lanes.push_back(std::move(lb));
  }
  return u;
}

}  // namespace qgpu::compiler
