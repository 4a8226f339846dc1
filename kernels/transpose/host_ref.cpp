#include "qgpu/host_ref.h"

QGPU_HOST_REF(transpose) {
  auto in = args.buffer<uint32_t>("in");
  auto out = args.buffer<uint32_t>("out");
  int H = args.scalar<int32_t>("H"), W = args.scalar<int32_t>("W");
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) out[x * H + y] = in[y * W + x];
}
