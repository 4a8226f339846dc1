// fast_math: CUDA's fast intrinsics, which map to approximate instructions:
// __expf (ex2.approx.f32 after a multiply by log2 e), __logf (lg2.approx.f32
// then a multiply by ln 2), __sinf / __cosf (sin/cos.approx.f32),
// __fdividef (div.approx.f32) and rsqrtf (rsqrt.approx.f32).
extern "C" __global__ void fast_math(const float* X, const float* P, float* out) {
  unsigned t = threadIdx.x;
  float x = X[t], p = P[t];
  float* o = out + t * 6;
  o[0] = __expf(x);
  o[1] = __logf(p);
  o[2] = __sinf(x);
  o[3] = __cosf(x);
  o[4] = __fdividef(x, p);
  o[5] = rsqrtf(p);
}
