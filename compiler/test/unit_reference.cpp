// Unit test cases against the machine's functional units.
#include "unit_reference.h"

#include <fmt/format.h>

#include <map>

#include "qgpu/machine/units.h"  // the reference

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
      multiplierCase(),  // --- multiplier ---
      mul24Case(true),
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
      mul24Case(false),  // MUL24's low mode: the engine runs its high mode (unitCases)
      mulpCase(false),
      mulpCase(true),
  };
}
// --- end multiplier cases ---

}  // namespace qgpu::compiler
