// The machine step's shifter (alu.h's buildShifter): SHR and SHL of 4- and 8-byte
// operands, SHR signed or not, and SHF (left or right, wrap or clamp), for every lane, as one
// funnel shift right by r in [0, 64] of a source S whose bits above 63 are a fill bit F:
//
//   SHR   S = a cut to its width (bits 32..63: a's for 8 bytes, a_31 signed / 0 unsigned
//         for 4; bits 16..63 a_15 or 0 for 2, whatever a holds above its width), F = the
//         sign for a signed type, r = b's low six bits, and b >= 64 (any of bits 6..31)
//         gives F everywhere: the machine's min(n, 63) for signed, 0 else; the result is cut
//         to the width (a 2-byte SHR's bits 16..31 are not passed)
//   SHF   S = b:a (b's low half above a's), N = c & 31 (wrap) or min(c, 32) (clamp): to the
//         right r = N, to the left r = 32 - N (bits [32 - N, 64 - N): the high word of b:a << N)
//   SHL   S = a bit-reversed (64 bits), F = 0, r as SHR's, and the result reversed back:
//         (a << n) = rev(rev(a) >> n), cut to the width by the result select
//
//   amount level (c's read + 1): r's bits, "b >= 64" and F, each an exclusive sum over the
//     op's cases (one threshold each)
//   stage 0 (binary, r_0), with the source's cases folded into its thresholds
//   stages A, B (radix 4: r_1 r_2, then r_3 r_4): [X_(j + t s) and digit = t], the digit's
//     match as a count of agreeing bits in the threshold
//   stage C (r_5, b >= 64, and the op's result select by width): the result terms
//
// Every stage output is an exclusiveOr per bit (64 per lane); a stage's sources beyond bit
// 63 are F. Stage 0 waits for `stagesAt` (the ALU's result level): a and b are read until
// then anyway, and the layers beside the register copies have no channels to spare.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

#include "qgpu/compiler/alu.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

using machine::MOp;

ShifterWires buildShifter(Circuit& c, const Bus& word, const OperandWires& operands, WireId amountAt, WireId stagesAt) {
  const Expr shr = w(operands.op.at(static_cast<size_t>(MOp::Shr)));
  const Expr shf = w(operands.op.at(static_cast<size_t>(MOp::Shf)));
  const Expr shl = w(operands.op.at(static_cast<size_t>(MOp::Shl)));
  const Bus ty(word.begin() + machine::kWordTyAt, word.begin() + machine::kWordTyAt + 3);
  const Bus width(ty.begin(), ty.begin() + 2);
  const Expr fl0 = w(word[machine::kWordFlAt]), fl1 = w(word[machine::kWordFlAt + 1]);
  auto selector = [&](const std::string& name, Expr cond) {
    const WireId s = c.step("shifter " + name, std::move(cond));
    c.notBefore(s, amountAt);
    return s;
  };
  // ty: width code in bits 0-1 (2: 4 bytes, 3: 8), signed in bit 2.
  const WireId shr32 = selector("SHR 4 bytes", shr + bitsMatching(width, 2) - 3);
  const WireId shr64 = selector("SHR 8 bytes", shr + bitsMatching(width, 3) - 3);
  const WireId shr16 = selector("SHR 2 bytes", shr + bitsMatching(width, 1) - 3);
  const WireId shrS16 = selector("SHR s16", shr + bitsMatching(ty, 5) - 4);
  const WireId shrS32 = selector("SHR s32", shr + bitsMatching(ty, 6) - 4);
  const WireId shrS64 = selector("SHR s64", shr + bitsMatching(ty, 7) - 4);
  const WireId shfWrap = selector("SHF right wrap", shf + fl0 - fl1 - 2);
  const WireId shfClamp = selector("SHF right clamp", shf + fl0 + fl1 - 3);
  const WireId shfLeftWrap = selector("SHF left wrap", shf - fl0 - fl1 - 1);
  const WireId shfLeftClamp = selector("SHF left clamp", shf - fl0 + fl1 - 2);
  const WireId shl32 = selector("SHL 4 bytes", shl + bitsMatching(width, 2) - 3);
  const WireId shl64 = selector("SHL 8 bytes", shl + bitsMatching(width, 3) - 3);
  const Expr anyShr = w(shr16) + w(shr32) + w(shr64), anyShl = w(shl32) + w(shl64);

  ShifterWires out;
  for (uint32_t l = 0; l < 4; ++l) {
    const Bus& a = operands.selected[l];
    const Bus& b = operands.selected[4 + l];
    const Bus& cc = operands.selected[8 + l];
    const std::string lane = fmt::format("l{} shift", l);
    // ---- the amount: r's bits, b >= 64 (SHR), the fill ----
    Expr cHigh, bHigh;  // c's bits 5..31 (SHF clamps at 32), b's bits 6..31
    for (uint32_t j = 5; j < 32; ++j) cHigh += w(cc[j]);
    for (uint32_t j = 6; j < 32; ++j) bHigh += w(b[j]);
    std::vector<WireId> r;
    for (uint32_t k = 0; k < 6; ++k) {
      Expr terms = w(c.step(fmt::format("{} r{} SHR/SHL", lane, k), w(b[k]) + anyShr + anyShl - 2));
      if (k < 5) {
        terms += w(c.step(fmt::format("{} r{} SHF wrap", lane, k), w(cc[k]) + w(shfWrap) - 2));
        terms += w(c.step(fmt::format("{} r{} SHF clamp", lane, k), w(cc[k]) + w(shfClamp) - cHigh - 2));
      } else {
        terms += w(c.step(fmt::format("{} r5 SHF clamp", lane), 32 * w(shfClamp) + cHigh - 33));  // c >= 32: r = 32
      }
      // SHF to the left: bits [32 - N, 64 - N) of b:a, r = 32 - N. Bit k of 32 - N (N < 32)
      // is N_k XOR [N_0..N_(k-1) not all 0] (a negation), bit 5 is [N = 0]; a clamp with
      // c >= 32 (N = 32) shifts by 0.
      constexpr int64_t M = 8;  // above the prefix sum (<= 4)
      Expr prefix;              // c_0 + ... + c_(k-1)
      for (uint32_t j = 0; j < std::min(k, 5u); ++j) prefix += w(cc[j]);
      for (uint32_t clamp = 0; clamp < 2; ++clamp) {
        const Expr sel = w(clamp ? shfLeftClamp : shfLeftWrap), off = clamp ? M * cHigh : Expr();
        const std::string n = fmt::format("{} r{} SHF left {}", lane, k, clamp ? "clamp" : "wrap");
        if (k < 5) {
          terms += negationBit(c, n, w(cc[k]), prefix, k > 0, M * (sel - 1) - off, M);
        } else {
          terms += w(c.step(n + ", c & 31 = 0", M * sel - prefix - M - off));
        }
      }
      // Re-thresholded into a proven bit (a level that costs no depth: the stages wait for
      // the ALU): to the proof an exclusiveOr is the sum of its steps' bounds, and every stage
      // reads r, so its width compounds through the stages into the result (the proof refused
      // a result channel's 2.1e7 with SHF left's terms in r).
      r.push_back(c.step(fmt::format("{} r{}", lane, k), w(c.exclusiveOr(fmt::format("{} r{} terms", lane, k), terms)) - 1));
    }
    const WireId big = c.step(lane + " b >= 64", 32 * (anyShr + anyShl) + bHigh - 33);
    const WireId fill = c.exclusiveOr(lane + " fill",
                                      w(c.step(lane + " fill s64", w(a[63]) + w(shrS64) - 2)) +
                                          w(c.step(lane + " fill s32", w(a[31]) + w(shrS32) - 2)) +
                                          w(c.step(lane + " fill s16", w(a[15]) + w(shrS16) - 2)));
    // ---- stage 0: X1_j = S_(j + r_0) ----
    // S_j as AND terms (a source selector, or none, and a bit): exclusive by the selectors.
    const std::array<Expr, 8> selectors = {1 - anyShl, anyShl, shf, w(shr64), w(shrS32), Expr(1),
                                           1 - anyShl - w(shr16), w(shrS16)};
    enum Source : uint32_t { kNotShl, kShl, kShf, kShr64, kShrS32, kFill, kNotShlOr16, kShrS16 };
    auto source = [&](uint32_t j) {
      std::vector<std::pair<uint32_t, WireId>> s;  // (selector, bit)
      if (j < 16) {
        s.push_back({kNotShl, a[j]});
        s.push_back({kShl, a[63 - j]});
      } else if (j < 32) {  // a 2-byte SHR's source above its width: a_15 signed, else 0
        s.push_back({kNotShlOr16, a[j]});
        s.push_back({kShrS16, a[15]});
        s.push_back({kShl, a[63 - j]});
      } else if (j < 64) {
        s.push_back({kShf, b[j - 32]});
        s.push_back({kShr64, a[j]});
        s.push_back({kShrS32, a[31]});
        s.push_back({kShrS16, a[15]});
        s.push_back({kShl, a[63 - j]});
      } else {
        s.push_back({kFill, fill});
      }
      return s;
    };
    // Each term a gate (one neuron) on [its selector and r_0 = take], computed a level before.
    std::array<std::array<std::optional<WireId>, 2>, 8> control;
    auto controlOf = [&](uint32_t kind, uint32_t take) {
      std::optional<WireId>& k = control[kind][take];
      if (!k) {
        const Expr r0 = take ? w(r[0]) : 1 - w(r[0]);
        k = c.step(fmt::format("{} X1 source {} take {}", lane, kind, take), selectors[kind] + r0 - 2);
      }
      return *k;
    };
    std::vector<WireId> x;
    for (uint32_t j = 0; j < 64; ++j) {
      Expr terms;
      for (uint32_t take = 0; take < 2; ++take)
        for (const auto& [kind, bit] : source(j + take)) {
          const WireId t = c.gate(fmt::format("{} X1[{}] from {}", lane, j, j + take), controlOf(kind, take), w(bit));
          c.notBefore(t, stagesAt);
          terms += w(t);
        }
      x.push_back(c.exclusiveOr(fmt::format("{} X1[{}]", lane, j), terms));
    }
    // ---- stages A, B: radix 4 on (r_1, r_2), then (r_3, r_4) ----
    for (uint32_t stage = 0; stage < 2; ++stage) {
      const WireId lo = r[1 + 2 * stage], hi = r[2 + 2 * stage];
      const uint32_t step = 2u << (2 * stage);  // 2, then 8
      auto match = [&](uint32_t t) { return ((t & 1) ? w(lo) : 1 - w(lo)) + ((t & 2) ? w(hi) : 1 - w(hi)); };
      // A source beyond bit 63 is the fill whatever j: one threshold per digit value, shared.
      std::vector<WireId> fromFill;
      for (uint32_t t = 0; t < 4; ++t)
        fromFill.push_back(c.step(fmt::format("{} X{} from the fill, digit {}", lane, stage + 2, t), w(fill) + match(t) - 3));
      std::vector<WireId> next;
      for (uint32_t j = 0; j < 64; ++j) {
        Expr terms;
        for (uint32_t t = 0; t < 4; ++t) {
          const uint32_t from = j + t * step;
          terms += w(from < 64 ? c.step(fmt::format("{} X{}[{}] from {}", lane, stage + 2, j, from), w(x[from]) + match(t) - 3)
                               : fromFill[t]);
        }
        next.push_back(c.exclusiveOr(fmt::format("{} X{}[{}]", lane, stage + 2, j), terms));
      }
      x = std::move(next);
    }
    // ---- stage C: r_5, b >= 64 and the result select (SHR: its width; SHF: 32 bits) ----
    // The fill's terms depend on the width class only: one threshold each per lane, shared.
    const Expr fitsLow = anyShr + shf, fitsMid = fitsLow - w(shr16), fitsHigh = w(shr64);
    const WireId fillHigh = c.step(lane + " fill by r5, high half", w(fill) + w(r[5]) - w(big) + fitsHigh - 3);
    const WireId bigLow = c.step(lane + " b >= 64, bits 0-15", w(fill) + w(big) + fitsLow - 3);
    const WireId bigMid = c.step(lane + " b >= 64, bits 16-31", w(fill) + w(big) + fitsMid - 3);
    const WireId bigHigh = c.step(lane + " b >= 64, high half", w(fill) + w(big) + fitsHigh - 3);
    std::vector<Expr> result;
    for (uint32_t i = 0; i < 64; ++i) {
      const Expr& fits = i < 16 ? fitsLow : i < 32 ? fitsMid : fitsHigh;
      const std::string n = fmt::format("{} d[{}]", lane, i);
      Expr d = w(c.step(n + " r5 off", w(x[i]) - w(r[5]) - w(big) + fits - 2));
      d += w(i < 32 ? c.step(n + " r5 on", w(x[i + 32]) + w(r[5]) - w(big) + fits - 3) : fillHigh);
      d += w(i < 16 ? bigLow : i < 32 ? bigMid : bigHigh);
      // SHL: the bit reversed (its source was a reversed), its own width; its fill is 0.
      const Expr shlFits = i < 32 ? anyShl : w(shl64);
      d += w(c.step(n + " SHL r5 off", w(x[63 - i]) - w(r[5]) - w(big) + shlFits - 2));
      if (i >= 32) d += w(c.step(n + " SHL r5 on", w(x[95 - i]) + w(r[5]) - w(big) + shlFits - 3));
      result.push_back(std::move(d));
    }
    out.result.push_back(std::move(result));
  }
  return out;
}

}  // namespace qgpu::compiler
