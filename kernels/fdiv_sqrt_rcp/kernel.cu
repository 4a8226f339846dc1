// fdiv_sqrt_rcp: IEEE f32 division, square root and reciprocal: a / b
// (div.rn.f32), sqrtf(|a|) (sqrt.rn.f32), __frcp_rn(b) (rcp.rn.f32), and the
// directed forms __fdiv_rz, __fdiv_ru and __fsqrt_rz on inputs that include
// zeros, infinities, subnormals and results that overflow or underflow.
// (No input pair gives 0/0 or inf/inf: no NaN is produced.)
extern "C" __global__ void fdiv_sqrt_rcp(const float* A, const float* B, float* out) {
  unsigned t = threadIdx.x;
  float a = A[t], b = B[t];
  float* o = out + t * 6;
  o[0] = a / b;
  o[1] = sqrtf(fabsf(a));
  o[2] = __frcp_rn(b);
  o[3] = __fdiv_rz(a, b);
  o[4] = __fdiv_ru(a, b);
  o[5] = __fsqrt_rz(fabsf(b));
}
