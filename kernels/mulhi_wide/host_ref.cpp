#include "qgpu/host_ref.h"

namespace {
// High 64 bits of the 128-bit product, from 32-bit limbs (no __int128 in ISO C++).
uint64_t umulhi64(uint64_t a, uint64_t b) {
  uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
  uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
// Signed: subtract the other operand for each negative operand (mod 2^64).
uint64_t smulhi64(uint64_t a, uint64_t b) {
  uint64_t h = umulhi64(a, b);
  if (a >> 63) h -= b;
  if (b >> 63) h -= a;
  return h;
}
}  // namespace

QGPU_HOST_REF(mulhi_wide) {
  auto A = args.buffer<uint32_t>("A");
  auto B = args.buffer<uint32_t>("B");
  auto C = args.buffer<uint64_t>("C");
  auto D = args.buffer<uint64_t>("D");
  auto out = args.buffer<uint64_t>("out");
  for (unsigned t = 0; t < 32; ++t) {
    uint32_t a = A[t], b = B[t];
    uint64_t c = C[t], d = D[t];
    int32_t sa = static_cast<int32_t>(a), sb = static_cast<int32_t>(b);
    uint64_t* o = &out[t * 7];
    o[0] = (static_cast<uint64_t>(a) * b) >> 32;
    o[1] = static_cast<uint64_t>(static_cast<int64_t>(
        static_cast<int32_t>((static_cast<int64_t>(sa) * sb) >> 32)));
    o[2] = umulhi64(c, d);
    o[3] = smulhi64(c, d);
    o[4] = static_cast<uint64_t>(a) * b;
    o[5] = static_cast<uint64_t>(static_cast<int64_t>(sa) * sb);
    o[6] = c * d;
  }
}
