// Numeric-oracle harness: one-instruction kernels decoded and run on a 32-lane context.
#include "harness.h"
#include "reference.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "qgpu/interp/ptx_parser.h"

namespace qgpu::oracle {

OneInstr::OneInstr(const std::string& body) {
  std::string text =
      ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
      "  .reg .pred %p<3>;\n  .reg .b16 %h<10>;\n  .reg .b32 %r<10>;\n  .reg .b64 %rd<10>;\n  " +
      body + "\n  ret;\n}\n";
  program_ = decodeModule(ptx::parseModule(text, "oracle.ptx"));
  const FunctionInfo& f = program_.functions.at(0);
  count_ = program_.code.size() - 1;  // the final ret
  regs_.assign(static_cast<size_t>(f.numSlots) * kLanes, 0);
  for (auto [s, v] : f.constants)
    for (uint32_t l = 0; l < kLanes; ++l) regs_[static_cast<size_t>(s) * kLanes + l] = v;
  ctx_.program = &program_;
  ctx_.W = kLanes;
  ctx_.fullMask = 0xffffffffu;
  ctx_.liveMask = 0xffffffffu;
  ctx_.regs = regs_.data();
}

uint32_t OneInstr::slot(const std::string& reg) const {
  const FunctionInfo& f = program_.functions.at(0);
  for (uint32_t i = 0; i < f.numSlots; ++i)
    if (f.slotNames[i] == reg) return i;
  throw std::runtime_error("no register " + reg);
}

void OneInstr::run() {
  for (size_t i = 0; i < count_; ++i) program_.code[i].fn(program_.code[i], ctx_, ctx_.fullMask);
}

uint64_t casesPerOp() {
  if (const char* n = std::getenv("QGPU_ORACLE_N")) return std::strtoull(n, nullptr, 10);
  return 1'000'000;
}

namespace {
struct Format {
  int width, mant, expBits;
};
Format formatOf(int width) {
  if (width == kBF16) return {16, 7, 8};
  if (width == 16) return {16, 10, 5};
  if (width == 32) return {32, 23, 8};
  return {64, 52, 11};
}
uint64_t pack(const Format& f, uint64_t sign, uint64_t exp, uint64_t mant) {
  return (sign << (f.width - 1)) | (exp << f.mant) | (mant & ((uint64_t{1} << f.mant) - 1));
}
}  // namespace

const std::vector<uint64_t>& Gen::specials(int width) {
  static std::vector<uint64_t> s16, sbf16, s32, s64;
  std::vector<uint64_t>& s = width == kBF16 ? sbf16 : width == 16 ? s16 : width == 32 ? s32 : s64;
  if (!s.empty()) return s;
  Format f = formatOf(width);
  uint64_t maxExp = (uint64_t{1} << f.expBits) - 1, bias = maxExp / 2;
  uint64_t mmask = (uint64_t{1} << f.mant) - 1, quiet = uint64_t{1} << (f.mant - 1);
  for (uint64_t sign : {0, 1}) {
    s.push_back(pack(f, sign, 0, 0));                  // zero
    s.push_back(pack(f, sign, 0, 1));                  // min subnormal
    s.push_back(pack(f, sign, 0, 3));
    s.push_back(pack(f, sign, 0, quiet));              // mid subnormal
    s.push_back(pack(f, sign, 0, mmask));              // max subnormal
    s.push_back(pack(f, sign, 1, 0));                  // min normal
    s.push_back(pack(f, sign, 1, 1));
    s.push_back(pack(f, sign, maxExp - 1, mmask));     // max finite
    s.push_back(pack(f, sign, maxExp - 1, 0));
    s.push_back(pack(f, sign, maxExp, 0));             // inf
    s.push_back(pack(f, sign, maxExp, quiet));         // quiet NaN
    s.push_back(pack(f, sign, maxExp, quiet | 0x15));  // quiet NaN with payload
    s.push_back(pack(f, sign, maxExp, 1));             // signalling NaN
    s.push_back(pack(f, sign, maxExp, mmask >> 1));    // signalling NaN, big payload
    s.push_back(pack(f, sign, bias, 0));               // 1
    s.push_back(pack(f, sign, bias, 1));               // 1 + ulp
    s.push_back(pack(f, sign - 0, bias - 1, mmask));   // 1 - ulp/2
    s.push_back(pack(f, sign, bias - 1, 0));           // 0.5
    s.push_back(pack(f, sign, bias + 1, 0));           // 2
    s.push_back(pack(f, sign, bias + 1, quiet));       // 3
    s.push_back(pack(f, sign, bias, quiet));           // 1.5
    s.push_back(pack(f, sign, bias - f.mant - 1, 0));  // ulp(1)/2: halfway addend
    s.push_back(pack(f, sign, bias + f.mant, 0));      // 2^mant (integer boundary)
    s.push_back(pack(f, sign, bias + f.mant, 1));
    s.push_back(pack(f, sign, bias - 1, 1));           // 0.5 + ulp
  }
  return s;
}

uint64_t Gen::bits(int width) {
  width = storageBits(width);
  uint64_t v = rng_();
  return width == 64 ? v : v & ((uint64_t{1} << width) - 1);
}

uint64_t Gen::floatBits(int width) {
  Format f = formatOf(width);
  uint64_t maxExp = (uint64_t{1} << f.expBits) - 1, bias = maxExp / 2;
  uint64_t sign = rng_() & 1;
  switch (rng_() % 8) {
    case 0: {
      const auto& s = specials(width);
      return s[rng_() % s.size()];
    }
    case 1: return bits(width);
    case 2: return pack(f, sign, bias - 4 + rng_() % 9, rng_());            // around 1
    case 3: {                                                              // short mantissa
      int keep = static_cast<int>(rng_() % 13);
      uint64_t m = (rng_() & ((uint64_t{1} << keep) - 1)) << (f.mant - keep);
      return pack(f, sign, rng_() % maxExp, m);
    }
    case 4: return pack(f, sign, rng_() % (f.mant + 3), rng_());          // tiny / subnormal
    case 5: return pack(f, sign, maxExp - 1 - rng_() % (f.mant + 2), rng_());  // huge
    case 6: {                                                              // short mantissa near 1
      int keep = static_cast<int>(rng_() % 8);
      uint64_t m = (rng_() & ((uint64_t{1} << keep) - 1)) << (f.mant - keep);
      return pack(f, sign, bias - 2 + rng_() % 5, m);
    }
    default: return pack(f, sign, rng_() % (maxExp + 1), rng_());
  }
}

uint64_t Gen::related(int width, uint64_t a) {
  Format f = formatOf(width);
  uint64_t maxExp = (uint64_t{1} << f.expBits) - 1;
  uint64_t ea = (a >> f.mant) & maxExp;
  uint64_t sign = rng_() & 1;
  switch (rng_() % 4) {
    case 0: {  // half an ulp of a (or 1.5, 0.75 ulp): ties and near-ties for add
      int shift = f.mant + 1 - static_cast<int>(rng_() % 3);
      int64_t e = static_cast<int64_t>(ea) - shift;
      if (e <= 0) return pack(f, sign, 0, uint64_t{1} << (rng_() % f.mant));
      uint64_t m = rng_() % 3 == 0 ? 0 : (rng_() & 1 ? uint64_t{1} << (f.mant - 1) : rng_() & 7);
      return pack(f, sign, static_cast<uint64_t>(e), m);
    }
    case 1: return a ^ (uint64_t{1} << (f.width - 1));   // -a: exact cancellation
    case 2: return a ^ (uint64_t{1} << (f.width - 1)) ^ (rng_() & 3);  // near cancellation
    default: {  // same binade, random mantissa
      return pack(f, sign, ea, rng_());
    }
  }
}

uint64_t Gen::nearInteger(int width) {
  int e = static_cast<int>(rng_() % 70);
  double k = std::ldexp(static_cast<double>(rng_() >> 11), e - 53);
  k = std::floor(k);
  static const double fracs[] = {0.0, 0.5, 0.25, 0.75, 1e-7, -1e-7, 0.4999999, 0.5000001, -0.5, 1.5};
  double x = k + fracs[rng_() % 10];
  if (rng_() & 1) x = -x;
  if (width == 64) return std::bit_cast<uint64_t>(x);
  float fx = static_cast<float>(x);
  if (width == 32) return std::bit_cast<uint32_t>(fx);
  // f16: scale into range and take the nearest half by truncating a float.
  double h = std::ldexp(k, -static_cast<int>(rng_() % 50)) + fracs[rng_() % 10];
  if (h > 65504) h = 65504;
  uint32_t fb = std::bit_cast<uint32_t>(static_cast<float>(h));
  uint32_t s = (fb >> 16) & 0x8000;
  int exp = static_cast<int>((fb >> 23) & 0xff) - 127;
  if (exp < -14) return s;
  return s | static_cast<uint32_t>((exp + 15) << 10) | ((fb >> 13) & 0x3ff);
}

uint64_t Gen::intBits(int width) {
  uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  switch (rng_() % 6) {
    case 0: {
      static const uint64_t edges[] = {0, 1, 2, 3, ~uint64_t{0}, ~uint64_t{0} - 1, 0x7f, 0x80, 0xff,
                                       0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
                                       0x7fffffffffffffff, 0x8000000000000000, 0x1000001, 0x1000003,
                                       0x20000000000001, 0x20000000000003, 0xfffffffffffff800};
      return edges[rng_() % std::size(edges)] & mask;
    }
    case 1: {  // few significant bits at a random position (ties for int->float)
      int n = 1 + static_cast<int>(rng_() % 30);
      uint64_t v = (rng_() & ((uint64_t{1} << n) - 1)) | (uint64_t{1} << (n - 1)) | 1;
      v <<= rng_() % 40;
      if (rng_() & 1) v = ~v + 1;
      return v & mask;
    }
    case 2: return (rng_() >> (rng_() % 64)) & mask;  // small magnitudes
    case 3: return (~(rng_() >> (rng_() % 64))) & mask;  // small negatives
    default: return rng_() & mask;
  }
}

}  // namespace qgpu::oracle
