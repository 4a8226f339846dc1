// f32 operand flags and the exact significand product (f32_product.h).
#include "f32_product.h"

#include <fmt/format.h>

namespace qgpu::compiler {
namespace {
constexpr int kDigit = 6;  // digitsToBits' radix 64
}  // namespace

F32Operand unpackF32(Circuit& c, const std::string& name, const Bus& bits, const Expr& ftz) {
  F32Operand o;
  o.bits = bits;
  for (int j = 0; j < 8; ++j) o.exp += (int64_t{1} << j) * w(bits[23 + j]);
  for (int i = 0; i < 23; ++i) o.fracOnes += w(bits[i]);
  o.sign = w(bits[31]);
  o.expZero = c.step(name + ".ez", -o.exp);
  o.nan = c.step(name + ".nan", 24 * (o.exp - 255) + o.fracOnes - 1);
  o.inf = c.step(name + ".inf", 24 * (o.exp - 255) - o.fracOnes);
  o.zero = c.step(name + ".zero", -24 * o.exp - o.fracOnes + 23 * ftz);
  return o;
}

Bus effectiveExponentSum(Circuit& c, const std::string& name, const F32Operand& a, const F32Operand& b) {
  std::vector<Expr> ea(8), eb(8);
  for (size_t j = 0; j < 8; ++j) {
    ea[j] = w(a.bits[23 + j]) + (j == 0 ? w(a.expZero) : Expr(0));  // E' = max(E, 1)
    eb[j] = w(b.bits[23 + j]) + (j == 0 ? w(b.expZero) : Expr(0));
  }
  return addBuses(c, name, ea, eb, 0);
}

Bus significandProduct(Circuit& c, const std::string& name, const F32Operand& a, const F32Operand& b,
                       bool chainLowBits) {
  // P = sum_{i,j} ma_i mb_j 2^(i+j), bit 23 of each significand the hidden bit h = [E >= 1].
  // Rows, each split into the radix-64 digits of the product it touches:
  //   i < 23, j < 23: gate(a_i, b's bits)                     a_i * mb_low
  //   i < 23, j = 23: step [a_i = 1 and Eb >= 1], a weight    a_i * h_b
  //   i = 23, j < 23: step [Ea >= 1] with b's bits as value   h_a * mb_low
  //   i = j = 23:     1 - ez_a - ez_b + [Ea = Eb = 0]          h_a * h_b
  constexpr int kDigits = 8;  // 48 bits
  std::vector<Expr> digits(kDigits);
  auto at = [](int s) { return std::pair<int, int64_t>{s / kDigit, int64_t{1} << (s % kDigit)}; };
  for (int i = 0; i <= 23; ++i) {
    std::vector<Expr> value(kDigits);
    for (int j = 0; j < 23; ++j) {
      const auto [d, weight] = at(i + j);
      value[static_cast<size_t>(d)] += weight * w(b.bits[static_cast<size_t>(j)]);
    }
    for (int d = 0; d < kDigits; ++d) {
      Expr& v = value[static_cast<size_t>(d)];
      if (v.terms.empty()) continue;
      const std::string nm = fmt::format("{}.pp{}.{}", name, i, d);
      digits[static_cast<size_t>(d)] += i < 23 ? w(c.gate(nm, a.bits[static_cast<size_t>(i)], v)) : w(c.step(nm, a.exp - 1, v));
    }
    const auto [d, weight] = at(i + 23);
    if (i < 23)
      digits[static_cast<size_t>(d)] +=
          weight * w(c.step(fmt::format("{}.ph{}", name, i), b.exp - 1 - 255 * (1 - w(a.bits[static_cast<size_t>(i)]))));
    else
      digits[static_cast<size_t>(d)] +=
          weight * (1 - w(a.expZero) - w(b.expZero) + w(c.step(name + ".hh.zz", -a.exp - b.exp)));
  }
  return digitsToBits(c, name + ".P", digits, 0, 48, chainLowBits);
}

}  // namespace qgpu::compiler
