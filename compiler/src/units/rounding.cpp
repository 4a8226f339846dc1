// The rounding back end the conversions share (I2F, F2I, F2H): the mode's increment from
// the guard and sticky bits, and the kept value plus that increment, bit by bit.
#include <fmt/format.h>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

std::array<Expr, 4> modeOffsets(const Bus& modeBits) {
  std::array<Expr, 4> off;
  for (uint32_t k = 0; k < 4; ++k) off[k] = 4 * (bitsMatching(modeBits, k) - 2);  // two bits: a mismatch is <= 1
  return off;
}

Expr roundingIncrement(Circuit& c, const std::string& name, const Expr& guard, const Expr& sticky, const Expr& lowBit,
                       const Expr& negative, const std::array<Expr, 4>& modeOff) {
  // rn: guard and (sticky or the kept value's bit 0, ties to even); rm and rp: guard or sticky
  // on their side of zero; rz: none. At most one of the three is 1: the modes are one-hot.
  return w(c.step(name + " round up (rn)", 2 * guard + sticky + lowBit - 3 + modeOff[0])) +
         w(c.step(name + " round up (rm)", 2 * negative + guard + sticky - 3 + modeOff[2])) +
         w(c.step(name + " round up (rp)", 2 * (1 - negative) + guard + sticky - 3 + modeOff[3]));
}

std::vector<Expr> addIncrement(Circuit& c, const std::string& name, const std::vector<Expr>& value, const Expr& inc,
                               uint32_t width) {
  // [value_i = 1 for every i < j]: the increment's carry reaches bit j (one level, with inc).
  std::vector<Expr> allOnes(width);
  Expr low;
  for (uint32_t j = 1; j < width; ++j) {
    low += value[j - 1];
    allOnes[j] = w(c.step(fmt::format("{} ones below {}", name, j), low - static_cast<int64_t>(j)));
  }
  // Bit j flips where inc is 1 and every bit below is 1; a flipped 1 becomes 0.
  std::vector<Expr> sum;
  for (uint32_t j = 0; j < width; ++j) {
    const Expr carry = j == 0 ? Expr(0) : allOnes[j] - 1;  // 0 where every bit below is 1, else -1
    const Expr flips = w(c.step(fmt::format("{} flips {}", name, j), inc + carry - 1));
    const Expr flipsOne = w(c.step(fmt::format("{} flips a 1 at {}", name, j), inc + carry + value[j] - 2));
    sum.push_back(value[j] + flips - 2 * flipsOne);
  }
  return sum;
}

}  // namespace qgpu::compiler
