#include "qgpu/host_ref.h"

// 128-bit values as 4 little-endian 32-bit limbs; computed with 64-bit halves.
QGPU_HOST_REF(carry_chain) {
  auto A = args.buffer<uint64_t>("A");
  auto B = args.buffer<uint64_t>("B");
  auto sum = args.buffer<uint64_t>("sum");
  auto diff = args.buffer<uint64_t>("diff");
  auto prod = args.buffer<uint64_t>("prod");
  for (unsigned t = 0; t < 32; ++t) {
    uint64_t al = A[2 * t], ah = A[2 * t + 1], bl = B[2 * t], bh = B[2 * t + 1];
    uint64_t sl = al + bl;
    sum[2 * t] = sl;
    sum[2 * t + 1] = ah + bh + (sl < al ? 1u : 0u);
    diff[2 * t] = al - bl;
    diff[2 * t + 1] = ah - bh - (al < bl ? 1u : 0u);
    // full 64x64 product of the low halves, schoolbook on 32-bit limbs
    uint64_t x0 = al & 0xffffffffu, x1 = al >> 32, y0 = bl & 0xffffffffu, y1 = bl >> 32;
    uint64_t p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    prod[2 * t] = (p00 & 0xffffffffu) | (mid << 32);
    prod[2 * t + 1] = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  }
}
