#include "qgpu/host_ref.h"

// Same tree as the kernel: pairwise first add, then halving steps 32..1.
QGPU_HOST_REF(reduce_smem) {
  auto in = args.buffer<float>("in");
  auto out = args.buffer<float>("out");
  for (unsigned b = 0; b < args.grid().x; ++b) {
    float s[64];
    for (unsigned t = 0; t < 64; ++t) s[t] = in[b * 128 + t] + in[b * 128 + t + 64];
    for (unsigned k = 32; k > 0; k >>= 1)
      for (unsigned t = 0; t < k; ++t) s[t] += s[t + k];
    out[b] = s[0];
  }
}
