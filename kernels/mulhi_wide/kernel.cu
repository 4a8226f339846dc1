// mulhi_wide: high halves and widening products: mul.hi.u32/s32 (__umulhi,
// __mulhi), mul.hi.u64/s64 (__umul64hi, __mul64hi), mul.wide.u32/s32 (32x32
// -> 64 products), and mul.lo of the wide operands.
extern "C" __global__ void mulhi_wide(const unsigned* A, const unsigned* B,
                                      const unsigned long long* C, const unsigned long long* D,
                                      unsigned long long* out) {
  unsigned t = threadIdx.x;
  unsigned a = A[t], b = B[t];
  unsigned long long c = C[t], d = D[t];
  unsigned long long* o = out + t * 7;
  o[0] = __umulhi(a, b);
  o[1] = (unsigned long long)(long long)__mulhi((int)a, (int)b);
  o[2] = __umul64hi(c, d);
  o[3] = (unsigned long long)__mul64hi((long long)c, (long long)d);
  o[4] = (unsigned long long)a * b;
  o[5] = (unsigned long long)((long long)(int)a * (int)b);
  o[6] = c * d;
}
