// libm_funcs: CUDA's accurate single-precision library functions expf, logf
// and sinf, which nvcc inlines as instruction sequences (expf: fma range
// reduction, fma.rm, ex2.approx.ftz.f32 and a bit-built scale; logf: exponent
// split and an fma polynomial; sinf: cvt.rni quadrant, 3-term Cody-Waite
// reduction, polynomials). Inputs stay in sinf's fast-path range
// (|x| < 105615), so its Payne-Hanek branch is never taken.
// nvcc flavour only: clang without the CUDA SDK has no libdevice.
extern "C" __global__ void libm_funcs(const float* X, const float* P, float* out) {
  unsigned t = threadIdx.x;
  float x = X[t], p = P[t];
  out[t * 3 + 0] = expf(x);
  out[t * 3 + 1] = logf(p);
  out[t * 3 + 2] = sinf(x);
}
