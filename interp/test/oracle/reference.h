// Independent references for the numeric oracle: LLVM APFloat for floating
// point (IEEE-754 arithmetic in every rounding mode) plus the PTX rules the
// ISA and docs/semantics.md fix on top of IEEE (.ftz, .sat, NaN results,
// cvt saturation), and 128-bit integer arithmetic for integer instructions.
// Nothing here calls the interpreter's numerics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qgpu::oracle {

enum class Rm { RN, RZ, RM, RP };

/// The format code of bf16 where a width (16, 32, 64) names the other formats
/// (reference.cpp, Gen in harness.cpp).
constexpr int kBF16 = 1016;
/// Storage bits of a format code.
inline int storageBits(int w) { return w == kBF16 ? 16 : w; }

enum class FOp { Add, Sub, Mul, Fma, Div, Rcp, Sqrt, Min, Max, Abs, Neg, Copysign, Testp, Setp, Set };

struct FloatCase {
  FOp id = FOp::Add;
  std::string spelling;       // e.g. "fma.rz.ftz.sat.f32"
  std::string op;             // add sub mul fma mad div rcp sqrt min max abs neg copysign testp setp
  std::string cls;            // testp class / setp comparison
  int width = 32;             // element width: 16, 32, 64
  bool pair = false;          // .f16x2 / .bf16x2
  bool bf = false;            // .bf16 / .bf16x2
  bool relu = false, nanMode = false, xorsign = false;  // .relu, .NaN, .xorsign.abs
  bool ftz = false, sat = false;
  Rm rm = Rm::RN;
  int nsrc = 2;
  bool predicateResult = false;
  // set.CMP.DTYPE.STYPE: the destination type, its width, and one element's "true" bits
  // (all ones of an integer type, 1.0 of a float type; per 16-bit element for x2 sources).
  std::string setDst;
  int setDstBits = 0;
  uint64_t setTrue = 0;
};
FloatCase parseFloatCase(const std::string& spelling);

/// Expected result bits of one element (or the predicate 0/1). For sqrt use sqrtCorrect.
uint64_t expectFloat(const FloatCase& c, uint64_t a, uint64_t b, uint64_t c3);
/// True iff r is the correctly rounded (then .ftz/.sat/NaN-ruled) sqrt of a.
bool sqrtCorrect(const FloatCase& c, uint64_t a, uint64_t r);

struct CvtCase {
  std::string spelling;
  std::string dst, src;  // type names
  bool intRound = false;  // .rni etc.
  bool hasRound = false;
  Rm rm = Rm::RN;
  bool ftz = false, sat = false;
  bool relu = false, satfinite = false;  // .relu, .satfinite (f16/bf16 from f32)
  // Derived once (the reference runs 10^6 times per form). sf/df: format codes (kBF16 for
  // bf16, else the width).
  int sb = 0, db = 0, rb = 0, sf = 0, df = 0;
  bool fsrc = false, fdst = false, ssrc = false, sdst = false;
};
CvtCase parseCvtCase(const std::string& spelling);
int typeBits(const std::string& t);
bool isFloatType(const std::string& t);
bool isSignedType(const std::string& t);
/// Register width in bits used for a type in the harness (16 for 8-bit types).
int regBits(const std::string& t);
/// Expected destination register bits for source bits `a` (of the source type).
uint64_t expectCvt(const CvtCase& c, uint64_t a);

/// The packing cvt forms (interp/src/sem_convert_packed.cpp): f16x2/bf16x2 from two f32,
/// e4m3x2/e5m2x2 from two f32 or an f16x2, f16x2 from e4m3x2/e5m2x2, cvt.pack.sat; and
/// cvt to tf32 (sem_convert.cpp), another non-IEEE destination format.
struct PackedCvtCase {
  std::string spelling;
  enum class Kind { PairFromF32, Fp8FromF32, Fp8FromHalfPair, HalfPairFromFp8, PackSat, Tf32FromF32 } kind{};
  bool relu = false, satfinite = false, rz = false, bf = false, e5m2 = false;
  bool rna = false;  // Tf32FromF32: ties away from zero (else .rn or .rz)
  int width = 0;        // cvt.pack.sat element width
  bool isSigned = false;  // cvt.pack.sat
  int nsrc = 1;
  CvtCase element;      // PairFromF32: the scalar f16/bf16 <- f32 form of one element
};
PackedCvtCase parsePackedCvtCase(const std::string& spelling);
/// Expected destination bits for the sources a, b, c (registers as the instruction reads them).
uint64_t expectPackedCvt(const PackedCvtCase& c, uint64_t a, uint64_t b, uint64_t c3);
/// The exact value of an fp8 code (e4m3: no infinity, 0x7f/0xff NaN; e5m2: IEEE-like),
/// decoded from its bit fields here, independently of the interpreter.
double fp8Value(uint32_t code, bool e5m2);

}  // namespace qgpu::oracle
