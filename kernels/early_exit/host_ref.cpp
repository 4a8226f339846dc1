#include "qgpu/host_ref.h"

QGPU_HOST_REF(early_exit) {
  auto in = args.buffer<int32_t>("in");
  auto out = args.buffer<int32_t>("out");
  int n = args.scalar<int32_t>("n");
  for (int i = 0; i < n; ++i) {
    int x = in[i];
    out[i] = -1;
    if (x < 0) continue;
    int steps = 0;
    bool done = false;
    while (!done) {
      if (x == 1) break;
      if (steps == 20) {
        out[i] = 1000 + x % 1000;
        done = true;
        break;
      }
      x = (x & 1) ? x + 7 : x >> 1;
      ++steps;
    }
    if (!done) out[i] = steps;
  }
}
