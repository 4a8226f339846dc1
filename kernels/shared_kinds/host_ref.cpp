// Host reference of shared_kinds: the three block sums, each in its own slot.
#include "qgpu/host_ref.h"

QGPU_HOST_REF(shared_kinds) {
  auto in = args.buffer<int32_t>("in");
  auto out = args.buffer<int32_t>("out");
  unsigned n = args.block().x;
  for (unsigned b = 0; b < args.grid().x; ++b) {
    int32_t moduleSum = 0, funcSum = 0, dynSum = 0;
    for (unsigned t = 0; t < n; ++t) {
      int32_t v = in[b * n + t];
      moduleSum += v;
      funcSum += 3 * v + 1;
      dynSum += v ^ 0x55;
    }
    for (unsigned t = 0; t < n; ++t) {
      out[3 * (b * n + t) + 0] = moduleSum;
      out[3 * (b * n + t) + 1] = funcSum;
      out[3 * (b * n + t) + 2] = dynSum + static_cast<int32_t>(t);
    }
  }
}
