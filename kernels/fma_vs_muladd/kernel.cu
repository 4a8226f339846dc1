// fma_vs_muladd: fused vs separately rounded multiply-add on the same inputs:
// fmaf (fma.rn.f32), __fmul_rn then __fadd_rn (mul.rn + add.rn, never fused),
// the plain expression a*b+c (both compilers contract it to fma.rn.f32) and
// a*b-c*d with one product fused. Lane 0 gets a = 1+2^-12, b = 1-2^-12,
// c = -1, where the fused result is -2^-24 and the unfused one 0.
extern "C" __global__ void fma_vs_muladd(const float* A, const float* B, const float* C,
                                         float* out) {
  unsigned t = threadIdx.x;
  float a = A[t], b = B[t], c = C[t];
  float* o = out + t * 4;
  o[0] = fmaf(a, b, c);
  o[1] = __fadd_rn(__fmul_rn(a, b), c);
  o[2] = a * b + c;
  o[3] = fmaf(a, b, -__fmul_rn(c, a));
}
