#include "qgpu/host_ref.h"

// Runs the same bitonic network (each stage's exchanges are independent).
QGPU_HOST_REF(bitonic_sort) {
  auto d = args.buffer<int32_t>("data");
  for (unsigned k = 2; k <= 64; k <<= 1)
    for (unsigned j = k >> 1; j > 0; j >>= 1)
      for (unsigned i = 0; i < 64; ++i) {
        unsigned p = i ^ j;
        if (p <= i) continue;
        int a = d[i], b = d[p];
        bool up = (i & k) == 0;
        if ((a > b) == up) {
          d[i] = b;
          d[p] = a;
        }
      }
}
