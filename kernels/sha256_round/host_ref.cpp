#include <cmath>

#include "qgpu/host_ref.h"

// Textbook SHA-256 compression (FIPS 180-4 section 6.2.2) with a 64-word
// schedule array; the constants are generated from the fractional parts of
// cube / square roots of primes, not copied.
namespace {
uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }
// floor(frac(r) * 2^32); long double (64-bit significand) leaves over 55
// fraction bits for the roots of primes below 320, enough for 32.
uint32_t fracBits(long double r) {
  long double f = r - static_cast<long double>(static_cast<uint64_t>(r));
  return static_cast<uint32_t>(f * 4294967296.0L);
}
}  // namespace

QGPU_HOST_REF(sha256_round) {
  auto msg = args.buffer<uint32_t>("msg");
  auto hash = args.buffer<uint32_t>("hash");
  uint32_t K[64], H0[8];
  unsigned found = 0;
  for (unsigned p = 2; found < 64; ++p) {
    bool prime = true;
    for (unsigned q = 2; q * q <= p; ++q) prime = prime && (p % q != 0);
    if (!prime) continue;
    if (found < 8) H0[found] = fracBits(std::sqrt(static_cast<long double>(p)));
    K[found++] = fracBits(std::cbrt(static_cast<long double>(p)));
  }
  for (unsigned t = 0; t < args.block().x; ++t) {
    uint32_t W[64];
    for (unsigned i = 0; i < 16; ++i) W[i] = msg[t * 16 + i];
    for (unsigned i = 16; i < 64; ++i) {
      uint32_t s0 = rotr(W[i - 15], 7) ^ rotr(W[i - 15], 18) ^ (W[i - 15] >> 3);
      uint32_t s1 = rotr(W[i - 2], 17) ^ rotr(W[i - 2], 19) ^ (W[i - 2] >> 10);
      W[i] = W[i - 16] + s0 + W[i - 7] + s1;
    }
    uint32_t v[8];
    for (unsigned i = 0; i < 8; ++i) v[i] = H0[i];
    for (unsigned r = 0; r < 64; ++r) {
      uint32_t S1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
      uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
      uint32_t t1 = v[7] + S1 + ch + K[r] + W[r];
      uint32_t S0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
      uint32_t mj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      for (unsigned i = 7; i > 0; --i) v[i] = v[i - 1];
      v[4] += t1;
      v[0] = t1 + S0 + mj;
    }
    for (unsigned i = 0; i < 8; ++i) hash[t * 8 + i] = H0[i] + v[i];
  }
}
