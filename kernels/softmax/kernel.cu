// softmax: row-wise softmax over rows of 4 floats, one row per 4-lane group
// (8 rows per 32-thread block): max via width-4 shfl.bfly + fmaxf,
// exp2((x - max) * log2 e) with ex2.approx.ftz.f32, sum via shfl.bfly, then an
// IEEE division (div.rn.f32).
#include "../include/qgpu_device.h"

static __device__ __forceinline__ float ex2_approx_ftz(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

extern "C" __global__ void softmax(const float* in, float* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned m = qgpu_group_mask();
  float x = in[i];
  float mx = x;
  for (int k = 1; k < 4; k <<= 1) mx = fmaxf(mx, __shfl_xor_sync(m, mx, k, 4));
  float e = ex2_approx_ftz(__fmul_rn(__fsub_rn(x, mx), 1.44269502162933349609375f));
  float s = e;
  for (int k = 1; k < 4; k <<= 1) s = __fadd_rn(s, __shfl_xor_sync(m, s, k, 4));
  out[i] = __fdiv_rn(e, s);
}
