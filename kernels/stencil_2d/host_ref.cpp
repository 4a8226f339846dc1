#include "qgpu/host_ref.h"

QGPU_HOST_REF(stencil_2d) {
  auto in = args.buffer<float>("in");
  auto out = args.buffer<float>("out");
  int w = args.scalar<int32_t>("w"), h = args.scalar<int32_t>("h");
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int i = y * w + x;
      if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[i] = in[i];
        continue;
      }
      float ns = in[i - w] + in[i + w];
      float we = in[i - 1] + in[i + 1];
      out[i] = 0.25f * (ns + we);
    }
}
