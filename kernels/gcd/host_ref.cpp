#include <numeric>

#include "qgpu/host_ref.h"

// std::gcd; both kernel algorithms must give the same value.
QGPU_HOST_REF(gcd) {
  auto A = args.buffer<uint32_t>("A");
  auto B = args.buffer<uint32_t>("B");
  auto out = args.buffer<uint32_t>("out");
  for (unsigned t = 0; t < args.block().x; ++t) {
    uint32_t g = std::gcd(A[t], B[t]);
    out[2 * t] = g;
    out[2 * t + 1] = g;
  }
}
