#include <algorithm>

#include "qgpu/host_ref.h"

namespace {
unsigned popc(uint32_t x) { return static_cast<unsigned>(__builtin_popcount(x)); }
unsigned clz(uint32_t x) { return x ? static_cast<unsigned>(__builtin_clz(x)) : 32u; }
uint32_t brev(uint32_t x) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
// prmt.b32 default mode: bytes 0-3 from a, 4-7 from b; selector nibble bit 3
// replicates the chosen byte's sign bit.
uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
  uint64_t bytes = (static_cast<uint64_t>(b) << 32) | a;
  uint32_t r = 0;
  for (int n = 0; n < 4; ++n) {
    uint32_t s = (sel >> (4 * n)) & 0xfu;
    uint32_t byte = static_cast<uint32_t>(bytes >> (8 * (s & 7u))) & 0xffu;
    if (s & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
    r |= byte << (8 * n);
  }
  return r;
}
// shf.{l,r}.{wrap,clamp}.b32 d, lo, hi, n
uint32_t shfL(uint32_t lo, uint32_t hi, uint32_t n) {
  uint64_t v = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<uint32_t>((v << n) >> 32);
}
uint32_t shfR(uint32_t lo, uint32_t hi, uint32_t n) {
  uint64_t v = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<uint32_t>(v >> n);
}
// bfe.u32 / bfe.s32 per the PTX ISA pseudo-code (pos, len: low 8 bits).
uint32_t bfe(uint32_t a, uint32_t pos, uint32_t len, bool sign) {
  pos &= 0xffu;
  len &= 0xffu;
  if (len == 0) return 0;
  uint32_t sbit = sign ? (a >> std::min(pos + len - 1, 31u)) & 1u : 0u;
  uint32_t d = 0;
  for (uint32_t i = 0; i < 32; ++i) {
    uint32_t bit = (i < len && pos + i <= 31) ? (a >> (pos + i)) & 1u : sbit;
    d |= bit << i;
  }
  return d;
}
// bfi.b32 d, f, b, pos, len: b with bits [pos, pos+len) replaced by f's low bits.
uint32_t bfi(uint32_t f, uint32_t b, uint32_t pos, uint32_t len) {
  pos &= 0xffu;
  len &= 0xffu;
  uint32_t d = b;
  for (uint32_t i = 0; i < len && pos + i <= 31; ++i)
    d = (d & ~(1u << (pos + i))) | (((f >> i) & 1u) << (pos + i));
  return d;
}
}  // namespace

QGPU_HOST_REF(bit_tricks) {
  auto A = args.buffer<uint32_t>("A");
  auto B = args.buffer<uint32_t>("B");
  auto out = args.buffer<uint32_t>("out");
  for (unsigned t = 0; t < 32; ++t) {
    uint32_t a = A[t], b = B[t];
    if (t == 0) a = 0;
    if (t == 1) a = 0xffffffffu;
    uint32_t s = b & 63u, pos = (b >> 8) & 63u, len = (b >> 16) & 63u;
    uint32_t* o = &out[t * 19];
    o[0] = popc(a);
    o[1] = clz(a);
    o[2] = brev(a);
    o[3] = a ? static_cast<uint32_t>(__builtin_ctz(a)) + 1u : 0u;
    o[4] = prmt(a, b, (b >> 16) & 0x7777u);  // __byte_perm: selector bit 3 ignored
    o[5] = shfL(a, b, s & 31u);
    o[6] = shfR(a, b, s & 31u);
    o[7] = shfL(a, b, std::min(s, 32u));
    o[8] = shfR(a, b, std::min(s, 32u));
    o[9] = bfe(a, pos, len, false);
    o[10] = bfe(a, pos, len, true);
    o[11] = bfi(b, a, pos, len);
    o[12] = prmt(a, b, b >> 16);
    // dp4a: c + sum of byte products (bytes sign- or zero-extended), 32-bit wrap.
    uint32_t ds = t, du = t;
    for (int i = 0; i < 4; ++i) {
      int32_t sa = static_cast<int8_t>(a >> (8 * i)), sb = static_cast<int8_t>(b >> (8 * i));
      ds += static_cast<uint32_t>(sa * sb);
      du += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
    }
    o[13] = ds;
    o[14] = du;
    int32_t sa = static_cast<int32_t>(a), sb = static_cast<int32_t>(b);
    o[15] = (sa < sb ? b - a : a - b) + t;  // sad.s32: |a - b| in 32-bit wrap + c
    o[16] = (a < b ? b - a : a - b) + t;
    int64_t a24 = static_cast<int32_t>(a << 8) >> 8, b24 = static_cast<int32_t>(b << 8) >> 8;
    o[17] = static_cast<uint32_t>(a24 * b24);  // low 32 bits of the 48-bit product
    o[18] = static_cast<uint32_t>(static_cast<uint64_t>(a24 * b24) >> 16);  // bits 47..16
  }
}
