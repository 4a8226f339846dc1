#include "qgpu/host_ref.h"

QGPU_HOST_REF(histogram) {
  auto data = args.buffer<uint8_t>("data");
  int n = args.scalar<int32_t>("n");
  auto bins = args.buffer<uint32_t>("bins");
  for (int i = 0; i < n; ++i) bins[data[i] >> 4] += 1;
}
