// The lane-serial float step (float_lane.h): the lane of the position (serialLane), its
// operands muxed into proven bits — per bit one gate term per lane into an exclusiveOr
// channel, then a threshold — and FFMA on them (ffma.cpp, 14 levels). FMUL is FFMA with a
// signed-zero addend (-0, or +0 when rounding down: x + -0 = x for every x, and a product
// that rounds to zero keeps its sign; machine MachineLaneSerial.FmulIsFfmaWithASignedZeroAddend).
#include "qgpu/compiler/float_lane.h"

#include <fmt/format.h>

#include <optional>

#include "ffma.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

using machine::MOp;

LaneSerialFloatWires buildLaneSerialFloat(Circuit& c, const FrontWires& front, const OperandWires& operands,
                                          const Bus& active, const Bus& waits, std::optional<WireId> after) {
  const Bus& word = front.fetch.word;
  const Expr fmul = w(operands.op.at(static_cast<size_t>(MOp::FMul)));
  const Expr ffma = w(operands.op.at(static_cast<size_t>(MOp::FFma)));
  const Bus sel = serialLane(c, "float", waits, active, fmul + ffma);
  // fl: bit 0 ftz, bit 1 sat, bits 2-3 the rounding mode (rn rz rm rp).
  const uint32_t fl = machine::kWordFlAt;
  std::vector<Expr> rounding;
  for (uint32_t v = 0; v < 4; ++v)
    rounding.push_back(w(c.step(fmt::format("float rounding {}", v), bitsMatching(Bus{word[fl + 2], word[fl + 3]}, v) - 2)));
  const F32Modes modes{rounding[0], rounding[1], rounding[2], rounding[3], w(word[fl]), w(word[fl + 1])};
  Expr anySel;
  for (WireId s : sel) anySel += w(s);
  // Operand `port`'s bit k of the selected lane (c only for FFMA), as a proven bit.
  auto lanes = [&](uint32_t port, const std::string& name, const Expr& op) {
    Bus bits;
    for (uint32_t k = 0; k < 32; ++k) {
      Expr terms;
      for (uint32_t l = 0; l < 4; ++l)
        terms += w(c.step(fmt::format("float l{} {}[{}]", l, name, k),
                          8 * (w(sel[l]) + op - 2) + w(operands.selected[4 * port + l][k]) - 1));
      // FMUL's addend: -0 (bit 31) unless rounding down.
      if (port == 2 && k == 31) terms += w(c.step("float FMUL addend sign", 8 * (anySel + fmul - 2) - rounding[2]));
      bits.push_back(c.step(fmt::format("float {}[{}]", name, k), w(c.exclusiveOr(fmt::format("float {} terms[{}]", name, k), terms)) - 1));
      if (after) c.notBefore(bits.back(), *after);
    }
    return bits;
  };
  const Bus a = lanes(0, "a", Expr(1)), b = lanes(1, "b", Expr(1)), cc = lanes(2, "c", ffma);
  return {sel, buildFfma(c, "float", modes, a, b, cc), fmul + ffma};
}

Unit laneSerialFloatUnit() {
  Unit u{Circuit("float_lane"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const FrontWires front = buildFront(c);
  const OperandWires operands = buildOperandSelect(c, front);
  const Bus result = buildLaneSerialFloat(c, front, operands, guardedLanes(c, front), countWaits(c, front)).result;
  c.outputBus("result", result);
  LaneBuses lb;
  lb.results.push_back(result);
  u.lanes.push_back(std::move(lb));
  return u;
}

}  // namespace qgpu::compiler
