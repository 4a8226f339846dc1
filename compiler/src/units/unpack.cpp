// Packed operands into bits: a 16-bit chunk held as one integer channel becomes its 16
// structural bits in four MLP levels (docs/machine.md §5.2, the packed operand encoding).
// The chunk is cut into digits of 4, 6 and 6 bits from the top. For a digit [lo, hi) of the
// remainder R (< 2^hi), one level thresholds R at the multiples of 2^lo, which give
// floor(R / 2^m) for every m in [lo, hi) as sums of those steps; the next level takes the
// digit's bits, bit i = [R - 2^(i+1) floor(R / 2^(i+1)) >= 2^i], and thresholds the next
// remainder R - 2^lo floor(R / 2^lo). Each floor is a sum of unit steps on one form (a chain:
// one channel, docs/compiler.md §2). Digits of at most 6 bits keep a chain to 63 steps: the
// proof bounds a channel's f32 sum by its writers' largest outputs, about 2^16 each here
// (the remainders' intervals are as wide as the chunk's), and 255 steps pass 2^24.
#include <fmt/format.h>

#include <array>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

Bus unpackChunk(Circuit& c, const std::string& name, WireId chunk) {
  constexpr std::array<int, 4> kCuts = {16, 12, 6, 0};  // digit boundaries, top first
  Bus bits(16);
  Expr rest = w(chunk);  // the remainder below the digits done so far
  for (size_t d = 0; d + 1 < kCuts.size(); ++d) {
    const int hi = kCuts[d], lo = kCuts[d + 1];
    std::vector<WireId> at(size_t{1} << (hi - lo));  // at[k] = [rest >= k 2^lo]
    for (size_t k = 1; k < at.size(); ++k)
      at[k] = c.step(fmt::format("{}.r{}>={}", name, hi, k << lo), rest - static_cast<int64_t>(k << lo));
    auto floorOf = [&](int m) {  // floor(rest / 2^m), lo <= m < hi
      Expr f;
      for (size_t k = size_t{1} << (m - lo); k < at.size(); k += size_t{1} << (m - lo)) f += w(at[k]);
      return f.terms.size() == 1 ? f : w(c.sum(fmt::format("{}.r{}/2^{}", name, hi, m), f));
    };
    for (int i = lo; i < hi; ++i) {
      const Expr above = i + 1 < hi ? (int64_t{1} << (i + 1)) * floorOf(i + 1) : Expr(0);
      bits[static_cast<size_t>(i)] = c.step(fmt::format("{}[{}]", name, i), rest - above - (int64_t{1} << i));
    }
    if (lo > 0) rest = rest - (int64_t{1} << lo) * floorOf(lo);
  }
  return bits;
}

Unit unpackUnit(uint32_t lanes, uint32_t chunks) {
  Unit u{Circuit(fmt::format("unpack{}x{}", 16 * chunks, lanes)), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  for (uint32_t l = 0; l < lanes; ++l) {
    Bus packed, bits;
    for (uint32_t j = 0; j < chunks; ++j) {
      const WireId chunk = c.input(fmt::format("l{}.chunk{}", l, j), {0, 65535});
      packed.push_back(chunk);
      const Bus b = unpackChunk(c, fmt::format("l{}.bits{}", l, j), chunk);
      bits.insert(bits.end(), b.begin(), b.end());
    }
    c.outputBus(fmt::format("l{}.bits", l), bits);
    u.lanes.push_back({{packed}, {bits}});
  }
  return u;
}

}  // namespace qgpu::compiler
