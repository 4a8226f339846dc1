// Unit test cases against the machine's functional units.
#include "unit_reference.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <stdexcept>

#include "qgpu/compiler/write_form.h"
#include "qgpu/machine/control.h"  // the references
#include "qgpu/machine/tokens.h"
#include "qgpu/machine/units.h"

namespace qgpu::compiler {
namespace {

uint64_t mask(uint32_t bits) { return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

struct Assign {
  std::map<WireId, int64_t> v;
  void bus(const Bus& b, uint64_t x) {
    for (size_t i = 0; i < b.size(); ++i) v[b[i]] = static_cast<int64_t>((x >> i) & 1);
  }
  std::vector<int64_t> inputs(const Circuit& c) const {
    std::vector<int64_t> out;
    for (WireId id : c.inputs()) out.push_back(v.at(id));
    return out;
  }
};

void pushBits(std::vector<int64_t>& out, uint64_t x, uint32_t bits) {
  for (uint32_t i = 0; i < bits; ++i) out.push_back(static_cast<int64_t>((x >> i) & 1));
}

machine::MInstr instr(machine::MOp op, uint32_t bytes, bool isSigned, uint8_t fl = 0) {
  machine::MInstr in;
  in.op = op;
  in.ty = machine::typeCode(bytes, isSigned);
  in.fl = fl;
  return in;
}

UnitCase binaryCase(const std::string& name, std::function<Unit()> build, machine::MOp op, uint32_t bits) {
  return {name, std::move(build), [op, bits](const Unit& u, std::mt19937_64& rng, int index) {
            UnitSample s;
            Assign as;
            const machine::MInstr in = instr(op, bits / 8, false);
            for (size_t l = 0; l < u.lanes.size(); ++l) {
              uint64_t a = operand(rng, bits, index * 7 + static_cast<int>(l)), b = operand(rng, bits, index * 5 + 3 * static_cast<int>(l) + 1);
              as.bus(u.lanes[l].operands[0], a);
              as.bus(u.lanes[l].operands[1], b);
              pushBits(s.expected, machine::computeLane(in, a, b, 0), bits);
              s.describe += fmt::format("lane {}: {:#x} {} {:#x}; ", l, a, machine::opName(op), b);
            }
            s.inputs = as.inputs(u.circuit);
            return s;
          }};
}

UnitCase logicCase(uint32_t bits) {
  return {fmt::format("logic{}", bits), [bits] { return logicUnit(bits, 4); },
          [bits](const Unit& u, std::mt19937_64& rng, int index) {
            static const machine::MOp ops[] = {machine::MOp::And, machine::MOp::Or,  machine::MOp::Xor,
                                               machine::MOp::Not, machine::MOp::Mov, machine::MOp::Selp};
            UnitSample s;
            Assign as;
            const size_t op = rng() % 6;
            for (size_t k = 0; k < u.selectors.size(); ++k) as.v[u.selectors[k]] = k == op ? 1 : 0;
            const machine::MInstr in = instr(ops[op], bits / 8, false);
            for (size_t l = 0; l < u.lanes.size(); ++l) {
              uint64_t a = operand(rng, bits, index + static_cast<int>(l)), b = operand(rng, bits, index * 3 + 1), p = rng() & 1;
              as.bus(u.lanes[l].operands[0], a);
              as.bus(u.lanes[l].operands[1], b);
              as.bus(u.lanes[l].operands[2], p);
              pushBits(s.expected, machine::computeLane(in, a, b, p), bits);
              s.describe += fmt::format("lane {}: {} {:#x} {:#x} p={}; ", l, logicOps()[op], a, b, p);
            }
            s.inputs = as.inputs(u.circuit);
            return s;
          }};
}

UnitCase compareCase(uint32_t bits, bool isSigned) {
  return {fmt::format("setp_{}{}", isSigned ? "s" : "u", bits), [=] { return compareUnit(bits, 4, isSigned); },
          [=](const Unit& u, std::mt19937_64& rng, int index) {
            UnitSample s;
            Assign as;
            const size_t code = rng() % compareCodes().size();
            for (size_t k = 0; k < u.selectors.size(); ++k) as.v[u.selectors[k]] = k == code ? 1 : 0;
            const machine::MInstr in = instr(machine::MOp::Setp, bits / 8, isSigned, static_cast<uint8_t>(code));
            for (size_t l = 0; l < u.lanes.size(); ++l) {
              uint64_t a = operand(rng, bits, index + static_cast<int>(l));
              // Equal operands and neighbours often enough to test eq/le/ge edges.
              uint64_t b = (rng() % 4 == 0) ? (a + (rng() % 3) - 1) & mask(bits) : operand(rng, bits, index * 3 + 2);
              as.bus(u.lanes[l].operands[0], a);
              as.bus(u.lanes[l].operands[1], b);
              s.expected.push_back(static_cast<int64_t>(machine::computeLane(in, a, b, 0)));
              s.describe += fmt::format("lane {}: setp.{} {:#x} {:#x}; ", l, compareCodes()[code], a, b);
            }
            s.inputs = as.inputs(u.circuit);
            return s;
          }};
}

UnitCase shuffleCase() {
  return {"shfl32", [] { return shuffleUnit(32, 4); }, [](const Unit& u, std::mt19937_64& rng, int index) {
            UnitSample s;
            Assign as;
            std::vector<uint64_t> v(u.lanes.size());
            for (size_t l = 0; l < u.lanes.size(); ++l) {
              v[l] = operand(rng, 32, index + static_cast<int>(l));
              as.bus(u.lanes[l].operands[0], v[l]);
            }
            for (size_t l = 0; l < u.lanes.size(); ++l) {
              const size_t src = rng() % u.lanes.size();
              as.bus(u.lanes[l].operands[1], uint64_t{1} << src);
              pushBits(s.expected, v[src], 32);
              s.describe += fmt::format("lane {} reads lane {}; ", l, src);
            }
            s.inputs = as.inputs(u.circuit);
            return s;
          }};
}

UnitCase shuffleFullCase() {
  return {"shfl", [] { return shuffleFullUnit(4); }, [](const Unit& u, std::mt19937_64& rng, int index) {
            UnitSample s;
            Assign as;
            const uint32_t mode = static_cast<uint32_t>(rng() % 4);
            for (size_t k = 0; k < u.selectors.size(); ++k) as.v[u.selectors[k]] = k == mode ? 1 : 0;
            const uint32_t eff = static_cast<uint32_t>(rng() % 15) + 1;
            as.bus(u.shared.at(0), eff);
            std::vector<uint64_t> v(u.lanes.size());
            for (size_t l = 0; l < u.lanes.size(); ++l) v[l] = operand(rng, 32, index + static_cast<int>(l));
            for (size_t l = 0; l < u.lanes.size(); ++l) {
              // b mostly a small offset; c mostly what nvcc writes for width-4 segments.
              const uint32_t b = static_cast<uint32_t>(rng() % 3 ? rng() % 5 : rng() % 32);
              const uint32_t c = static_cast<uint32_t>(rng() % 3 ? (0x1c << 8) | (mode == 0 ? 0 : 31)
                                                                 : ((rng() % 32) << 8) | (rng() % 32));
              as.bus(u.lanes[l].operands[0], v[l]);
              as.bus(u.lanes[l].operands[1], b);
              as.bus(u.lanes[l].operands[2], c & 31);
              as.bus(u.lanes[l].operands[3], (c >> 8) & 31);
              const uint32_t src = machine::shuffleSource(mode, static_cast<uint32_t>(l), b, c);
              const bool undefined = src >= 4 || !((eff >> src) & 1);
              pushBits(s.expected, src < 4 ? v[src] : 0, 32);
              s.expected.push_back(undefined ? 1 : 0);
              s.describe += fmt::format("lane {}: mode {} b={} c={:#x} -> src {}; ", l, mode, b, c, src);
            }
            s.inputs = as.inputs(u.circuit);
            return s;
          }};
}

UnitCase voteCase() {
  return {"vote", [] { return voteUnit(4); }, [](const Unit& u, std::mt19937_64& rng, int) {
            UnitSample s;
            Assign as;
            const uint32_t mode = static_cast<uint32_t>(rng() % 4);
            for (size_t k = 0; k < u.selectors.size(); ++k) as.v[u.selectors[k]] = k == mode ? 1 : 0;
            const bool negate = rng() & 1;
            const uint32_t eff = static_cast<uint32_t>(rng() % 16), pred = static_cast<uint32_t>(rng() % 16);
            as.bus(u.shared.at(0), eff);
            as.bus(u.shared.at(1), pred);
            as.bus(u.shared.at(2), negate);
            for (size_t l = 0; l < u.lanes.size(); ++l) {
              const uint32_t members = static_cast<uint32_t>(rng() % 2 ? 0xf : rng() % 16);
              as.bus(u.lanes[l].operands[0], members);
              pushBits(s.expected, machine::voteResult(mode, negate, eff, members, pred & eff), 4);
              s.describe += fmt::format("lane {}: mode {} neg {} eff {:#x} members {:#x} pred {:#x}; ", l, mode,
                                        negate, eff, members, pred);
            }
            s.inputs = as.inputs(u.circuit);
            return s;
          }};
}

// BRA: masks and predicates at random (empty masks included), code addresses with the
// equalities the decision tests (top rpc = c, pc + 1 = c, b = c) each made true often.
UnitCase branchCase() {
  UnitCase uc{"bra", [] { return branchUnit(4, 11); }, [](const Unit& u, std::mt19937_64& rng, int) {
            UnitSample s;
            Assign as;
            const bool guard = rng() % 4 != 0, negated = rng() & 1;
            as.v[u.selectors[0]] = guard;
            as.v[u.selectors[1]] = negated;
            const uint32_t mask = static_cast<uint32_t>(rng() % 16), pred = static_cast<uint32_t>(rng() % 16);
            const uint32_t pc = static_cast<uint32_t>(rng() % 1024), rpc = rng() % 3 == 0 ? pc + 1 : static_cast<uint32_t>(rng() % 1024);
            const uint32_t target = rng() % 3 == 0 ? rpc : static_cast<uint32_t>(rng() % 1024);
            const uint32_t topRpc = rng() % 2 ? rpc : static_cast<uint32_t>(rng() % 1025);
            const LaneBuses& lb = u.lanes[0];
            as.bus(lb.operands[0], mask);
            as.bus(lb.operands[1], pred);
            as.bus(lb.operands[2], pc);
            as.bus(lb.operands[3], target);
            as.bus(lb.operands[4], rpc);
            as.bus(lb.operands[5], topRpc);
            const uint32_t taken = machine::guardedMask(mask, guard, negated, pred);
            const machine::BranchUpdate bu = machine::branchUpdate(mask, taken, pc, target, rpc, topRpc);
            pushBits(s.expected, taken, 4);
            pushBits(s.expected, bu.notTaken, 4);
            const bool diverged = bu.kind == machine::BranchUpdate::Kind::Diverged;
            for (bool b : {bu.kind == machine::BranchUpdate::Kind::NoneTaken, bu.kind == machine::BranchUpdate::Kind::AllTaken,
                           diverged, diverged && bu.popTop, diverged && bu.pushFallthrough, diverged && bu.pushTaken})
              s.expected.push_back(b ? 1 : 0);
            pushBits(s.expected, bu.topPc, 11);
            s.describe = fmt::format("bra guard {} neg {} mask {:#x} pred {:#x} pc {} b {} c {} top.rpc {}", guard, negated, mask,
                                     pred, pc, target, rpc, topRpc);
            s.inputs = as.inputs(u.circuit);
            return s;
          }};
  uc.bigBatch = 100000;  // one warp-level decision per position: 10^5 of them
  return uc;
}

UnitCase exitCase() {
  UnitCase uc{"exit", [] { return exitUnit(4, 32); }, [](const Unit& u, std::mt19937_64& rng, int) {
                UnitSample s;
                Assign as;
                const bool guard = rng() % 4 != 0, negated = rng() & 1;
                as.v[u.selectors[0]] = guard;
                as.v[u.selectors[1]] = negated;
                const uint32_t mask = static_cast<uint32_t>(rng() % 16), pred = static_cast<uint32_t>(rng() % 16);
                const uint32_t exited = static_cast<uint32_t>(rng() % 16) & ~mask;  // exited lanes are in no mask
                const LaneBuses& lb = u.lanes[0];
                as.bus(lb.operands[0], mask);
                as.bus(lb.operands[1], pred);
                as.bus(lb.operands[2], exited);
                const uint32_t exiting = machine::guardedMask(mask, guard, negated, pred);
                pushBits(s.expected, exiting, 4);
                pushBits(s.expected, machine::exitedAfterExit(exited, exiting), 4);
                for (size_t e = 3; e < lb.operands.size(); ++e) {
                  const uint32_t m = static_cast<uint32_t>(rng() % 16) & ~exited;
                  as.bus(lb.operands[e], m);
                  pushBits(s.expected, machine::entryMaskAfterExit(m, exiting), 4);
                }
                s.describe = fmt::format("exit guard {} neg {} mask {:#x} pred {:#x} exited {:#x}", guard, negated, mask,
                                         pred, exited);
                s.inputs = as.inputs(u.circuit);
                return s;
              }};
  uc.bigBatch = 100000;  // one warp-level decision per position: 10^5 of them
  return uc;
}

// --- f32 adder ---
// f32 operands: specials (signed zeros, infinities, NaNs with payloads), subnormals, the
// largest finite, and random values; b is often tied to a (cancellation, exponent
// differences 0..30 and beyond, half-ulp ties, neighbours, overflow partners).
uint32_t f32Edge(std::mt19937_64& rng) {
  static const uint32_t edges[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001,
                                   0x7fbfffff, 0xffffffff, 0x7f7fffff, 0xff7fffff, 0x00800000, 0x80800000, 0x00000001,
                                   0x80000001, 0x007fffff, 0x807fffff, 0x00400000, 0x3f800000, 0xbf800000, 0x3f7fffff,
                                   0x4b000000, 0x7f000000, 0x00800001, 0x33800000};
  return edges[rng() % (sizeof edges / sizeof edges[0])];
}

uint32_t f32Operand(std::mt19937_64& rng) {
  const uint32_t r = static_cast<uint32_t>(rng() % 8), sign = static_cast<uint32_t>(rng() & 1) << 31;
  if (r == 0) return f32Edge(rng);
  if (r == 1) return sign | static_cast<uint32_t>(rng() & 0x007fffff);  // subnormal
  if (r == 2) return sign | (static_cast<uint32_t>(rng() % 8) << 23) | static_cast<uint32_t>(rng() & 0x7fffff);  // tiny
  if (r == 3) return sign | (static_cast<uint32_t>(247 + rng() % 8) << 23) | static_cast<uint32_t>(rng() & 0x7fffff);  // huge
  if (r == 4) return sign | (static_cast<uint32_t>(rng() % 255) << 23) | (rng() % 2 ? 0u : static_cast<uint32_t>(rng() & 0x7fffff));
  return static_cast<uint32_t>(rng());
}

uint32_t f32Partner(std::mt19937_64& rng, uint32_t a) {
  const uint32_t r = static_cast<uint32_t>(rng() % 10), sign = static_cast<uint32_t>(rng() & 1) << 31;
  const int ea = static_cast<int>((a >> 23) & 0xff);
  const uint32_t frac = static_cast<uint32_t>(rng() & 0x7fffff);
  auto withExp = [&](int e, uint32_t f) { return sign | (static_cast<uint32_t>(std::clamp(e, 0, 254)) << 23) | f; };
  switch (r) {
    case 0: return a ^ 0x80000000u;  // x + (-x), and x - x under FSUB's sign flip
    case 1: return a;
    case 2: return withExp(ea - static_cast<int>(rng() % 31), rng() % 3 ? frac : 0);  // differences 0..30
    case 3: return withExp(ea - 24 - static_cast<int>(rng() % 2), rng() % 2 ? 0 : (rng() % 2 ? frac : 1));  // ties
    case 4: return withExp(ea - 25 - static_cast<int>(rng() % 40), frac);  // difference > 24: sticky only
    case 5: return ((a ^ (rng() % 2 ? 0x80000000u : 0)) + static_cast<uint32_t>(rng() % 5) - 2);  // neighbours
    case 6: return withExp(254 - static_cast<int>(rng() % 2), frac);  // overflow partners
    default: return f32Operand(rng);
  }
}

UnitCase faddCase() {
  return {"fadd32", [] { return faddUnit(4); }, [](const Unit& u, std::mt19937_64& rng, int index) {
            UnitSample s;
            Assign as;
            // Selectors: rounding one-hot, then sub, ftz, sat. ftz and sat each a quarter of the time.
            const uint32_t mode = static_cast<uint32_t>(rng() % 4);
            const bool sub = rng() & 1, ftz = rng() % 4 == 0, sat = rng() % 4 == 0;
            for (uint32_t k = 0; k < 4; ++k) as.v[u.selectors[k]] = k == mode ? 1 : 0;
            as.v[u.selectors[4]] = sub;
            as.v[u.selectors[5]] = ftz;
            as.v[u.selectors[6]] = sat;
            const uint8_t fl = static_cast<uint8_t>((ftz ? machine::kFlFtz : 0) | (sat ? machine::kFlSat : 0) | (mode << 2));
            const machine::MInstr in = instr(sub ? machine::MOp::FSub : machine::MOp::FAdd, 4, false, fl);
            for (size_t l = 0; l < u.lanes.size(); ++l) {
              uint32_t a = f32Operand(rng), b = f32Partner(rng, a);
              if ((index + l) % 2) std::swap(a, b);
              as.bus(u.lanes[l].operands[0], a);
              as.bus(u.lanes[l].operands[1], b);
              pushBits(s.expected, machine::computeLane(in, a, b, 0), 32);
              s.describe += fmt::format("lane {}: {} {:#010x} {:#010x} fl={:#x}; ", l, sub ? "fsub" : "fadd", a, b, fl);
            }
            s.inputs = as.inputs(u.circuit);
            return s;
          }};
}
// --- end f32 adder ---

// Selectors rn rz rm rp (one-hot), ftz, sat (each a quarter of the time), set at random:
// the machine's fl bits for the same choice.
uint8_t randomFloatModes(Assign& as, const Unit& u, std::mt19937_64& rng) {
  const uint32_t mode = static_cast<uint32_t>(rng() % 4);
  const bool ftz = rng() % 4 == 0, sat = rng() % 4 == 0;
  for (uint32_t k = 0; k < 4; ++k) as.v[u.selectors[k]] = k == mode ? 1 : 0;
  as.v[u.selectors[4]] = ftz;
  as.v[u.selectors[5]] = sat;
  return static_cast<uint8_t>((ftz ? machine::kFlFtz : 0) | (sat ? machine::kFlSat : 0) | (mode << 2));
}

// FMUL: operands as FADD's, the partner often chosen so that the product lands near the
// overflow and underflow thresholds, in the subnormal range, or on a rounding tie.
uint32_t fmulPartner(std::mt19937_64& rng, uint32_t a) {
  const uint32_t sign = static_cast<uint32_t>(rng() & 1) << 31, frac = static_cast<uint32_t>(rng() & 0x7fffff);
  const int ea = static_cast<int>((a >> 23) & 0xff);
  auto withExp = [&](int e, uint32_t f) { return sign | (static_cast<uint32_t>(std::clamp(e, 0, 254)) << 23) | f; };
  switch (rng() % 8) {
    case 0: return withExp(254 - ea + static_cast<int>(rng() % 5) - 2, frac);      // product near 2^128
    case 1: return withExp(128 - ea - static_cast<int>(rng() % 26), frac);         // near the subnormal range
    case 2: return withExp(104 - ea - static_cast<int>(rng() % 4), frac);          // near half the least subnormal
    case 3: return withExp(static_cast<int>(rng() % 255), rng() % 2 ? 0 : frac & 0x7ff000);  // few bits: exact, ties
    default: return f32Partner(rng, a);
  }
}

// FFMA: c often near -a*b (cancellation: c = the rounded product, its neighbours), far
// above or below it (the shortcut, sticky-only addends), or a special.
uint32_t ffmaAddend(std::mt19937_64& rng, uint32_t a, uint32_t b) {
  const float p = std::bit_cast<float>(a) * std::bit_cast<float>(b);
  const uint32_t pb = std::bit_cast<uint32_t>(p), sign = static_cast<uint32_t>(rng() & 1) << 31;
  const int ep = static_cast<int>((pb >> 23) & 0xff);
  const uint32_t frac = static_cast<uint32_t>(rng() & 0x7fffff);
  auto withExp = [&](int e, uint32_t f) { return sign | (static_cast<uint32_t>(std::clamp(e, 0, 254)) << 23) | f; };
  switch (rng() % 9) {
    case 0: return pb ^ 0x80000000u;                                           // -round(ab): the rounding error
    case 1: return (pb ^ 0x80000000u) + static_cast<uint32_t>(rng() % 5) - 2;  // its neighbours
    case 2: return withExp(ep + static_cast<int>(rng() % 60) - 30, frac);        // overlapping
    case 3: return withExp(ep + 24 + static_cast<int>(rng() % 40), frac);        // far above: the shortcut
    case 4: return withExp(ep - 24 - static_cast<int>(rng() % 40), frac);        // far below: sticky
    case 5: return f32Edge(rng);
    default: return f32Operand(rng);
  }
}

UnitCase ffmaCase() {
  UnitCase uc{"ffma32x1", [] { return ffmaUnit(1); }, [](const Unit& u, std::mt19937_64& rng, int index) {
                UnitSample s;
                Assign as;
                const machine::MInstr in = instr(machine::MOp::FFma, 4, false, randomFloatModes(as, u, rng));
                for (size_t l = 0; l < u.lanes.size(); ++l) {
                  uint32_t a = f32Operand(rng), b = fmulPartner(rng, a);
                  if ((index + l) % 2) std::swap(a, b);
                  const uint32_t c = ffmaAddend(rng, a, b);
                  as.bus(u.lanes[l].operands[0], a);
                  as.bus(u.lanes[l].operands[1], b);
                  as.bus(u.lanes[l].operands[2], c);
                  pushBits(s.expected, machine::computeLane(in, a, b, c), 32);
                  s.describe += fmt::format("lane {}: ffma {:#010x} {:#010x} {:#010x} fl={:#x}; ", l, a, b, c, in.fl);
                }
                s.inputs = as.inputs(u.circuit);
                return s;
              }};
  uc.bigBatch = 100000;  // one lane: 10^5 positions
  uc.smallBatch = 100;
  return uc;
}

UnitCase fmulCase() {
  UnitCase uc{"fmul32", [] { return fmulUnit(4); }, [](const Unit& u, std::mt19937_64& rng, int index) {
            UnitSample s;
            Assign as;
            const machine::MInstr in = instr(machine::MOp::FMul, 4, false, randomFloatModes(as, u, rng));
            for (size_t l = 0; l < u.lanes.size(); ++l) {
              uint32_t a = f32Operand(rng), b = fmulPartner(rng, a);
              if ((index + l) % 2) std::swap(a, b);
              as.bus(u.lanes[l].operands[0], a);
              as.bus(u.lanes[l].operands[1], b);
              pushBits(s.expected, machine::computeLane(in, a, b, 0), 32);
              s.describe += fmt::format("lane {}: fmul {:#010x} {:#010x} fl={:#x}; ", l, a, b, in.fl);
            }
            s.inputs = as.inputs(u.circuit);
            return s;
          }};
  uc.smallBatch = 100;
  return uc;
}

// --- multiplier cases (MULLO MULHI MULWIDE) ---
// a * b per lane against the machine's multiplier; operands mix the edge values of
// operand() (0, 1, -1, INT_MIN, INT_MAX and their neighbours, chunk boundaries) with
// random ones, independently per operand.
UnitCase mulCase(const std::string& name, MulPart part, bool isSigned) {
  const machine::MOp op = part == MulPart::Lo ? machine::MOp::MulLo : part == MulPart::Hi ? machine::MOp::MulHi : machine::MOp::MulWide;
  const uint32_t outBits = part == MulPart::Wide ? 64 : 32;
  UnitCase uc{name, [=] { return multiplyUnit(32, 4, isSigned, part); },
          [=](const Unit& u, std::mt19937_64& rng, int index) {
            UnitSample s;
            Assign as;
            // MULLO's result does not depend on the signedness: either ty, at random.
            const machine::MInstr in = instr(op, 4, part == MulPart::Lo ? (rng() & 1) != 0 : isSigned);
            for (size_t l = 0; l < u.lanes.size(); ++l) {
              const int k = static_cast<int>(rng() % 3);
              uint64_t a = operand(rng, 32, index + k + static_cast<int>(l)), b = operand(rng, 32, index * 2 + static_cast<int>(l));
              as.bus(u.lanes[l].operands[0], a);
              as.bus(u.lanes[l].operands[1], b);
              pushBits(s.expected, machine::computeLane(in, a, b, 0), outBits);
              s.describe += fmt::format("lane {}: {} {:#x} {:#x}; ", l, machine::opName(op), a, b);
            }
            s.inputs = as.inputs(u.circuit);
            return s;
          }};
  uc.smallBatch = 100;  // six layers of 2048 x ~2800: the dense decode is the costly part
  return uc;
}
// The machine's multiplier (the 64-bit product, signed or unsigned at random per position):
// the expected value is the machine's MULWIDE, or its MULLO and MULHI as the two halves.
UnitCase multiplierCase() {
  UnitCase uc{"mul32", [] { return multiplierUnit(4); }, [](const Unit& u, std::mt19937_64& rng, int index) {
                UnitSample s;
                Assign as;
                const bool isSigned = (rng() & 1) != 0, halves = (rng() & 1) != 0;
                as.v[u.selectors[0]] = isSigned ? 1 : 0;
                for (size_t l = 0; l < u.lanes.size(); ++l) {
                  const int k = static_cast<int>(rng() % 3);
                  uint64_t a = operand(rng, 32, index + k + static_cast<int>(l)), b = operand(rng, 32, index * 2 + static_cast<int>(l));
                  as.bus(u.lanes[l].operands[0], a);
                  as.bus(u.lanes[l].operands[1], b);
                  const uint64_t p = halves ? machine::computeLane(instr(machine::MOp::MulLo, 4, isSigned), a, b, 0) |
                                                  machine::computeLane(instr(machine::MOp::MulHi, 4, isSigned), a, b, 0) << 32
                                            : machine::computeLane(instr(machine::MOp::MulWide, 4, isSigned), a, b, 0);
                  pushBits(s.expected, p, 64);
                  s.describe += fmt::format("lane {}: {} {:#x} {:#x}; ", l, halves ? (isSigned ? "mullo/mulhi.s" : "mullo/mulhi.u")
                                                                                    : (isSigned ? "mulwide.s" : "mulwide.u"), a, b);
                }
                s.inputs = as.inputs(u.circuit);
                return s;
              }};
  uc.smallBatch = 100;
  return uc;
}
// The ALU's multiplier core (productDigitsTwoWidths): 4-byte or 2-byte operands, signed or
// not, at random per position, with random bits above a 2-byte operand's width. The low 32
// bits are the machine's MULWIDE (both widths); the high 32 of a 4-byte product too, of a
// 2-byte one the core's own value, A*B - 2^16 (a_15 B + b_15 A) for signed (A, B the low
// halves) modulo 2^64, which no result select takes.
UnitCase mulTwoWidthsCase() {
  auto build = [] {
    Unit u{Circuit("mul32_two_widths"), {}, {}, {}, {}};
    Circuit& c = u.circuit;
    const WireId wide = c.inputBit("sel.wide"), signedWide = c.inputBit("sel.signed_wide"),
                 signedNarrow = c.inputBit("sel.signed_narrow");
    u.selectors = {wide, signedWide, signedNarrow};
    u.selectorNames = {"wide", "signed_wide", "signed_narrow"};
    for (uint32_t l = 0; l < 4; ++l) {
      LaneBuses lb;
      lb.operands.push_back(c.inputBus(fmt::format("l{}.a", l), 32));
      lb.operands.push_back(c.inputBus(fmt::format("l{}.b", l), 32));
      const std::string n = fmt::format("l{}", l);
      const std::vector<Expr> digits =
          productDigitsTwoWidths(c, n, lb.operands[0], lb.operands[1], wide, signedWide, signedNarrow, 64);
      lb.results.push_back(digitsToBits(c, n, digits, 0, 64));
      c.outputBus(n + ".d", lb.results[0]);
      u.lanes.push_back(std::move(lb));
    }
    return u;
  };
  UnitCase uc{"mul32_two_widths", build, [](const Unit& u, std::mt19937_64& rng, int index) {
                UnitSample s;
                Assign as;
                const bool isSigned = (rng() & 1) != 0, wide = (rng() & 1) != 0;
                as.v[u.selectors[0]] = wide ? 1 : 0;
                as.v[u.selectors[1]] = wide && isSigned ? 1 : 0;
                as.v[u.selectors[2]] = !wide && isSigned ? 1 : 0;
                const machine::MInstr in = instr(machine::MOp::MulWide, wide ? 4 : 2, isSigned);
                for (size_t l = 0; l < u.lanes.size(); ++l) {
                  const int k = static_cast<int>(rng() % 3);
                  uint64_t a = operand(rng, 32, index + k + static_cast<int>(l)), b = operand(rng, 32, index * 2 + static_cast<int>(l));
                  if (!wide && rng() % 2) {  // 2-byte edge values, with random bits above
                    a = (a & 0xffff0000u) | (operand(rng, 16, index + static_cast<int>(l)) & 0xffff);
                    b = (b & 0xffff0000u) | (operand(rng, 16, index + k) & 0xffff);
                  }
                  as.bus(u.lanes[l].operands[0], a);
                  as.bus(u.lanes[l].operands[1], b);
                  uint64_t p = machine::computeLane(in, a, b, 0);
                  if (!wide) {
                    const uint64_t A = a & 0xffff, B = b & 0xffff;
                    const uint64_t core = A * B - (isSigned ? (((a >> 15) & 1) * B + ((b >> 15) & 1) * A) << 16 : 0);
                    if ((core & 0xffffffffu) != p)
                      throw std::logic_error(fmt::format("mul.wide.{}16 {:#x} {:#x}: the core's low half is not MULWIDE's",
                                                         isSigned ? "s" : "u", a, b));
                    p = core;
                  }
                  pushBits(s.expected, p, 64);
                  s.describe += fmt::format("lane {}: mul.wide.{}{} {:#x} {:#x}; ", l, isSigned ? "s" : "u", wide ? 32 : 16, a, b);
                }
                s.inputs = as.inputs(u.circuit);
                return s;
              }};
  uc.smallBatch = 100;
  return uc;
}
// MUL24 (+ c, as mad24) of the low 24 bits, signed or unsigned at random per position.
UnitCase mul24Case(bool high) {
  UnitCase uc{high ? "mul24hi" : "mul24lo", [high] { return mul24Unit(4, high); },
              [high](const Unit& u, std::mt19937_64& rng, int index) {
                UnitSample s;
                Assign as;
                const bool isSigned = (rng() & 1) != 0;
                as.v[u.selectors[0]] = isSigned ? 1 : 0;
                const machine::MInstr in = instr(machine::MOp::Mul24, 4, isSigned, high ? 1 : 0);
                for (size_t l = 0; l < u.lanes.size(); ++l) {
                  const int k = static_cast<int>(rng() % 3);
                  const uint64_t a = operand(rng, 24, index + k + static_cast<int>(l)),
                                 b = operand(rng, 24, index * 2 + static_cast<int>(l)),
                                 c = rng() % 4 == 0 ? 0 : operand(rng, 32, index + 2 * k + static_cast<int>(l));
                  as.bus(u.lanes[l].operands[0], a);
                  as.bus(u.lanes[l].operands[1], b);
                  as.bus(u.lanes[l].operands[2], c);
                  pushBits(s.expected, machine::computeLane(in, a, b, c), 32);
                  s.describe += fmt::format("lane {}: mul24.{}.{} {:#x} {:#x} + {:#x}; ", l, high ? "hi" : "lo", isSigned ? "s" : "u", a, b, c);
                }
                s.inputs = as.inputs(u.circuit);
                return s;
              }};
  uc.smallBatch = 100;
  return uc;
}
// MULP, shift none or left 32: random halves (fl bits 0, 1) and ty signedness per position;
// the unit gets the chosen halves and their signedness, the machine the whole registers.
UnitCase mulpCase(bool shiftLeft32) {
  UnitCase uc{shiftLeft32 ? "mulp_shl32" : "mulp", [shiftLeft32] { return mulpUnit(4, shiftLeft32); },
              [shiftLeft32](const Unit& u, std::mt19937_64& rng, int index) {
                UnitSample s;
                Assign as;
                const bool isSigned = (rng() & 1) != 0, aHigh = (rng() & 1) != 0, bHigh = (rng() & 1) != 0;
                as.v[u.selectors[0]] = isSigned && aHigh ? 1 : 0;
                as.v[u.selectors[1]] = isSigned && bHigh ? 1 : 0;
                const uint8_t fl = static_cast<uint8_t>((aHigh ? machine::kFlMulAHigh : 0) | (bHigh ? machine::kFlMulBHigh : 0) |
                                                        (shiftLeft32 ? machine::kFlMulShl32 : 0));
                const machine::MInstr in = instr(machine::MOp::MulP, 8, isSigned, fl);
                for (size_t l = 0; l < u.lanes.size(); ++l) {
                  const int k = static_cast<int>(rng() % 3);
                  const uint64_t a = operand(rng, 64, index + k + static_cast<int>(l)),
                                 b = operand(rng, 64, index * 2 + static_cast<int>(l)),
                                 c = rng() % 4 == 0 ? 0 : operand(rng, 64, index + 2 * k + static_cast<int>(l));
                  as.bus(u.lanes[l].operands[0], aHigh ? a >> 32 : a & 0xffffffffu);
                  as.bus(u.lanes[l].operands[1], bHigh ? b >> 32 : b & 0xffffffffu);
                  as.bus(u.lanes[l].operands[2], c);
                  pushBits(s.expected, machine::computeLane(in, a, b, c), 64);
                  s.describe += fmt::format("lane {}: mulp fl={} {} {:#x} {:#x} + {:#x}; ", l, fl, isSigned ? "s" : "u", a, b, c);
                }
                s.inputs = as.inputs(u.circuit);
                return s;
              }};
  uc.smallBatch = 100;
  return uc;
}
// --- end multiplier cases ---

// The packed-operand read: every 16-bit chunk value appears (chunk j of lane l at sample i is
// (16 i + 4 l + j) * 40503 mod 2^16, a permutation: 4,096 samples cover all 65,536), with
// random chunks on odd samples beyond that; the expected bits are the chunks' own.
UnitCase unpackCase() {
  UnitCase uc{"unpack64", [] { return unpackUnit(4, 4); }, [](const Unit& u, std::mt19937_64& rng, int index) {
            UnitSample s;
            Assign as;
            for (size_t l = 0; l < u.lanes.size(); ++l) {
              uint64_t value = 0;
              for (uint32_t j = 0; j < 4; ++j) {
                const uint64_t k = static_cast<uint64_t>(index) * 16 + 4 * l + j;
                const uint64_t chunk = index >= 4096 && index % 2 ? rng() & 0xffff : (k * 40503) & 0xffff;
                as.v[u.lanes[l].operands[0][j]] = static_cast<int64_t>(chunk);
                value |= chunk << (16 * j);
              }
              pushBits(s.expected, value, 64);
              s.describe += fmt::format("lane {}: {:#018x}; ", l, value);
            }
            s.inputs = as.inputs(u.circuit);
            return s;
          }};
  return uc;
}

}  // namespace

uint64_t operand(std::mt19937_64& rng, uint32_t bits, int index) {
  const uint64_t m = mask(bits), top = uint64_t{1} << (bits - 1);
  const uint64_t edges[] = {0, 1, m, m - 1, top, top - 1, top + 1, 0xfff, 0x1000, 0xffffff, 0x1000000, 0xfff000,
                            0xffffffff, 0x100000000ull, 0x8000, 0x7fff, 0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull};
  const uint64_t r = rng();
  if (index % 3 == 0) return edges[r % (sizeof edges / sizeof edges[0])] & m;
  if (index % 3 == 1) return (edges[r % (sizeof edges / sizeof edges[0])] + (rng() % 5) - 2) & m;
  return r & m;
}

void PrintTo(const UnitCase& c, std::ostream* os) { *os << c.name; }

// A register write as the write-form decision sees it: values cut to the width, in the
// patterns each form is chosen for (uniform, small, affine with every lane pair, low half
// zero) and arbitrary ones, every lane mask and width.
struct WriteCase {
  std::array<uint64_t, 4> values{};
  uint32_t lanes = 0, bytes = 0;
};
WriteCase randomWrite(std::mt19937_64& rng, int index) {
  static const uint32_t widths[] = {1, 2, 4, 8};
  WriteCase wc;
  wc.bytes = widths[rng() % 4];
  wc.lanes = 1 + static_cast<uint32_t>(rng() % 15);
  const uint64_t base = rng() >> (rng() % 64), stride = rng() % 3 ? rng() % 9 : rng() >> (rng() % 64);
  for (uint32_t l = 0; l < 4; ++l) {
    switch (index % 6) {
      case 0: wc.values[l] = base; break;
      case 1: wc.values[l] = rng() % 16; break;
      case 2: wc.values[l] = base + stride * l; break;
      case 3: wc.values[l] = (rng() >> (rng() % 48)) << 16; break;
      case 4: wc.values[l] = l % 2 ? base : base + stride; break;  // off the line, equal pairs
      default: wc.values[l] = rng() >> (rng() % 64); break;
    }
    wc.values[l] &= mask(8 * wc.bytes);
  }
  return wc;
}

UnitCase writeFormCase() {
  UnitCase uc{"write_form", [] { return writeFormUnit(); }, [](const Unit& u, std::mt19937_64& rng, int index) {
                const WriteCase wc = randomWrite(rng, index);
                UnitSample s;
                s.inputs = writeFormInputs(wc.values, wc.lanes, wc.bytes);
                machine::WriteForm f;
                const std::vector<uint32_t> t = machine::encodeWrite(wc.values, wc.lanes, wc.bytes, &f);
                for (uint32_t k = 0; k < 5; ++k) s.expected.push_back(static_cast<uint32_t>(f) == k ? 1 : 0);
                s.expected.push_back(static_cast<int64_t>(t.size()));
                uint64_t base = 0, stride = 0;
                if (f == machine::WriteForm::Affine) {
                  machine::TokenReader r(t, 1);
                  base = r.value(wc.bytes);
                  stride = r.value(wc.bytes);
                }
                pushBits(s.expected, base, 64);
                pushBits(s.expected, stride, 64);
                s.describe = fmt::format("values {:#x} {:#x} {:#x} {:#x}, lanes {:#x}, {} bytes: {}", wc.values[0], wc.values[1],
                                         wc.values[2], wc.values[3], wc.lanes, wc.bytes, machine::writeFormName(f));
                (void)u;
                return s;
              }};
  uc.bigBatch = 100000;  // one write per position (the unit has no lanes of its own)
  return uc;
}

UnitCase writeTokenCase() {
  UnitCase uc{"write_token", [] { return writeTokenUnit(); }, [](const Unit& u, std::mt19937_64& rng, int index) {
                const WriteCase wc = randomWrite(rng, index);
                const std::vector<uint32_t> t = machine::encodeWrite(wc.values, wc.lanes, wc.bytes);
                const uint32_t k = static_cast<uint32_t>(rng() % t.size());
                UnitSample s;
                s.inputs = writeTokenInputs(wc.values, wc.lanes, wc.bytes, k);
                // kind and value of t[k], then whether it is the last.
                const std::optional<WriteTokenSpelling> sp = spellWriteToken(t[k]);
                if (!sp) throw std::logic_error("encodeWrite spelled no write token: " + machine::tokenName(t[k]));
                for (uint32_t j = 0; j < kWriteTokenKinds; ++j) s.expected.push_back(j == sp->kind ? 1 : 0);
                pushBits(s.expected, sp->value, 16);
                s.expected.push_back(k + 1 == t.size() ? 1 : 0);
                s.describe = fmt::format("values {:#x} {:#x} {:#x} {:#x}, lanes {:#x}, {} bytes, token {}: {}", wc.values[0],
                                         wc.values[1], wc.values[2], wc.values[3], wc.lanes, wc.bytes, k, machine::tokenName(t[k]));
                (void)u;
                return s;
              }};
  uc.bigBatch = 100000;
  return uc;
}

std::vector<UnitCase> unitCases() {
  return {
      binaryCase("add32", [] { return integerAddUnit(32, 4, false); }, machine::MOp::Add, 32),
      binaryCase("sub32", [] { return integerAddUnit(32, 4, true); }, machine::MOp::Sub, 32),
      binaryCase("add64", [] { return integerAddUnit(64, 4, false); }, machine::MOp::Add, 64),
      binaryCase("sub64", [] { return integerAddUnit(64, 4, true); }, machine::MOp::Sub, 64),
      logicCase(32),
      compareCase(32, true),
      compareCase(32, false),
      compareCase(64, true),
      shuffleCase(),
      shuffleFullCase(),
      voteCase(),
      branchCase(),
      exitCase(),
      faddCase(),  // f32 adder
      fmulCase(),  // f32 multiplier
      ffmaCase(),  // f32 fused multiply-add
      multiplierCase(),  // --- multiplier ---
      mul24Case(true),
      unpackCase(),
      writeFormCase(),
      writeTokenCase(),
  };
}

// --- multiplier cases ---
std::vector<UnitCase> multiplierPartCases() {
  return {
      mulCase("mulwide_u32", MulPart::Wide, false),
      mulCase("mulwide_s32", MulPart::Wide, true),
      mulCase("mullo32", MulPart::Lo, false),  // one circuit for both: samples mix signed and unsigned ty
      mulCase("mulhi_u32", MulPart::Hi, false),
      mulCase("mulhi_s32", MulPart::Hi, true),
      mulTwoWidthsCase(),
      mul24Case(false),  // MUL24's low mode: the engine runs its high mode (unitCases)
      mulpCase(false),
      mulpCase(true),
  };
}
// --- end multiplier cases ---

}  // namespace qgpu::compiler
