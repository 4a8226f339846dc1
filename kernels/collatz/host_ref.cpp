#include "qgpu/host_ref.h"

QGPU_HOST_REF(collatz) {
  uint32_t start = args.scalar<uint32_t>("start");
  auto steps = args.buffer<uint32_t>("steps");
  auto peak = args.buffer<uint64_t>("peak");
  unsigned total = args.grid().x * args.block().x;
  for (unsigned i = 0; i < total; ++i) {
    uint64_t n = static_cast<uint32_t>(start + i), top = n;
    uint32_t s = 0;
    while (n != 1 && s < 1000) {
      n = (n & 1) ? 3 * n + 1 : n >> 1;
      if (n > top) top = n;
      ++s;
    }
    steps[i] = s;
    peak[i] = top;
  }
}
