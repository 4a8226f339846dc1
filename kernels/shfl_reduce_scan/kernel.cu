// shfl_reduce_scan: width-4 warp shuffles in every 4-lane group of a 32-thread
// block: a float butterfly sum (shfl.bfly 1, 2), an int inclusive scan
// (shfl.up 1, 2) and an int max reduction (shfl.down 2, 1) broadcast with
// shfl.idx from group lane 0.
#include "../include/qgpu_device.h"

extern "C" __global__ void shfl_reduce_scan(const float* f, const int* v, float* sum, int* scan,
                                            int* mx) {
  unsigned t = threadIdx.x, g = t & 3u;
  unsigned m = qgpu_group_mask();
  float s = f[t];
  for (int k = 1; k < 4; k <<= 1) s += __shfl_xor_sync(m, s, k, 4);
  sum[t] = s;
  int x = v[t];
  for (unsigned d = 1; d < 4; d <<= 1) {
    int y = __shfl_up_sync(m, x, d, 4);
    if (g >= d) x += y;
  }
  scan[t] = x;
  int y = v[t];
  for (unsigned d = 2; d > 0; d >>= 1) y = max(y, __shfl_down_sync(m, y, d, 4));
  mx[t] = __shfl_sync(m, y, 0, 4);
}
