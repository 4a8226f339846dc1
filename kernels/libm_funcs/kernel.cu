// libm_funcs: CUDA's accurate single-precision library functions expf, logf
// and sinf, which nvcc inlines as instruction sequences (fma range
// reduction, ex2.approx.ftz / lg2-free polynomial paths, sinf's quadrant
// reduction). Inputs stay in sinf's fast-path range (|x| < 105615).
// nvcc flavour only: clang without the CUDA SDK has no libdevice.
extern "C" __global__ void libm_funcs(const float* X, const float* P, float* out) {
  unsigned t = threadIdx.x;
  float x = X[t], p = P[t];
  out[t * 3 + 0] = expf(x);
  out[t * 3 + 1] = logf(p);
  out[t * 3 + 2] = sinf(x);
}
