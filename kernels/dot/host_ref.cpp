#include "qgpu/host_ref.h"

// Same order as the kernel: lane products, then the shfl.down tree
// (offset 2, then 1) evaluated on all 4 lanes; lane 0's value is stored.
QGPU_HOST_REF(dot) {
  auto a = args.buffer<float>("a");
  auto b = args.buffer<float>("b");
  auto out = args.buffer<float>("out");
  int n = args.scalar<int32_t>("n");
  float v[4];
  for (unsigned i = 0; i < 4; ++i) v[i] = i < static_cast<unsigned>(n) ? a[i] * b[i] : 0.0f;
  for (unsigned k = 2; k > 0; k >>= 1) {
    float next[4];
    for (unsigned i = 0; i < 4; ++i) next[i] = v[i] + (i + k < 4 ? v[i + k] : v[i]);
    for (unsigned i = 0; i < 4; ++i) v[i] = next[i];
  }
  out[0] = v[0];
}
