// f64_arith: double precision add, mul, div.rn.f64, sqrt.rn.f64, rcp.rn.f64,
// fma.rn.f64 vs separately rounded __dmul_rn + __dadd_rn, and the f64 -> f32
// narrowing (cvt.rn.f32.f64) and f32 -> f64 widening.
extern "C" __global__ void f64_arith(const double* A, const double* B, const double* C,
                                     double* out, float* fout) {
  unsigned t = threadIdx.x;
  double a = A[t], b = B[t], c = C[t];
  double* o = out + t * 8;
  o[0] = a + b;
  o[1] = a * b;
  o[2] = a / b;
  o[3] = sqrt(fabs(a));
  o[4] = __drcp_rn(b);
  o[5] = fma(a, b, c);
  o[6] = __dadd_rn(__dmul_rn(a, b), c);
  o[7] = (double)(float)c + a;
  fout[t] = __double2float_rn(a * 1.0e-3);
}
