// Bit-level helpers shared by the unit circuits.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "qgpu/compiler/error.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

WireId bitAnd(Circuit& c, const std::string& name, WireId a, WireId b) { return c.step(name, w(a) + w(b) - 2); }
WireId bitOr(Circuit& c, const std::string& name, WireId a, WireId b) { return c.step(name, w(a) + w(b) - 1); }
WireId bitXor(Circuit& c, const std::string& name, WireId a, WireId b) {
  WireId both = bitAnd(c, name + ".and", a, b);
  return c.sum(name, w(a) + w(b) - 2 * w(both));
}

Expr bitsMatching(const Bus& bits, uint64_t value) {
  Expr e(0);
  for (size_t j = 0; j < bits.size(); ++j) e += (value >> j) & 1 ? w(bits[j]) : 1 - w(bits[j]);
  return e;
}

Expr chunkValue(const Bus& bits, uint32_t m) {
  Expr e(0);
  for (uint32_t j = 0; j < 8; ++j) e += (int64_t{1} << j) * w(bits.at(8 * m + j));
  return e;
}

Expr signedChunkValue(const Bus& bits, uint32_t m) { return chunkValue(bits, m) + 128 - 256 * w(bits.at(8 * m + 7)); }

Expr chunkDigit(Circuit& c, const std::string& name, const Expr& x, const Expr& y,
                const std::function<void(WireId)>& place) {
  const WireId greater = c.step(name + " >", x - y - 1);
  const WireId less = c.step(name + " <", y - x - 1);
  if (place) {
    place(greater);
    place(less);
  }
  return w(greater) - w(less);
}

std::vector<Expr> forms(const Bus& bus) {
  std::vector<Expr> out;
  for (WireId x : bus) out.push_back(w(x));
  return out;
}

PackedBits packBits(Circuit& c, const std::string& name, const std::vector<Expr>& bits, uint32_t perChannel) {
  if (perChannel == 0 || perChannel > 8) throw CompileError(fmt::format("packBits '{}': {} bits to a channel", name, perChannel));
  PackedBits p;
  for (size_t from = 0; from < bits.size(); from += perChannel) {
    const uint32_t n = static_cast<uint32_t>(std::min<size_t>(perChannel, bits.size() - from));
    Expr x;
    for (uint32_t i = 0; i < n; ++i) x += (int64_t{1} << i) * bits[from + i];
    p.channels.push_back(c.channel(fmt::format("{} packed[{}]", name, p.channels.size()), x));
    p.widths.push_back(n);
  }
  return p;
}

PackedBits accumulatePacked(Circuit& c, const std::string& name, const PackedBits* prev, const std::vector<Expr>& bits,
                            uint32_t perChannel) {
  if (perChannel == 0 || perChannel > 8) throw CompileError(fmt::format("accumulatePacked '{}': {} bits to a channel", name, perChannel));
  PackedBits p;
  for (size_t from = 0; from < bits.size(); from += perChannel) {
    const size_t k = p.channels.size();
    const uint32_t n = static_cast<uint32_t>(std::min<size_t>(perChannel, bits.size() - from));
    if (prev && (k >= prev->channels.size() || prev->widths[k] != n))
      throw CompileError(fmt::format("accumulatePacked '{}': channel {} differs from the previous accumulator's", name, k));
    Expr x = prev ? w(prev->channels[k]) : Expr(0);
    for (uint32_t i = 0; i < n; ++i) x += (int64_t{1} << i) * bits[from + i];
    p.channels.push_back(c.exclusiveSum(fmt::format("{} packed[{}]", name, k), x, {0, (int64_t{1} << n) - 1}));
    p.widths.push_back(n);
  }
  return p;
}

std::vector<Expr> unpackBits(Circuit& c, const std::string& name, const PackedBits& p, WireId at, uint32_t levelsAfter) {
  std::vector<Expr> bits;
  for (size_t k = 0; k < p.channels.size(); ++k) {
    const uint32_t n = p.widths[k];
    std::vector<Expr> out(n, Expr(0));
    for (uint32_t j = 1; j < (1u << n); ++j) {
      const WireId t = c.step(fmt::format("{} packed[{}] >= {}", name, k, j), w(p.channels[k]) - static_cast<int64_t>(j));
      c.notBefore(t, at, levelsAfter);
      // bit i of x = sum over j <= x of (bit i of j - bit i of j - 1): +1 where j sets it, -1 where j clears it.
      for (uint32_t i = 0; i < n; ++i) {
        const int64_t flip = static_cast<int64_t>((j >> i) & 1) - static_cast<int64_t>(((j - 1) >> i) & 1);
        if (flip != 0) out[i] += flip * w(t);
      }
    }
    for (Expr& e : out) bits.push_back(std::move(e));
  }
  return bits;
}

WireId andStep(Circuit& c, const std::string& name, const std::vector<Expr>& bits, Expr L, std::optional<int64_t> lMax) {
  const int64_t M = std::max<int64_t>((lMax ? *lMax : c.rangeOf(L).hi) + 1, 1);  // one zero bit outweighs L
  Expr cond = L;
  for (const Expr& b : bits) cond += M * (b - 1);
  return c.step(name, cond);
}

Expr negationBit(Circuit& c, const std::string& name, const Expr& bit, const Expr& below, bool hasBelow, const Expr& guard,
                 int64_t M) {
  Expr e = w(c.step(name + ", set, none below", M * bit - below - M + guard));
  if (hasBelow) e += w(c.step(name + ", clear, some below", below - M * bit - 1 + guard));
  return e;
}

}  // namespace qgpu::compiler
