// gcd: greatest common divisor of u32 pairs two ways: Euclid's algorithm
// (rem.u32 in a data-dependent loop) and binary GCD (Stein: __ffs-based
// trailing-zero shifts, subtract/swap loop); out[2t] / out[2t+1].
extern "C" __global__ void gcd(const unsigned* A, const unsigned* B, unsigned* out) {
  unsigned t = threadIdx.x;
  unsigned a = A[t], b = B[t];
  unsigned x = a, y = b;
  while (y != 0) {
    unsigned r = x % y;
    x = y;
    y = r;
  }
  out[2 * t] = x;
  unsigned u = a, v = b, g;
  if (u == 0) g = v;
  else if (v == 0) g = u;
  else {
    unsigned shift = (unsigned)__ffs((int)(u | v)) - 1u;
    u >>= (unsigned)__ffs((int)u) - 1u;
    do {
      v >>= (unsigned)__ffs((int)v) - 1u;
      if (u > v) {
        unsigned tmp = u;
        u = v;
        v = tmp;
      }
      v -= u;
    } while (v != 0);
    g = u << shift;
  }
  out[2 * t + 1] = g;
}
