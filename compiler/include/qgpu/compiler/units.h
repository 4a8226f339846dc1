// Circuits of the machine's functional units (docs/machine.md §5.1), built from the IR's
// step/gate/sum for `lanes` lanes in parallel: each unit takes and returns operands as bit
// buses (least significant bit first), as the register file holds them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/compiler/circuit.h"

namespace qgpu::compiler {

/// The operand and result buses of one lane, in input/output order.
struct LaneBuses {
  std::vector<Bus> operands;
  std::vector<Bus> results;
};

struct Unit {
  Circuit circuit;
  std::vector<LaneBuses> lanes;
  std::vector<WireId> selectors;  // one-hot op selection inputs (shared by the lanes), if any
  std::vector<std::string> selectorNames;
  std::vector<Bus> shared;  // other operands all lanes share (SHFL's executing lanes)
};

// --- bit-level helpers (one MLP level each unless noted) ---
WireId bitAnd(Circuit& c, const std::string& name, WireId a, WireId b);
WireId bitOr(Circuit& c, const std::string& name, WireId a, WireId b);
/// a xor b as a linear form of a and a + b - 2ab: the result is not a structural bit.
WireId bitXor(Circuit& c, const std::string& name, WireId a, WireId b);

/// Carry-select adder of two `bits`-bit buses plus a constant carry-in, in two levels:
/// per-chunk carries for carry-in 0 and 1, then chunk carries by a threshold over the
/// chunks' generate/propagate digits merged with the bit carries (docs/compiler.md §4).
/// Returns the sum bits (and the carry-out, as the last wire, if `carryOut`).
Bus addBuses(Circuit& c, const std::string& name, const std::vector<Expr>& a, const std::vector<Expr>& b, int carryIn,
             bool carryOut = false);

/// ADD or SUB of `bits`-bit integers (machine ADD/SUB), modulo 2^bits.
Unit integerAddUnit(uint32_t bits, uint32_t lanes, bool subtract);
/// AND/OR/XOR/NOT/MOV/SELP on 32-bit operands, one-hot selected (machine logic unit).
Unit logicUnit(uint32_t bits, uint32_t lanes);
/// SETP on `bits`-bit integers: eq ne lt le gt ge (signed or unsigned by `isSigned`) and
/// lo ls hi hs, one-hot selected; the result is the predicate bit.
Unit compareUnit(uint32_t bits, uint32_t lanes, bool isSigned);
/// SHFL's lane mux: lane l reads lane src[l] (a one-hot source per lane) of a 32-bit value.
Unit shuffleUnit(uint32_t bits, uint32_t lanes);

/// The whole SHFL step for `lanes` (<= 4) lanes: mode one-hot (up down bfly idx), the executing
/// lanes, per lane the value (32 bits), b (5 bits), clamp and segment mask (5 bits each);
/// per lane the result and an `undefined` bit (the source lane does not take part).
Unit shuffleFullUnit(uint32_t lanes);

/// VOTE for `lanes` lanes: mode one-hot (all any uni ballot), negate, the executing lanes and
/// every lane's predicate (shared), per lane its member lanes; per lane the result's low
/// `lanes` bits (the predicate in bit 0, or the ballot).
Unit voteUnit(uint32_t lanes);
// --- f32 adder (fadd.cpp) ---
/// FADD/FSUB f32 (machine MOp::FAdd/FSub, 4-byte type) for `lanes` lanes. Selectors, in
/// faddSelectors() order: the rounding mode one-hot (rn rz rm rp), then the flags sub,
/// ftz and sat (each 0 or 1). Operands a, b and the result are 32-bit buses.
Unit faddUnit(uint32_t lanes);
const std::vector<std::string>& faddSelectors();
// --- end f32 adder ---

/// The compare codes of compareUnit's selectors, in order.
const std::vector<std::string>& compareCodes();
/// The ops of logicUnit's selectors, in order.
const std::vector<std::string>& logicOps();

}  // namespace qgpu::compiler
