#include "qgpu/host_ref.h"

QGPU_HOST_REF(dyn_shared) {
  auto in = args.buffer<int32_t>("in");
  auto f = args.buffer<float>("f");
  auto out = args.buffer<int32_t>("out");
  auto fout = args.buffer<float>("fout");
  unsigned n = args.block().x;
  for (unsigned b = 0; b < args.grid().x; ++b)
    for (unsigned t = 0; t < n; ++t) {
      out[b * n + t] = in[b * n + n - 1 - t];
      fout[b * n + t] = 0.5f * (f[2 * b * n + 2 * t] + f[2 * b * n + 2 * t + 1]);
    }
}
