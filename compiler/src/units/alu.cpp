// The machine step's integer ALU (alu.h, docs/machine.md §5.2) on the selected operands.
// Every unit computes for every lane whatever the op; selectors shared by the lanes — the
// op, its width class and, for SETP, the compare code and signedness, one level from the
// fetched word — gate each unit's last level, so each result bit is 0 unless its op runs
// and its bit lies within the op's width, and the result select is the sum of the units'
// last-level terms: one exclusiveOr channel per bit, no level of its own.
//
//   guard + 1  the adder's chunk carries for ADD and SUB at once (addSubCarries: SUB is
//              a + ~b + 1, each threshold built for both ops, the other silenced); CADD and
//              CARRY's own carry-in (c's bit 0, CC.CF) from c's read
//   guard + 2  its carries into every chunk past the first, by the carry-in; SETP's chunk
//              digits (8-bit chunks: each width's sign bit tops a chunk)
//   guard + 3  the sum bits as gates on [ADD/SUB/CADD and bit fits] (the first chunk's
//              carries as thresholds here), CARRY's carry out, the logic ops' and SETP's code
//              thresholds: one channel per bit, where a, b and the carries are read last
//   op + 5  with SHFL's value pick: the ALU's result channel
//   op + 6 … op + 8 VOTE (members, ballot bits, modes), its live lanes from a one-slot bank
//   c + 1 … c + 6   the 32x32 multiplier (MULLO MULHI MULWIDE MADLO), c's addend as bits
//   op + 5 … op + 8 the shifter (shifter.cpp: SHR SHL SHF), its amount at c + 1 and c + 2
//   op + 5 … op + 6 NEG and CVTI (int_unary.cpp): one channel per bit
//   op + 8  the result: the ALU's and NEG/CVTI's channels, the multiplier's, shifter's and
//           VOTE's terms; and the same packed four bits to a channel, accumulated unit by unit
//           (AluWires::packed), for the joined step's select far below
// (op: b's read, layer 14 of the joined step; c's is at 15, the guard's at 16.)
#include "qgpu/compiler/alu.h"

#include <fmt/format.h>

#include <map>

#include "qgpu/compiler/commit.h"

namespace qgpu::compiler {
namespace {

using machine::MCmp;
using machine::MOp;

constexpr uint32_t kWidthClasses = 4;  // 1, 2, 4, 8 bytes

constexpr uint32_t kSignedCodes = 6;    // eq ne lt le gt ge: by the type's signedness
constexpr uint32_t kUnsignedCodes = 4;  // lo ls hi hs: always unsigned

}  // namespace

bool aluComputes(const machine::MInstr& in) {
  switch (in.op) {
    case MOp::Add: case MOp::Sub: case MOp::And: case MOp::Or: case MOp::Xor: case MOp::Not: case MOp::Mov:
    case MOp::Selp: case MOp::Setp: case MOp::Shfl: case MOp::Shf: case MOp::Neg: case MOp::Vote:
      return true;
    case MOp::MulLo: case MOp::MadLo: return in.bytes() == 2 || in.bytes() == 4;  // the low bytes (PTX has no 8-bit multiply)
    case MOp::MulWide: return in.bytes() == 2 || in.bytes() == 4;
    case MOp::MulHi: return in.bytes() == 4;  // 2-byte: bits 16-31 moved down, not routed (no corpus kernel)
    case MOp::MadWide: return false;  // its 64-bit addend: c's high half is not read (channels)
    case MOp::Shr: return in.bytes() >= 2;  // 16-bit shifts exist; 8-bit ones do not
    case MOp::Shl: return in.bytes() >= 4;
    case MOp::CvtI: return (in.fl & 8) == 0;  // .sat: a range compare, not built yet
    case MOp::CAdd: case MOp::Carry: return in.bytes() >= 4;  // add.cc and its kin: 32 and 64 bits
    default: return false;
  }
}

// How many of the word's `bits` bits at `at` equal value's (bitsMatching on the field).
Expr matches(const Bus& word, uint32_t at, uint32_t bits, uint32_t value) {
  return bitsMatching(Bus(word.begin() + at, word.begin() + at + bits), value);
}

AluWires buildAlu(Circuit& c, const FrontWires& front, const OperandWires& operands) {
  const Bus& word = front.fetch.word;
  const WireId sub = operands.op.at(static_cast<size_t>(MOp::Sub));
  // ---- the adders: a + b, or a + ~b + 1 for SUB, every lane: the carries of both in one
  // chain (addSubCarries), so no lane holds ~b in 64 channels of its own. CADD and CARRY
  // (add.cc, addc, sub.cc, subc: machine carryAdd) share it: fl bit 2 subtracts (a + ~b +
  // cin), bit 0 takes the carry-in from c's bit 0 (CC.CF), else it is 1 for a subtraction.
  // The carry-in is read at the adder's second level, c's bit a level after its read ----
  const Expr carryOp = w(operands.op.at(static_cast<size_t>(MOp::CAdd))) + w(operands.op.at(static_cast<size_t>(MOp::Carry)));
  const Expr flCf = w(word[machine::kWordFlAt]), flSub = w(word[machine::kWordFlAt + 2]);
  const WireId carrySubtracts = c.step("CADD/CARRY subtracts", carryOp + flSub - 2);
  const WireId inverts = c.exclusiveOr("the adder inverts b", std::vector<WireId>{sub, carrySubtracts});
  WireId carryInOne = 0;
  std::vector<AddSubCarries> sums;
  for (uint32_t l = 0; l < 4; ++l) {
    const WireId fromCf = c.step(fmt::format("l{} CADD/CARRY carry-in CC.CF", l), carryOp + flCf + w(operands.selected[8 + l][0]) - 3);
    if (l == 0) {  // beside the lanes' CC.CF steps, not live from the fetch on
      carryInOne = c.step("CADD/CARRY carry-in 1", carryOp + flSub - flCf - 2);
      c.notBefore(carryInOne, fromCf);
    }
    const WireId carryIn = c.exclusiveOr(fmt::format("l{} adder carry-in", l), std::vector<WireId>{sub, carryInOne, fromCf});
    sums.push_back(addSubCarries(c, fmt::format("l{} add", l), forms(operands.selected[l]), forms(operands.selected[4 + l]),
                                 inverts, front.reads[4 * 3][0], carryIn));
  }
  // ---- selectors (shared by the lanes): one threshold each on the word's op, ty and fl
  // bits, computed the level before the last one reads them (not live from the fetch on) ----
  const WireId beforeResult = sums[0].last;
  auto selector = [&](const std::string& name, Expr cond) {
    const WireId s = c.step(name, cond);
    c.notBefore(s, beforeResult);
    return s;
  };
  const Expr width = w(word[machine::kWordTyAt]) + 2 * w(word[machine::kWordTyAt + 1]);
  auto isOp = [&](MOp o) { return matches(word, 0, machine::kWordOpBits, static_cast<uint32_t>(o)) - int64_t{machine::kWordOpBits}; };
  // [op and the width holds bits of class k]: a missing op bit (-4) outweighs width - k >= -3.
  auto opFits = [&](MOp o, uint32_t k) {
    return selector(fmt::format("{} width class {}", machine::opName(o), k), 4 * isOp(o) + width - int64_t{k});
  };
  std::vector<WireId> addSel, subSel;  // ADD or CADD adding, SUB or CADD subtracting, per width class
  std::vector<WireId> orSel, andSel, xorSel, notSel, selpSel;
  for (uint32_t k = 0; k < kWidthClasses; ++k) {
    const std::string n = fmt::format("CADD width class {}", k);
    const WireId cadd = selector(n + " adds", 4 * isOp(MOp::CAdd) - 4 * flSub + width - int64_t{k});
    const WireId csub = selector(n + " subtracts", 4 * isOp(MOp::CAdd) + 4 * flSub - 4 + width - int64_t{k});
    // An atomic's new value, op(old, b) with the old value on port a (read from d there):
    // ATOM and ATOMS add where the new value is next.
    std::vector<WireId> adds{opFits(MOp::Add, k), cadd};
    for (MOp o : {MOp::Atom, MOp::AtomS})
      adds.push_back(selector(fmt::format("{} adds, width class {}", machine::opName(o), k),
                              4 * isOp(o) + 4 * (matches(word, machine::kWordFlAt, 4, static_cast<uint32_t>(machine::MAtom::Add)) - 4) +
                                  4 * (w(front.atomic.newNext) - 1) + width - int64_t{k}));
    addSel.push_back(c.exclusiveOr(fmt::format("ADD/CADD width class {}", k), adds));
    subSel.push_back(c.exclusiveOr(fmt::format("SUB/CADD width class {}", k), std::vector<WireId>{opFits(MOp::Sub, k), csub}));
    orSel.push_back(opFits(MOp::Or, k));
    andSel.push_back(opFits(MOp::And, k));
    xorSel.push_back(opFits(MOp::Xor, k));
    notSel.push_back(opFits(MOp::Not, k));
    selpSel.push_back(opFits(MOp::Selp, k));
  }
  // CARRY: the carry out of bit 31 or bit 63 as the result's bit 0, by the exact width.
  const WireId carry4 = selector("CARRY 4 bytes", 4 * isOp(MOp::Carry) + matches(word, machine::kWordTyAt, 2, 2) - 2);
  const WireId carry8 = selector("CARRY 8 bytes", 4 * isOp(MOp::Carry) + matches(word, machine::kWordTyAt, 2, 3) - 2);
  std::vector<WireId> movSel;
  for (uint32_t k = 0; k < kWidthClasses; ++k) movSel.push_back(opFits(MOp::Mov, k));
  // SETP: per code (and signedness for eq..ge), and per width: two selectors in each code's
  // thresholds rather than one per code and width (20 channels, not 64, where the ALU's
  // levels are the step's widest).
  auto setpSel = [&](uint32_t code, int s) {
    Expr cond = isOp(MOp::Setp) + matches(word, machine::kWordFlAt, 4, code) - 4;
    if (s >= 0) cond += matches(word, machine::kWordTyAt + 2, 1, static_cast<uint32_t>(s)) - 1;
    return selector(s >= 0 ? fmt::format("SETP code {} signed {}", code, s) : fmt::format("SETP code {}", code), cond);
  };
  std::vector<std::array<WireId, 2>> signedSel;
  std::vector<WireId> unsignedSel, setpWidth;
  for (uint32_t k = 0; k < kSignedCodes; ++k) signedSel.push_back({setpSel(k, 0), setpSel(k, 1)});
  for (uint32_t k = 0; k < kUnsignedCodes; ++k) unsignedSel.push_back(setpSel(kSignedCodes + k, -1));
  for (uint32_t t = 0; t < kWidthClasses; ++t)
    setpWidth.push_back(selector(fmt::format("SETP width {}", t), matches(word, machine::kWordTyAt, 2, t) - 2));

  AluWires out;
  // ---- the active mask: the running lanes whose guard holds (machine::guardedMask) ----
  out.active = guardedLanes(c, front);
  // ---- SHFL (four levels from c: the deepest unit here, so it sets the result's level) ----
  std::vector<WireId> shflMode;
  for (uint32_t m = 0; m < 4; ++m)
    shflMode.push_back(selector(fmt::format("SHFL mode {}", m), isOp(MOp::Shfl) + matches(word, machine::kWordFlAt, 2, m) - 2));
  std::vector<Bus> value, laneB, clamp, segment;
  for (uint32_t l = 0; l < 4; ++l) {
    const Bus& a = operands.selected[l];
    const Bus& b = operands.selected[4 + l];
    const Bus& cc = operands.selected[8 + l];
    value.push_back(Bus(a.begin(), a.begin() + 32));
    laneB.push_back(Bus(b.begin(), b.begin() + 5));
    clamp.push_back(Bus(cc.begin(), cc.begin() + 5));
    segment.push_back(Bus(cc.begin() + 8, cc.begin() + 13));
  }
  const ShuffleWires shfl = buildShuffle(c, "SHFL ", shflMode, out.active, value, laneB, clamp, segment);
  out.shuffleUndefined = shfl.undefined;
  // ---- the 32x32 multiplier: the 64-bit product of a's and b's low halves (signed by the
  // type), plus c — 0 where the op reads none (MULLO MULHI MULWIDE) — in its digit sums: six
  // levels from b's read, beside the ALU ----
  // Operands of 4 bytes (ty's width bit 1) or 2 (PTX has no 8-bit multiply; 8-byte ones are
  // MULP micro-code): a 2-byte product is the low halves' alone, its sign on bit 15.
  const Expr tyWide = w(word[machine::kWordTyAt + 1]), tySigned = w(word[machine::kWordTyAt + 2]);
  const WireId mulWideOperands = c.step("MUL 4-byte operands", tyWide - 1);
  const WireId mulSigned = c.step("MUL signed, 4 bytes", tySigned + tyWide - 2);
  const WireId mulSignedNarrow = c.step("MUL signed, 2 bytes", tySigned - tyWide - 1);
  std::vector<Bus> products;
  for (uint32_t l = 0; l < 4; ++l) {
    const Bus& a = operands.selected[l];
    const Bus& b = operands.selected[4 + l];
    const Bus& cc = operands.selected[8 + l];
    const std::string n = fmt::format("l{} MUL", l);
    // c enters as proven bits (its read is an exclusiveOr: a bit by declaration only, and its
    // channel holds a memory read's re-quantisers), one level after its read; the partial
    // products wait for them, so that each digit is one channel written by one level.
    std::vector<WireId> cBits;
    for (uint32_t j = 0; j < 32; ++j)
      cBits.push_back(c.step(fmt::format("{} c[{}]", n, j), w(cc[j]) - 1, int64_t{1} << (j % 6)));
    std::vector<Expr> digits =
        productDigitsTwoWidths(c, n, Bus(a.begin(), a.begin() + 32), Bus(b.begin(), b.begin() + 32), mulWideOperands,
                               mulSigned, mulSignedNarrow, 64);
    for (size_t d = 0; d < digits.size(); ++d) {
      for (const Term& t : digits[d].terms) c.notBefore(t.wire, cBits[0]);
      for (uint32_t j = 6 * static_cast<uint32_t>(d); j < std::min<uint32_t>(32, 6 * static_cast<uint32_t>(d) + 6); ++j)
        digits[d] += w(cBits[j]);
      digits[d] = w(c.channel(fmt::format("{}.digit{}", n, d), digits[d]));
    }
    products.push_back(digitsToBits(c, n, digits, 0, 64));
  }
  // The multiplier's halves by op (4-byte operands): MULLO, MADLO the low one, MULWIDE
  // both (of 2-byte operands: the low one), MULHI the high one moved down. (MADWIDE's addend is 64 bits: c's high half is not
  // read, for channels, and no corpus kernel has one.) MULLO and MADLO of 1 or 2 bytes too:
  // a product's (and sum's) low w bytes depend only on the operands' low w bytes, whatever
  // the signedness and the bits above, so the 32-bit product cut to the width is theirs.
  // (PTX has no 8-bit multiply: bits 0-7 take the 2-byte class's selectors.)
  std::vector<Expr> mulLow;  // by the bit's width class (1, 2)
  for (uint32_t t = 1; t < 3; ++t) mulLow.push_back(w(opFits(MOp::MulLo, t)) + w(opFits(MOp::MadLo, t)));
  const Expr mulWideLow = w(opFits(MOp::MulWide, 1)), mulWideHigh = w(opFits(MOp::MulWide, 2));
  const WireId mulHigh = opFits(MOp::MulHi, 2);
  std::vector<Bus> aluPart;  // per lane: the ALU's result terms, one channel per bit
  for (uint32_t l = 0; l < 4; ++l) {
    const Bus& a = operands.selected[l];
    const Bus& b = operands.selected[4 + l];
    const Bus& p = operands.selected[8 + l];  // SELP's predicate: c's bit 0
    const std::string lane = fmt::format("l{}", l);
    std::vector<Expr> added;
    // The low chunk's carries (into bits 1 .. 11) are thresholds here, [pair + cin >= 2] and
    // the bit's ADD or SUB (addSubCarries' lowPairs), each shared by the two bits that read it.
    const std::vector<Expr>& carry = sums[l].carry;
    const std::vector<Expr>& lowPairs = sums[l].lowPairs;
    std::map<std::pair<size_t, uint32_t>, Expr> lowCarry;
    auto carryInto = [&](size_t j, uint32_t t) -> Expr {
      if (j == 0 || j > lowPairs.size()) return Expr(0);
      auto [it, fresh] = lowCarry.try_emplace({j, t});
      if (fresh)
        it->second = w(c.step(fmt::format("{} add.carry[{}] class {}", lane, j, t),
                              3 * (w(addSel[t]) + w(subSel[t])) + lowPairs[j - 1] + carry[0] - 5));  // pair + cin <= 3
      return it->second;
    };
    auto inGate = [&](size_t j) { return j == 0 || j > lowPairs.size() ? carry[j] : Expr(0); };
    for (uint32_t i = 0; i < 64; ++i) {
      const uint32_t t = widthClassOfBit(i);
      const Expr carries = inGate(i) - 2 * inGate(i + 1);
      // The sum bit is a linear form (a bit by the carries' values): a gate each, one neuron.
      added.push_back(w(c.gate(fmt::format("{} ADD[{}]", lane, i), addSel[t], w(a[i]) + w(b[i]) + carries)) +
                      w(c.gate(fmt::format("{} SUB[{}]", lane, i), subSel[t], w(a[i]) + 1 - w(b[i]) + carries)) +
                      carryInto(i, t) - 2 * carryInto(i + 1, t));
    }
    // ---- SETP: digits of 8-bit chunks, then every code as one threshold ----
    std::vector<Expr> digit(8), signedDigit(kWidthClasses);
    for (uint32_t m = 0; m < 8; ++m) {
      const std::string n = fmt::format("{} chunk {}", lane, m);
      // beside the adder's second level: the operands are read then anyway
      auto late = [&](WireId x) { c.notBefore(x, beforeResult); };
      digit[m] = chunkDigit(c, n, chunkValue(a, m), chunkValue(b, m), late);
      for (uint32_t t = 0; t < kWidthClasses; ++t) {
        if (m + 1 != (1u << t)) continue;
        // The width's sign bit (the chunk's top bit) counts as -2^7.
        signedDigit[t] = chunkDigit(c, n + " signed", signedChunkValue(a, m), signedChunkValue(b, m), late);
      }
    }
    constexpr int64_t M = int64_t{1} << 9;  // beyond |D| < 2^8: a closed selector wins
    Expr setp(0);
    for (uint32_t t = 0; t < kWidthClasses; ++t) {
      const uint32_t top = (1u << t) - 1;
      Expr D[2];
      for (uint32_t s = 0; s < 2; ++s) {
        for (uint32_t m = 0; m < top; ++m) D[s] += (int64_t{1} << m) * digit[m];
        D[s] += (int64_t{1} << top) * (s ? signedDigit[t] : digit[top]);
      }
      const std::string n = fmt::format("{} SETP width {}", lane, t);
      const Expr widthHolds = M * (w(setpWidth[t]) - 1);
      for (uint32_t s = 0; s < 2; ++s) {
        auto sel = [&](uint32_t k) { return M * (w(signedSel[k][s]) - 1) + widthHolds; };
        auto th = [&](const char* what, const Expr& cond) { return w(c.step(fmt::format("{} s{} {}", n, s, what), cond)); };
        const Expr& d = D[s];
        // Every code a sum of thresholds that are all 0 unless its selectors hold: eq is
        // [d >= 0] - [d >= 1], ne [d >= 1] + [d <= -1].
        setp += th("eq1", d + sel(0)) - th("eq2", d - 1 + sel(0));
        setp += th("ne1", d - 1 + sel(1)) + th("ne2", -d - 1 + sel(1));
        setp += th("lt", -d - 1 + sel(2)) + th("le", -d + sel(3)) + th("gt", d - 1 + sel(4)) + th("ge", d + sel(5));
      }
      auto usel = [&](uint32_t k) { return M * (w(unsignedSel[k]) - 1) + widthHolds; };
      auto uth = [&](const char* what, const Expr& cond) { return w(c.step(fmt::format("{} {}", n, what), cond)); };
      const Expr& u = D[0];
      setp += uth("lo", -u - 1 + usel(0)) + uth("ls", -u + usel(1)) + uth("hi", u - 1 + usel(2)) + uth("hs", u + usel(3));
    }
    // ---- the logic ops (b and c are none where the op does not read them: 0), and the
    // result select: OR and MOV are [a + b >= 1], AND [a + b >= 2], XOR their difference ----
    Bus result;
    for (uint32_t i = 0; i < 64; ++i) {
      const uint32_t k = widthClassOfBit(i);
      const Expr ai = w(a[i]), bi = w(b[i]), pi = w(p[0]);
      const std::string n = fmt::format("{} d[{}]", lane, i);
      Expr logic = added[i];
      logic += w(c.step(n + " or/xor/mov", 2 * (w(orSel[k]) + w(xorSel[k]) + w(movSel[k])) + ai + bi - 3));
      logic += w(c.step(n + " and", 3 * w(andSel[k]) + ai + bi - 5));
      logic -= w(c.step(n + " xor carry", 3 * w(xorSel[k]) + ai + bi - 5));
      logic += w(c.gate(n + " not", notSel[k], 1 - ai));
      logic += w(c.step(n + " selp a", w(selpSel[k]) + pi + ai - 3)) + w(c.step(n + " selp b", w(selpSel[k]) - pi + bi - 2));
      if (i == 0) {
        logic += setp;
        logic += w(c.gate(n + " CARRY 4 bytes", carry4, sums[l].carry[32])) + w(c.gate(n + " CARRY 8 bytes", carry8, sums[l].carry[64]));
      }
      // The adder's, logic ops' and SETP's terms at their level, where a, b and the adder's
      // carries are read last; SHFL's value pick one level on.
      Expr r = w(c.exclusiveOr(n + " ADD/logic/SETP", logic));
      if (i < 32) r += w(shfl.result[l][i]);
      // The ALU's terms in one channel at their level; the multiplier's and the shifter's
      // are deeper.
      result.push_back(c.exclusiveOr(fmt::format("{} ALU result[{}]", lane, i), r));
    }
    aluPart.push_back(std::move(result));
  }
  // ---- VOTE (members, ballot bits, modes: three levels after the ALU's result level, joining
  // the result with the multiplier's and the shifter's terms: beside the ALU its channels put
  // the joined step's layer 19 over 2,048). Members are b's low bits and the live
  // lanes, the warp's valid lanes that have not exited. The step keeps no exited mask, but
  // while exits run at SIMT depth 1 only (the control follows no other: step_control.cpp) they
  // are the running lanes wherever the depth is 1, so a one-slot bank written at every
  // position at depth 1 holds them — the current position's own when it is at depth 1 (a
  // DeltaNet read sees its position's write). Warps switch at depth 1 (a BAR below it would
  // have lanes missing; CALL, whose entry holds every lane, is not compiled), so the slot's
  // last write is the running warp's ----
  std::vector<WireId> voteMode;
  for (uint32_t m = 0; m < 4; ++m)
    voteMode.push_back(selector(fmt::format("VOTE mode {}", m), isOp(MOp::Vote) + matches(word, machine::kWordFlAt, 2, m) - 2));
  Expr deeper;
  for (WireId d : front.sequencer.depth) deeper += w(d);
  MemoryBank depthOne;
  depthOne.writeKey = {front.sequencer.machineToken};
  depthOne.readKey = {front.sequencer.machineToken};
  // The bank's data beside the active lanes (the mask is read there anyway): computed where
  // the mask is, the read's 4 bits would pass layer 10, the step's widest; [depth = 1] early,
  // where the depth's 5 bits are read.
  depthOne.writeEnable = w(c.step("SIMT depth 1", -deeper));
  for (uint32_t k = 0; k < 4; ++k) {  // the sequencer's mask is a form: the bank takes proven bits
    depthOne.data.push_back(c.step(fmt::format("running lane {} (bit)", k), w(front.sequencer.mask[k]) - 1));
    c.notBefore(depthOne.data.back(), out.active[0]);
  }
  const Bus live = c.memoryRead("live lanes (running at depth 1)", {std::move(depthOne)});
  std::vector<Bus> members;
  Bus predicate;
  for (uint32_t l = 0; l < 4; ++l) {
    Bus m;
    for (uint32_t k = 0; k < 4; ++k) {
      m.push_back(c.step(fmt::format("l{} VOTE member {}", l, k), w(operands.selected[4 + l][k]) + w(live[k]) - 2));
      c.notBefore(m.back(), aluPart[0][0], 1);
    }
    members.push_back(std::move(m));
    predicate.push_back(operands.selected[l][0]);
  }
  const std::vector<Bus> vote =
      buildVote(c, "VOTE ", voteMode, word[machine::kWordFlAt + 2], out.active, predicate, members);
  const ShifterWires shifter = buildShifter(c, word, operands, operands.selected[8][0], aluPart[0][0]);
  const std::vector<Bus> unary = buildIntUnary(c, word, operands, beforeResult, aluPart[0][0]);
  for (uint32_t l = 0; l < 4; ++l) {
    Bus result;
    const std::string lane = fmt::format("l{}", l);
    std::vector<Expr> early, unaryTerms, late;  // by level: the ALU's, NEG/CVTI's, the shifter's and multiplier's
    for (uint32_t i = 0; i < 64; ++i) {
      Expr deep = shifter.result[l][i];
      deep += w(andStep(c, fmt::format("{} MUL[{}]", lane, i), {w(products[l][i]), i < 32 ? mulLow[i < 16 ? 0 : 1] + mulWideLow : mulWideHigh}));
      if (i < 32) deep += w(andStep(c, fmt::format("{} MULHI[{}]", lane, i), {w(products[l][i + 32]), w(mulHigh)}));
      if (i < 4) deep += w(vote[l][i]);
      result.push_back(c.exclusiveOr(fmt::format("{} result[{}]", lane, i), w(aluPart[l][i]) + w(unary[l][i]) + deep));
      early.push_back(w(aluPart[l][i]));
      unaryTerms.push_back(w(unary[l][i]));
      late.push_back(std::move(deep));
    }
    out.result.push_back(std::move(result));
    const PackedBits first = accumulatePacked(c, lane + " ALU result", nullptr, early);
    const PackedBits second = accumulatePacked(c, lane + " ALU, NEG/CVTI result", &first, unaryTerms);
    out.packed.push_back(accumulatePacked(c, lane + " result", &second, late));
  }
  return out;
}

LaneBuses outputAlu(Circuit& c, const AluWires& alu) {
  LaneBuses lb;
  for (uint32_t l = 0; l < 4; ++l) {
    c.outputBus(fmt::format("l{} result", l), alu.result[l]);
    lb.results.push_back(alu.result[l]);
  }
  c.outputBus("active", alu.active);
  c.outputBus("SHFL undefined", alu.shuffleUndefined);
  lb.results.push_back(alu.active);
  lb.results.push_back(alu.shuffleUndefined);
  return lb;
}

Unit aluUnit() {
  Unit u{Circuit("alu"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const FrontWires front = buildFront(c);
  const OperandWires operands = buildOperandSelect(c, front);
  u.lanes.push_back(outputAlu(c, buildAlu(c, front, operands)));
  return u;
}

}  // namespace qgpu::compiler
