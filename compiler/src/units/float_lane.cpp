// The lane-serial float step (float_lane.h): the lane of the position (serialLane), its
// operands muxed into proven bits — per bit one gate term per lane into an exclusiveOr
// channel, then a threshold — and FFMA on them (ffma.cpp, 14 levels). FMUL is FFMA with a
// signed-zero addend (-0, or +0 when rounding down: x + -0 = x for every x, and a product
// that rounds to zero keeps its sign; machine MachineLaneSerial.FmulIsFfmaWithASignedZeroAddend);
// FADD and FSUB (f32) are FFMA(a, 1, b) and FFMA(a, 1, -b): b's bits go to the addend port
// (its sign flipped for FSUB) and the factor is the constant 1.0
// (MachineLaneSerial.FaddAndFsubAreFfmaWithAFactorOfOne). The compare family's lane-serial
// ops (MIN, MAX of 4-byte integers; FMIN, FMAX, FNEG, FABS, FSETP of f32) share the operand
// muxes: four levels of their own beside the datapath, whose result they replace
// (laneSerialResult); the conversions likewise, F2D's 64 bits the only ones above bit 31.
#include "qgpu/compiler/float_lane.h"

#include <fmt/format.h>

#include <iterator>
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
  // The compare family (lane-serial on the same operand muxes, beside the datapath): MIN and
  // MAX of 4-byte integers, FMIN, FMAX, FNEG, FABS and FSETP of f32.
  // fl: bit 0 ftz, bit 1 sat, bits 2-3 the rounding mode (rn rz rm rp).
  const uint32_t fl = machine::kWordFlAt;
  // Each op form is [the op, in the forms floatLaneComputes names]: 4-byte operands (ty's
  // width bits 2; H2F and F2H 2-byte), FSETP without its .ftz (ty bit 2), I2F to f32 —
  // so the lane computes exactly those and any other step's result is 0. Change the two
  // together (machine_step.cpp).
  const Bus tyBits{word[machine::kWordTyAt], word[machine::kWordTyAt + 1]};
  const Expr fourBytes = bitsMatching(tyBits, 2) - 2;  // 0 for 4-byte operands, else < 0
  const Expr twoBytes = bitsMatching(tyBits, 1) - 2;   // 0 for 2-byte operands (H2F, F2H), else < 0
  auto form = [&](MOp o, const Expr& width, const Expr& more) {
    return w(c.step(fmt::format("{} (lane-serial form)", machine::opName(o)),
                    w(operands.op.at(static_cast<size_t>(o))) + width + more - 1));
  };
  const Expr imin = form(MOp::Min, fourBytes, Expr(0)), imax = form(MOp::Max, fourBytes, Expr(0));
  const Expr fneg = form(MOp::FNeg, fourBytes, Expr(0)), fabs = form(MOp::FAbs, fourBytes, Expr(0));
  const Expr fmin = form(MOp::FMin, fourBytes, Expr(0)), fmax = form(MOp::FMax, fourBytes, Expr(0));
  const Expr fsetp = form(MOp::FSetp, fourBytes, -w(word[machine::kWordTyAt + 2]));
  const Expr compares = imin + imax + fneg + fabs + fmin + fmax + fsetp;
  const Expr i2f = form(MOp::I2F, fourBytes, -w(word[fl + 2]));  // fl bit 2: the destination is f64
  // F2I from f32 (fl bit 3: from f64) into a 4-byte register (c's width code 2).
  const Bus widthCode{word[machine::kWordCAt], word[machine::kWordCAt + 1]};
  const Expr f2i = form(MOp::F2I, fourBytes, -w(word[fl + 3]) + bitsMatching(widthCode, 2) - 2);
  // H2F and F2H without .sat (fl bit 1).
  const Expr h2f = form(MOp::H2F, twoBytes, -w(word[fl + 1])), f2h = form(MOp::F2H, twoBytes, -w(word[fl + 1]));
  const Expr f2d = form(MOp::F2D, fourBytes, Expr(0));
  const Expr bfe = form(MOp::Bfe, fourBytes, Expr(0));
  const BitCountOps counts{form(MOp::Popc, fourBytes, Expr(0)), form(MOp::Clz, fourBytes, Expr(0)),
                           form(MOp::Bfind, fourBytes, Expr(0)), form(MOp::Brev, fourBytes, Expr(0))};
  const Expr converts = i2f + f2i + h2f + f2h + f2d + bfe + counts.popc + counts.clz + counts.bfind + counts.brev;
  const Bus sel = serialLane(c, "float", waits, active, fmul + ffma + fadd + fsub + compares + converts);
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
  const Bus a = lanes("a", 0, Expr(1)), b = lanes("b", 1, fmul + ffma + imin + imax + fmin + fmax + fsetp + bfe),
            cc = lanes("c", 2, ffma + bfe, 1, fadd + fsub, fsub);
  LaneSerialFloatWires out{sel, buildFfma(c, "float", modes, a, b, cc), {}, {}, {}, fmul + ffma + fadd + fsub + compares + converts};
  out.ffmaFamily = c.step("float FFMA family", fmul + ffma + fadd + fsub - 1);
  // The compare family's and the conversions' bits (each 0 unless its op runs), a channel
  // each at its own level: summed into one, the compare's would wait for I2F's where the
  // datapath is widest. POPC, CLZ, BFIND and BREV (two levels, computed as soon as a is
  // muxed) join the compare's channels; BFE the conversions' (a level after F2I's last).
  const std::vector<Expr> compare =
      buildLaneSerialCompare(c, word, a, b, {imin, imax, fneg, fabs, fmin, fmax, fsetp});
  const std::vector<Expr> toFloat = buildLaneSerialI2F(c, word, a, i2f);
  const std::vector<Expr> toInt = buildLaneSerialF2I(c, word, a, f2i);
  // The half conversions a level after F2I's last: up to it the lane's layers are full.
  const WireId afterF2I = toInt[0].terms.at(0).wire;
  const std::vector<Expr> fromHalf = buildLaneSerialH2F(c, a, h2f, afterF2I);
  const std::vector<Expr> toHalf =
      buildLaneSerialF2H(c, {rounding[0], rounding[1], rounding[2], rounding[3]}, modes.ftz, a, f2h, afterF2I);
  const std::vector<Expr> field = buildLaneSerialBfe(c, word, a, b, cc, bfe, afterF2I);
  const std::vector<Expr> toDouble = buildLaneSerialF2D(c, word, a, f2d, afterF2I);
  const std::vector<Expr> count = buildLaneSerialBitCounts(c, word, a, counts);
  for (uint32_t i = 0; i < 64; ++i) {
    if (i < 32) {
      out.compare.push_back(c.exclusiveOr(fmt::format("lane compare result[{}]", i), compare[i] + count[i]));
      out.convert.push_back(c.exclusiveOr(fmt::format("lane conversion result[{}]", i),
                                          toFloat[i] + toInt[i] + fromHalf[i] + toHalf[i] + field[i] + toDouble[i]));
    } else {
      out.convert.push_back(c.exclusiveOr(fmt::format("lane conversion result[{}]", i), toDouble[i]));
    }
  }
  return out;
}

std::vector<Expr> buildLaneSerialCompare(Circuit& c, const Bus& word, const Bus& a, const Bus& b, const CompareOps& op) {
  auto sum = [](const Bus& x, uint32_t from, uint32_t to) {
    Expr e;
    for (uint32_t k = from; k < to; ++k) e += w(x[k]);
    return e;
  };
  // ---- the float classes: NaN (exponent all ones, mantissa not 0), a magnitude not 0, and
  // for FNEG/FABS with .ftz a subnormal that becomes the signed zero (units_f32.cpp) ----
  const Expr ftz = w(word[machine::kWordFlAt]);
  auto nanOf = [&](const Bus& x, const std::string& n) {
    const WireId anyMantissa = c.step(n + " mantissa != 0", sum(x, 0, 23) - 1);
    return std::pair{w(anyMantissa), w(c.step(n + " NaN", sum(x, 23, 31) + w(anyMantissa) - 9))};
  };
  const auto [anyMantissaA, nanA] = nanOf(a, "float a");
  const Expr nanB = nanOf(b, "float b").second;
  const WireId zeroExponent = c.step("FNEG/FABS exponent = 0", -sum(a, 23, 31));
  const Expr flushed = w(c.step("FNEG/FABS flushed", w(zeroExponent) + anyMantissaA + ftz - 3));
  // FMIN/FMAX with .ftz: the order of the flushed operands is the raw operands' but where
  // both are zeros or subnormals of one sign, and there the result is that signed zero
  // whichever is picked — so the result is the raw pick flushed: a picked subnormal keeps its
  // sign bit alone (b's flag here; a's is FNEG/FABS's).
  const Expr flushedB = w(c.step("float b flushed",
                                 ftz + w(c.step("float b mantissa != 0", sum(b, 0, 23) - 1)) - sum(b, 23, 31) - 2));
  const Expr nonZero = w(c.step("float a != 0", sum(a, 0, 31) - 1)) + w(c.step("float b != 0", sum(b, 0, 31) - 1));
  // ---- a against b in 8-bit chunks (SETP's digits in alu.cpp): unsigned, signed (the top
  // chunk's sign bit counts -2^7) and the floats' magnitudes (bits 0-30), |D| <= 15 ----
  Expr du, ds, dm;
  for (uint32_t m = 0; m < 4; ++m) {
    const std::string n = fmt::format("compare chunk {}", m);
    const Expr d = chunkDigit(c, n, chunkValue(a, m), chunkValue(b, m));
    du += (int64_t{1} << m) * d;
    if (m < 3) {
      ds += (int64_t{1} << m) * d;
      dm += (int64_t{1} << m) * d;
    } else {
      ds += 8 * chunkDigit(c, n + " signed", signedChunkValue(a, m), signedChunkValue(b, m));
      const Expr magnitudeA = chunkValue(a, m) - 128 * w(a[31]), magnitudeB = chunkValue(b, m) - 128 * w(b[31]);
      dm += 8 * chunkDigit(c, n + " magnitude", magnitudeA, magnitudeB);
    }
  }
  constexpr int64_t M = 16;  // beyond |D| <= 15 (and the sign terms): a closed selector wins
  // ---- MIN, MAX of integers: a or b by the compare ----
  const Expr isSigned = w(word[machine::kWordTyAt + 2]);
  const Expr minU = w(c.step("MIN unsigned", op.imin - isSigned - 1)), minS = w(c.step("MIN signed", op.imin + isSigned - 2));
  const Expr maxU = w(c.step("MAX unsigned", op.imax - isSigned - 1)), maxS = w(c.step("MAX signed", op.imax + isSigned - 2));
  const Expr picksA = w(c.channel(
      "MIN/MAX picks a",  // MIN and a < b, or MAX and a > b (equal: b, the same value)
      w(c.step("MIN a (unsigned)", -du - 1 + M * (minU - 1))) + w(c.step("MAX a (unsigned)", du - 1 + M * (maxU - 1))) +
          w(c.step("MIN a (signed)", -ds - 1 + M * (minS - 1))) + w(c.step("MAX a (signed)", ds - 1 + M * (maxS - 1)))));
  // ---- the floats' order: sign and magnitude, -0 below +0 (FMIN's and FMAX's tie rule);
  // FSETP's less and greater treat the two zeros as equal ----
  const Expr sa = w(a[31]), sb = w(b[31]);
  // [a below b] (or, with the magnitude compare turned, [a above b]): `signs` decides where
  // the signs differ, the magnitudes where they agree.
  // `closed`: 0 where the order counts, else <= -M (a selector), in each of the three steps.
  auto order = [&](const std::string& n, const Expr& signs, const Expr& magnitude, const Expr& closed = Expr(0)) {
    return w(c.step(n + " (signs)", signs + closed)) + w(c.step(n + " (both +)", magnitude - 1 - M * (sa + sb) + closed)) +
           w(c.step(n + " (both -)", -magnitude - 1 - M * (2 - sa - sb) + closed));
  };
  // FMIN and FMAX by the order, gated by the op (-0 below +0: FMIN's and FMAX's tie rule).
  const Expr ordered = w(c.channel("FMIN/FMAX order picks a",
                                   order("FMIN a below b", sa - sb - 1, -dm, M * (op.fmin - 1)) +
                                       order("FMAX a above b", sb - sa - 1, dm, M * (op.fmax - 1))));
  // FSETP: the zeros are equal (a sign difference counts where a magnitude is not 0).
  const Expr less = w(c.channel("FSETP less", order("FSETP less", 2 * (sa - sb) + nonZero - 3, -dm)));
  const Expr greater = w(c.channel("FSETP greater", order("FSETP greater", 2 * (sb - sa) + nonZero - 3, dm)));
  // Which operand the result is: MIN/MAX's pick, or FMIN/FMAX's (one NaN gives the other
  // operand, two the canonical NaN) — one level, so that every bit's pick is at one level.
  const Expr fmm = op.fmin + op.fmax, imm = op.imin + op.imax;
  const WireId takeA = c.step("compare takes a", ordered + 2 * nanB - 3 * nanA - 1 + 4 * (fmm - 1));
  const Expr takesA = w(takeA) + picksA;  // exclusive: picksA is 0 unless MIN or MAX
  const Expr takesB = w(c.step("compare takes b (float)", 2 * nanA - 3 * nanB - ordered + 4 * (fmm - 1))) +
                      w(c.step("compare takes b (integer)", imm - picksA - 1));
  const Expr floatNaN = w(c.step("FMIN/FMAX NaN", nanA + nanB + fmm - 3));
  // FSETP (codes of units_f32.cpp's compareFloat in fl): one threshold per code on less (L),
  // greater (G) and the NaN count (U).
  const Expr L = less, G = greater, U = nanA + nanB;
  const Expr codes[] = {-L - G - U,      L + G - 1 - 2 * U, L - 1 - 2 * U, -G - U,     G - 1 - 2 * U,
                        -L - U,          2 * U - L - G,     2 * U + L + G - 1, 2 * U + L - 1, 2 * U - G,
                        2 * U + G - 1,   2 * U - L,         -U,            U - 1};
  Expr setpTerms;
  for (uint32_t k = 0; k < std::size(codes); ++k) {
    const WireId sel = c.step(fmt::format("FSETP code {}", k),
                              op.fsetp + bitsMatching(Bus(word.begin() + machine::kWordFlAt, word.begin() + machine::kWordFlAt + 4), k) - 5);
    // Beside less and greater, which it meets a level later: early, its 14 codes would each
    // hold a channel across the ALU's layers.
    c.notBefore(sel, less.terms.at(0).wire);
    setpTerms += w(c.step(fmt::format("FSETP code {} holds", k), codes[k] + 8 * (w(sel) - 1)));
  }
  const Expr setp = w(c.channel("FSETP result", setpTerms));
  // Every bit's terms at one level (the picks'), so that none waits in a channel of its own.
  std::vector<Expr> result;
  for (uint32_t i = 0; i < 32; ++i) {
    const std::string n = fmt::format("compare result[{}]", i);
    Expr terms = i < 31 ? w(c.step(n + " a", takesA + w(a[i]) - 2 * flushed - 2)) + w(c.step(n + " b", takesB + w(b[i]) - 2 * flushedB - 2))
                        : w(c.step(n + " a", takesA + w(a[i]) - 2)) + w(c.step(n + " b", takesB + w(b[i]) - 2));
    // FNEG/FABS: bits 0-30 are a's (NaN: the canonical NaN's, flushed subnormal: 0), bit 31
    // is a's sign flipped by FNEG (0 for FABS and a NaN).
    WireId negOrAbs;
    if (i < 31) {
      negOrAbs = c.step(n + " FNEG/FABS", 3 * (op.fneg + op.fabs) + 2 * nanA + w(a[i]) - 2 * flushed - 4);
      terms += floatNaN;  // the canonical NaN, 0x7fffffff
    } else {
      negOrAbs = c.step(n + " FNEG sign", op.fneg - nanA - w(a[31]) - 1);
    }
    c.notBefore(negOrAbs, takeA);
    terms += w(negOrAbs);
    if (i == 0) terms += setp;
    result.push_back(std::move(terms));
  }
  return result;
}

Expr stepAfter(Circuit& c, const std::string& name, const Expr& cond, std::optional<WireId> after) {
  const WireId x = c.step(name, cond);
  if (after) c.notBefore(x, *after, 1);
  return w(x);
}

Expr laneSerialResult(const LaneSerialFloatWires& f, uint32_t i) {
  if (i >= 32) return 2 * w(f.convert[i]) - 2;  // F2D's upper half
  return w(f.result[i]) + w(f.ffmaFamily) + 2 * (w(f.compare[i]) + w(f.convert[i])) - 2;
}

Unit laneSerialFloatUnit() {
  Unit u{Circuit("float_lane"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const FrontWires front = buildFront(c);
  const OperandWires operands = buildOperandSelect(c, front);
  const LaneSerialFloatWires f = buildLaneSerialFloat(c, front, operands, guardedLanes(c, front), countWaits(c, front));
  Bus result;
  for (uint32_t i = 0; i < 32; ++i) result.push_back(c.step(fmt::format("lane result[{}]", i), laneSerialResult(f, i)));
  c.outputBus("result", result);
  LaneBuses lb;
  lb.results.push_back(result);
  u.lanes.push_back(std::move(lb));
  return u;
}

}  // namespace qgpu::compiler
