// Shared by the f32 multiplier and FFMA: the rounding back end after the leading-one
// thresholds — the exponent field's two candidates, the fine shift, the round increment in
// the selected mode, the increment's carries and the exponent field with its classes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "f32_select.h"

namespace qgpu::compiler {

/// Bits of (esum + p' - offset + k) mod 256, p' given as its one-hot forms onehot[p]
/// (a linear second operand): E0 + k for E0 = esum + p' - offset. Two adder levels.
Bus exponentPlus(Circuit& c, const std::string& name, const Bus& esum, const std::vector<Expr>& onehot, int offset,
                 int k);

/// The significand after the coarse shift: coarse(j) = the window bit j + 8q - 31 of the
/// value, h[k] = [r >= k] (r = p' - 8q); guard, the lowest kept bit R0 and sticky; R23 =
/// [the leading one is at p'] (a step).
struct CoarseSignificand {
  std::function<Expr(int)> coarse;
  std::vector<WireId> h;  // 1..7
  Expr guard, R0, sticky;
  WireId R23 = 0;
};

/// Fine shift (R[i] = coarse(i + 8 + r)), round increment, carries, and the candidate with
/// the exponent field F = Fbase + R23 + carry23 (its bits from E0 + 1 and E0 + 2). `sign` is
/// the result's sign (the directed modes' increment).
F32Candidate roundAndPack(Circuit& c, const std::string& name, const CoarseSignificand& s, const Bus& e1, const Bus& e2,
                          const Expr& Fbase, const Expr& sign, const F32Modes& m);

}  // namespace qgpu::compiler
