// The lane-serial float step (float_lane.h): the lane of the position (serialLane), its
// operands muxed into proven bits — per bit one gate term per lane into an exclusiveOr
// channel, then a threshold — and FFMA on them (ffma.cpp, 14 levels). FMUL is FFMA with a
// signed-zero addend (-0, or +0 when rounding down: x + -0 = x for every x, and a product
// that rounds to zero keeps its sign; machine MachineLaneSerial.FmulIsFfmaWithASignedZeroAddend);
// FADD and FSUB (f32) are FFMA(a, 1, b) and FFMA(a, 1, -b): b's bits go to the addend port
// (its sign flipped for FSUB) and the factor is the constant 1.0
// (MachineLaneSerial.FaddAndFsubAreFfmaWithAFactorOfOne).
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
  // FADD and FSUB of f32 (ty 2; f64's are lane-serial too, but not computed here).
  const Expr f32 = bitsMatching(Bus{word[machine::kWordTyAt], word[machine::kWordTyAt + 1]}, 2) - 2;
  const Expr fadd = w(c.step("FADD f32", w(operands.op.at(static_cast<size_t>(MOp::FAdd))) + f32 - 1));
  const Expr fsub = w(c.step("FSUB f32", w(operands.op.at(static_cast<size_t>(MOp::FSub))) + f32 - 1));
  const Bus sel = serialLane(c, "float", waits, active, fmul + ffma + fadd + fsub);
  // fl: bit 0 ftz, bit 1 sat, bits 2-3 the rounding mode (rn rz rm rp).
  const uint32_t fl = machine::kWordFlAt;
  std::vector<Expr> rounding;
  for (uint32_t v = 0; v < 4; ++v)
    rounding.push_back(w(c.step(fmt::format("float rounding {}", v), bitsMatching(Bus{word[fl + 2], word[fl + 3]}, v) - 2)));
  const F32Modes modes{rounding[0], rounding[1], rounding[2], rounding[3], w(word[fl]), w(word[fl + 1])};
  Expr anySel;
  for (WireId s : sel) anySel += w(s);
  // FADD's and FSUB's factor: 1.0.
  const WireId one = c.step("float FADD/FSUB factor 1.0", anySel + fadd + fsub - 2);
  // The datapath's operand `name`'s bit k, as a proven bit: the selected lane's bit of port
  // `port` where `op` runs, of port `port2` where `op2` runs (FSUB's sign bit flipped where
  // `flip` runs), and the constants: FMUL's addend, FADD's factor.
  auto lanes = [&](const std::string& name, uint32_t port, const Expr& op, std::optional<uint32_t> port2 = std::nullopt,
                   const Expr& op2 = Expr(0), const Expr& flip = Expr(0)) {
    Bus bits;
    for (uint32_t k = 0; k < 32; ++k) {
      Expr terms;
      for (uint32_t l = 0; l < 4; ++l) {
        const WireId own = operands.selected[4 * port + l][k];
        // a's (every float op reads it): a gate on the lane bit, one neuron.
        terms += w(op.terms.empty() && op.constant == 1
                       ? c.gate(fmt::format("float l{} {}[{}]", l, name, k), sel[l], w(own))
                       : c.step(fmt::format("float l{} {}[{}]", l, name, k), 8 * (w(sel[l]) + op - 2) + w(own) - 1));
        if (!port2) continue;
        const Expr x = w(operands.selected[4 * *port2 + l][k]);
        if (k < 31) {
          terms += w(c.step(fmt::format("float l{} {}[{}] (FADD/FSUB)", l, name, k), 8 * (w(sel[l]) + op2 - 2) + x - 1));
        } else {
          terms += w(c.step(fmt::format("float l{} {}[{}] (FADD)", l, name, k), 8 * (w(sel[l]) + op2 - flip - 2) + x - 1));
          terms += w(c.step(fmt::format("float l{} {}[{}] (FSUB)", l, name, k), 8 * (w(sel[l]) + flip - 2) - x));
        }
      }
      // FMUL's addend: -0 (bit 31) unless rounding down.
      if (name == "c" && k == 31) terms += w(c.step("float FMUL addend sign", 8 * (anySel + fmul - 2) - rounding[2]));
      if (name == "b" && ((0x3f800000u >> k) & 1)) terms += w(one);
      bits.push_back(c.step(fmt::format("float {}[{}]", name, k), w(c.exclusiveOr(fmt::format("float {} terms[{}]", name, k), terms)) - 1));
      if (after) c.notBefore(bits.back(), *after);
    }
    return bits;
  };
  const Bus a = lanes("a", 0, Expr(1)), b = lanes("b", 1, fmul + ffma), cc = lanes("c", 2, ffma, 1, fadd + fsub, fsub);
  return {sel, buildFfma(c, "float", modes, a, b, cc), fmul + ffma + fadd + fsub};
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
