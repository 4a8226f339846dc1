// cvt_float_int: float -> integer conversions with NaN, +-inf, +-0, ties,
// values just inside and outside the s32/u32/s64 ranges (cvt.r*i saturates;
// NaN -> 0, or 1 << (bits - 1) from an f64 source or into a 64-bit integer as
// docs/semantics.md models it): __float2int_{rn,rz,rd,ru}, __float2uint_{rn,rz},
// __float2ll_{rn,rz}, __float2ull_rz, __double2int_rz of the widened value;
// and integer -> float rounding: (float) of s32 / u32 / s64 (cvt.rn.f32.*).
extern "C" __global__ void cvt_float_int(const float* F, const long long* L, int* i32,
                                         long long* i64, float* f32) {
  unsigned t = threadIdx.x;
  float f = F[t];
  int* o = i32 + t * 7;
  o[0] = __float2int_rn(f);
  o[1] = __float2int_rz(f);
  o[2] = __float2int_rd(f);
  o[3] = __float2int_ru(f);
  o[4] = (int)__float2uint_rn(f);
  o[5] = (int)__float2uint_rz(f);
  o[6] = __double2int_rz((double)f * 3.0);
  long long* q = i64 + t * 3;
  q[0] = __float2ll_rn(f);
  q[1] = __float2ll_rz(f);
  q[2] = (long long)__float2ull_rz(f);
  long long l = L[t];
  float* r = f32 + t * 3;
  r[0] = (float)(int)l;
  r[1] = (float)(unsigned)l;
  r[2] = (float)l;
}
