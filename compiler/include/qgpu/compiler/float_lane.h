// The lane-serial step (docs/machine.md §5.2): FADD, FSUB, FMUL and FFMA run on one
// one-lane FFMA datapath, one active lane per position — at each of the step's positions the
// (W + 1)-th active lane's a, b and c (FMUL: a signed zero, +0 when rounding down and -0
// otherwise, which makes FFMA's one rounding FMUL's; FADD and FSUB: a factor of 1 and b, or
// -b, as the addend) — from the tokens alone; beside it the compare family (MIN, MAX, FNEG,
// FABS) on the same lane's operands.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "qgpu/compiler/operand_select.h"
#include "qgpu/compiler/step_front.h"
#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// The lane the position computes (serialLane: one-hot, 0 where the step is no FMUL, FFMA,
/// or f32 FADD or FSUB) and its f32 result (32 bits), its operands muxed by that lane and its modes
/// (rounding, ftz, sat) from the word's fl field; the result is meaningful at a FMUL's or
/// FFMA's positions only. `active`: guardedLanes; `waits`: countWaits'. With `after`, the
/// datapath waits for that wire's level (the joined step runs it after the ALU, whose layers
/// are full); the lane's operands are muxed as soon as they are read (96 channels carried, so
/// that the four lanes' 768 are not).
struct LaneSerialFloatWires {
  Bus lane;
  Bus result;     // the FFMA datapath's (meaningful for FADD FSUB FMUL FFMA only)
  Bus compare;    // the compare family's (MIN MAX FMIN FMAX FNEG FABS FSETP) and POPC CLZ BFIND BREV's, 0 for any other op
  Bus convert;    // I2F's, F2I's, H2F's, F2H's, F2D's and BFE's (int_to_float.cpp, float_to_int.cpp,
                  // half_float.cpp, float_to_double.cpp, bit_field.cpp), 0 for any other op: 64 bits,
                  // the upper 32 F2D's alone
  WireId ffmaFamily = 0;  // [FADD, FSUB, FMUL or FFMA]
  Expr computes;  // [the step is one the lane computes] (a form whose values are bits)
};
/// The lane's result bit i (0 … 63; the upper half F2D's alone) as a threshold condition
/// ([cond >= 0] is the bit): the datapath's for its ops, the compare family's for theirs —
/// one threshold, no level of its own.
Expr laneSerialResult(const LaneSerialFloatWires& f, uint32_t i);
/// The compare family's ops, each a form whose value is [the step is that op].
struct CompareOps {
  Expr imin, imax, fneg, fabs, fmin, fmax, fsetp;
};
/// The compare family on the lane's operand bits a and b (32 each) and the word's ty and fl
/// bits (`word` holds at least kWordFlAt + 4 bits): MIN and MAX of 4-byte integers (signed by
/// the type's bit); FNEG, FABS, FMIN and FMAX of f32 (.ftz by fl bit 0); FSETP (its code in
/// fl) of f32 without .ftz (stepRuns refuses it with). Per bit a form whose value is the bit,
/// 0 for any other op.
std::vector<Expr> buildLaneSerialCompare(Circuit& c, const Bus& word, const Bus& a, const Bus& b, const CompareOps& op);
/// I2F of a 4-byte integer (signed by the type's bit) to f32 with the rounding mode of fl
/// bits 0-1 (rn rz rm rp) on the lane's operand bits a (int_to_float.cpp): 32 forms whose
/// values are the bits, 0 unless `i2f` (a form whose value is [the step is I2F]).
std::vector<Expr> buildLaneSerialI2F(Circuit& c, const Bus& word, const Bus& a, const Expr& i2f);
/// F2I of an f32 (.ftz by fl bit 2) to a 4-byte integer (signed by the type's bit) with the
/// rounding mode of fl bits 0-1 (rni rzi rmi rpi), saturating, NaN to 0 (float_to_int.cpp):
/// 32 forms whose values are the bits, 0 unless `f2i` (a form whose value is [the step is F2I]).
std::vector<Expr> buildLaneSerialF2I(Circuit& c, const Bus& word, const Bus& a, const Expr& f2i);
/// H2F: the f16 in a's low 16 bits to f32 (exact; NaN to 0x7fffffff), and F2H: the f32 a to
/// f16 with the rounding mode `rounding` (one-hot rn rz rm rp: fl bits 2-3) and `ftz` (fl bit
/// 0) (overflow to inf or the
/// largest finite by the mode, NaN to 0x7fff), neither with .sat (half_float.cpp): 32 forms
/// whose values are the bits, 0 unless `h2f` / `f2h` (forms whose values are [the step is
/// that op]). With `after`, their first level comes a level after that wire's.
std::vector<Expr> buildLaneSerialH2F(Circuit& c, const Bus& a, const Expr& h2f, std::optional<WireId> after = std::nullopt);
std::vector<Expr> buildLaneSerialF2H(Circuit& c, const std::array<Expr, 4>& rounding, const Expr& ftz, const Bus& a,
                                     const Expr& f2h, std::optional<WireId> after = std::nullopt);
/// F2D: the f32 a to f64, exact (.ftz by fl bit 0: a subnormal is the signed zero; NaN to
/// 0x7fffffffffffffff) (float_to_double.cpp): 64 forms whose values are the bits, 0 unless
/// `f2d` (a form whose value is [the step is F2D]); with `after`, its first level one after
/// that wire's.
std::vector<Expr> buildLaneSerialF2D(Circuit& c, const Bus& word, const Bus& a, const Expr& f2d,
                                     std::optional<WireId> after = std::nullopt);
/// A step a level after `after`'s (the first level of a unit placed past the lane's full
/// layers), or where the scheduler puts it when there is no `after`.
Expr stepAfter(Circuit& c, const std::string& name, const Expr& cond, std::optional<WireId> after);
/// The bit-count ops, each a form whose value is [the step is that op].
struct BitCountOps {
  Expr popc, clz, bfind, brev;
};
/// POPC, CLZ, BFIND (signed by the type's bit, .shiftamt by fl bit 0) and BREV of a 4-byte a
/// (bit_count.cpp): 32 forms whose values are the bits, 0 unless one of them runs; with
/// `after`, their first level one after that wire's.
std::vector<Expr> buildLaneSerialBitCounts(Circuit& c, const Bus& word, const Bus& a, const BitCountOps& op,
                                           std::optional<WireId> after = std::nullopt);
/// BFE of a 4-byte a (signed by the type's bit) with pos = b's and len = c's low byte
/// (bit_field.cpp): 32 forms whose values are the bits, 0 unless `bfe` (a form whose value is
/// [the step is BFE]); with `after`, its first level one after that wire's.
std::vector<Expr> buildLaneSerialBfe(Circuit& c, const Bus& word, const Bus& a, const Bus& b, const Bus& cc, const Expr& bfe,
                                     std::optional<WireId> after = std::nullopt);
LaneSerialFloatWires buildLaneSerialFloat(Circuit& c, const FrontWires& front, const OperandWires& operands,
                                          const Bus& active, const Bus& waits,
                                          std::optional<WireId> after = std::nullopt);

/// The front end, the operand select and the lane-serial float datapath. Inputs:
/// frontInputs'. Outputs: the lane's f32 result (32 bits).
Unit laneSerialFloatUnit();
constexpr uint32_t kLaneSerialFloatOutputs = 32;

}  // namespace qgpu::compiler
