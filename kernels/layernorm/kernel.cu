// layernorm: layer normalisation of rows of 16 floats, one row per 4-lane
// group, 4 values per lane loaded as float4 (ld.global.v4.f32): mean and
// variance by lane-local sums then width-4 shfl.bfly, rstd = rcp.rn(sqrt.rn(
// var + eps)), y = fmaf(d * rstd, gamma, beta). All roundings explicit.
#include "../include/qgpu_device.h"

extern "C" __global__ void layernorm(const float4* X, const float4* G, const float4* B,
                                     float4* Y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 3u;
  unsigned m = qgpu_group_mask();
  float4 x = X[i];
  float s = __fadd_rn(__fadd_rn(x.x, x.y), __fadd_rn(x.z, x.w));
  for (int k = 1; k < 4; k <<= 1) s = __fadd_rn(s, __shfl_xor_sync(m, s, k, 4));
  float mean = __fmul_rn(s, 0.0625f);
  float dx = __fsub_rn(x.x, mean), dy = __fsub_rn(x.y, mean), dz = __fsub_rn(x.z, mean),
        dw = __fsub_rn(x.w, mean);
  float q = fmaf(dw, dw, fmaf(dz, dz, fmaf(dy, dy, __fmul_rn(dx, dx))));
  for (int k = 1; k < 4; k <<= 1) q = __fadd_rn(q, __shfl_xor_sync(m, q, k, 4));
  float var = __fmul_rn(q, 0.0625f);
  float rstd = __frcp_rn(__fsqrt_rn(__fadd_rn(var, 1.0e-5f)));
  float4 g = G[lane], b = B[lane];
  float4 y;
  y.x = fmaf(__fmul_rn(dx, rstd), g.x, b.x);
  y.y = fmaf(__fmul_rn(dy, rstd), g.y, b.y);
  y.z = fmaf(__fmul_rn(dz, rstd), g.z, b.z);
  y.w = fmaf(__fmul_rn(dw, rstd), g.w, b.w);
  Y[i] = y;
}
