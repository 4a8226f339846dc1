// round_modes: f32 rounding-mode intrinsics: __fadd_{rn,rz,rd,ru},
// __fmul_{rz,rd,ru}, __fmaf_{rz,rd,ru}, __int2float_{rz,rd,ru} and
// __float2int_{rn,rz,rd,ru} (cvt.r*i saturating) on random operands, with
// lanes whose sums overflow (add.rz gives FLT_MAX, add.rn gives inf), and a
// lane where a*b+c is exactly 0 (fma.rm gives -0, the other modes +0).
extern "C" __global__ void round_modes(const float* A, const float* B, const float* C,
                                       const int* I, float* fout, int* iout) {
  unsigned t = threadIdx.x;
  float a = A[t], b = B[t], c = C[t];
  int i = I[t];
  float* f = fout + t * 13;
  f[0] = __fadd_rn(a, b);
  f[1] = __fadd_rz(a, b);
  f[2] = __fadd_rd(a, b);
  f[3] = __fadd_ru(a, b);
  f[4] = __fmul_rz(a, b);
  f[5] = __fmul_rd(a, b);
  f[6] = __fmul_ru(a, b);
  f[7] = __fmaf_rz(a, b, c);
  f[8] = __fmaf_rd(a, b, c);
  f[9] = __fmaf_ru(a, b, c);
  f[10] = __int2float_rz(i);
  f[11] = __int2float_rd(i);
  f[12] = __int2float_ru(i);
  int* o = iout + t * 4;
  float s = a * 1.0e-30f;  // bring into int range for most lanes
  o[0] = __float2int_rn(s);
  o[1] = __float2int_rz(s);
  o[2] = __float2int_rd(s);
  o[3] = __float2int_ru(s);
}
