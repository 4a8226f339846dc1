// vector_ldst: vector memory accesses: ld/st.global.v4.u32 (int4, lanes
// reversed), ld/st.global.v2.f32 (float2, swapped and scaled), and
// st/ld.shared.v2.u32 (uint2) read back by another thread after a barrier.
extern "C" __global__ void vector_ldst(const int4* a, const float2* f, int4* o4, float2* o2,
                                       uint2* ou) {
  __shared__ uint2 s[32];
  unsigned t = threadIdx.x;
  int4 v = a[t];
  int4 r;
  r.x = v.w; r.y = v.z; r.z = v.y; r.w = v.x + 1;
  o4[t] = r;
  float2 p = f[t];
  float2 q;
  q.x = p.y * 2.0f;
  q.y = p.x;
  o2[t] = q;
  uint2 u;
  u.x = (unsigned)v.x ^ t;
  u.y = (unsigned)v.y + t;
  s[t] = u;
  __syncthreads();
  ou[t] = s[31 - t];
}
