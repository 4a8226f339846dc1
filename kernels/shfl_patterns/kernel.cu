// shfl_patterns: shfl.sync.idx/up/down/bfly corner cases inside 4-lane
// groups: idx rotation and source lanes >= width (taken modulo the width),
// up/down by 3 and by 4 (out of segment: own value), width-2 segments,
// a 64-bit value as two shuffles, and shuffles in a divergent branch with
// the branch's (ballot-derived) member mask.
#include "../include/qgpu_device.h"

extern "C" __global__ void shfl_patterns(const int* in, const long long* w, int* out,
                                         long long* wout) {
  unsigned t = threadIdx.x, g = t & 3u;
  unsigned m = qgpu_group_mask();
  int v = in[t];
  int* o = out + t * 8;
  o[0] = __shfl_sync(m, v, (int)((g + 1) & 3u), 4);
  o[1] = __shfl_sync(m, v, (int)(g + 5), 4);
  o[2] = __shfl_up_sync(m, v, 3, 4);
  o[3] = __shfl_down_sync(m, v, 3, 4);
  o[4] = __shfl_down_sync(m, v, 4, 4);
  o[5] = __shfl_xor_sync(m, v, 1, 2) + __shfl_down_sync(m, v, 1, 2);
  int odd = v & 1;
  unsigned sub = __ballot_sync(m, odd);
  int r = -1;
  if (odd) {
    // lowest odd lane of the group broadcasts to the other odd lanes
    unsigned first = (unsigned)__ffs((int)sub) - 1u;
    r = __shfl_sync(sub, v * 10, (int)(first & 3u), 4);
  }
  o[6] = r;
  o[7] = __shfl_sync(m, t, 3, 4);
  long long x = w[t];
  int lo = __shfl_xor_sync(m, (int)(unsigned long long)x, 3, 4);
  int hi = __shfl_xor_sync(m, (int)((unsigned long long)x >> 32), 3, 4);
  wout[t] = (long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}
