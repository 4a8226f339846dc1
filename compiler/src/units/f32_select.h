// Shared by the f32 multiplier and FFMA: the last MLP level of an f32 result — NaN,
// infinities, zeros, overflow by rounding mode, ftz of a subnormal result and sat's clamp —
// over one or more candidate results (a unit's main path and its shortcuts).
#pragma once

#include <string>
#include <vector>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// A rounded finite candidate: 31 bits (fraction 0..22, exponent field 23..30) and the
/// field's classes, all 0/1-valued forms, and whether it is the result.
struct F32Candidate {
  std::vector<Expr> bits;
  Expr overflow;   // field >= 255
  Expr atLeastOne; // field >= 127 (|x| >= 1: sat gives 1.0)
  Expr subnormal;  // field 0 (ftz flushes)
  Expr chosen = Expr(1);
};

/// The specials (0/1 forms): NaN beats infinity beats zero beats the candidates.
struct F32Classes {
  Expr nan, inf, zero;
  Expr sign;      // of a finite result
  Expr infSign;
  Expr zeroSign;  // of an exact zero
};

/// Selectors: rounding one-hot, ftz, sat.
struct F32Modes {
  Expr rn, rz, rm, rp, ftz, sat;
};

/// The selector inputs of an f32 unit in f32ModeSelectors() order, added to `u`.
F32Modes addF32ModeSelectors(Unit& u);

Bus f32FinalSelect(Circuit& c, const std::string& name, const std::vector<F32Candidate>& candidates,
                   const F32Classes& k, const F32Modes& m);

}  // namespace qgpu::compiler
