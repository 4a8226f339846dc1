// IEEE-754 arithmetic with an explicit rounding mode, flush-to-zero and the
// NaN rules of NVIDIA GPUs, without touching the host's floating-point
// environment (no <cfenv>).
//
// f32: the exact result is carried as a double plus the sign of the rounding
// error (error-free transforms), turned into round-to-odd at 53 bits and then
// rounded once to f32 in the requested mode; 53 >= 24 + 2 makes that double
// rounding innocuous, so every mode is correctly rounded.
// f64: round-to-nearest is the host's; directed modes are computed exactly
// by MPFR (53-bit precision, binary64 exponent range, subnormalised), so
// subnormal and overflowing results are correctly rounded too.
#pragma once

#include <cstdint>

#include "qgpu/interp/program.h"

namespace qgpu::fp {

constexpr uint32_t kCanonicalNaN32 = 0x7fffffffu;
constexpr uint64_t kCanonicalNaN64 = 0x7fffffffffffffffull;

float flushSubnormal(float x);  // subnormal -> signed zero
float saturate(float x);        // clamp to [0, 1], NaN -> +0
double saturate(double x);
float canonical(float x);       // NaN -> 0x7fffffff

// Rounding None means the instruction's default (nearest even).
float add(float a, float b, Rounding r);
float mul(float a, float b, Rounding r);
float fma(float a, float b, float c, Rounding r);
float div(float a, float b, Rounding r);
float sqrt(float a, Rounding r);

double add(double a, double b, Rounding r);
double mul(double a, double b, Rounding r);
double fma(double a, double b, double c, Rounding r);
double div(double a, double b, Rounding r);
double sqrt(double a, Rounding r);

/// Round-to-odd at 53 bits of the exact sum a + b (a + b when either is
/// infinite or NaN): rounding it once more to a format of at most 51 bits
/// gives the correctly rounded exact sum.
double sumToOdd(double a, double b);

/// Rounds the double `x` to f32 in mode r (exact when x is representable).
float roundToFloat(double x, Rounding r);
/// Rounds to an integral value in the same format (cvt.rni etc.).
double roundToIntegral(double x, Rounding r);

/// f16 <-> f32/f64 (IEEE binary16), with rounding for narrowing.
uint16_t floatToHalf(double x, Rounding r);
double halfToDouble(uint16_t h);
/// bf16 (1 sign, 8 exponent, 7 mantissa bits) <-> f64: x rounded to nearest even (overflow
/// to +-inf, subnormals kept, NaN -> the canonical 0x7fff); bf16 -> f64 is exact.
uint16_t doubleToBf16(double x);
double bf16ToDouble(uint16_t h);

/// A binary format narrower than f32 (f16, bf16, the fp8 formats e4m3 and e5m2): `mant`
/// fraction bits, `ebits` exponent bits of bias `bias`, largest finite value `maxFinite`
/// (e4m3 has no infinity: its top exponent holds numbers up to 448 and the NaN 0x7f).
struct SmallFormat {
  int mant, ebits, bias;
  double maxFinite;
  bool hasInf;
};
constexpr SmallFormat kF16Format{10, 5, 15, 65504.0, true};
constexpr SmallFormat kBF16Format{7, 8, 127, 0x1.fep127, true};
constexpr SmallFormat kE4M3Format{3, 4, 7, 448.0, false};
constexpr SmallFormat kE5M2Format{2, 5, 15, 57344.0, true};
/// The bits of x (not NaN; exact, or rounded to odd at 53 bits) rounded to `f` in mode r:
/// subnormals kept, an overflow is +-inf or +-maxFinite as IEEE says for r, and always
/// +-maxFinite with `satfinite` (which is required for formats without infinity).
uint32_t roundToSmall(double x, Rounding r, const SmallFormat& f, bool satfinite);
/// The exact value of the bits `b` of format `f` (NaN for a NaN pattern).
double smallToDouble(uint32_t b, const SmallFormat& f);

}  // namespace qgpu::fp
