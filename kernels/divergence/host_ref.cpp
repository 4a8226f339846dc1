#include "qgpu/host_ref.h"

QGPU_HOST_REF(divergence) {
  auto X = args.buffer<int32_t>("X");
  auto Y = args.buffer<int32_t>("Y");
  auto out = args.buffer<int32_t>("out");
  for (unsigned t = 0; t < args.block().x; ++t) {
    int32_t x = X[t], y = Y[t];
    uint32_t acc = (x & 8) ? static_cast<uint32_t>(x) * 3u + 1u
                           : static_cast<uint32_t>(y) - static_cast<uint32_t>(x);
    int outer = x & 7;
    for (int i = 0; i < outer; ++i) {
      if ((acc ^ static_cast<uint32_t>(i)) & 1u) {
        acc += static_cast<uint32_t>(i);
        continue;
      }
      int inner = 1 + (y % 5 + 5) % 5 + i;
      for (int j = 0; j < inner; ++j) {
        acc = acc * 5u + static_cast<uint32_t>(j);
        if ((acc & 31u) == 7u) break;
      }
    }
    out[t] = static_cast<int32_t>(acc);
  }
}
