// vote: 4-lane ballot / any / all in every group of a 32-thread block, with the
// full group mask and, inside a divergent branch, with the mask of the lanes
// that took it (itself a ballot). Group ballots are shifted to bits 0..3.
#include "../include/qgpu_device.h"

extern "C" __global__ void vote(const int* in, unsigned* out) {
  unsigned t = threadIdx.x, base = qgpu_group_base();
  unsigned m = qgpu_group_mask();
  int x = in[t];
  int p = x > 0;
  unsigned b = (__ballot_sync(m, p) >> base) & 0xfu;
  unsigned any = __any_sync(m, p), all = __all_sync(m, p);
  unsigned r = b | any << 4 | all << 5 | (unsigned)__popc(b) << 8;
  int odd = x & 1;
  unsigned sub = __ballot_sync(m, odd);  // lanes that take the branch
  if (odd) {
    unsigned b2 = (__ballot_sync(sub, x > 10) >> base) & 0xfu;
    unsigned all2 = __all_sync(sub, x > -10);
    r |= b2 << 12 | all2 << 16;
  } else {
    r |= (unsigned)__any_sync(m & ~sub, x < -5) << 20;
  }
  out[t] = r;
}
