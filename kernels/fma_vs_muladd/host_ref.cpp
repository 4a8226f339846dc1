#include <cmath>

#include "qgpu/host_ref.h"

QGPU_HOST_REF(fma_vs_muladd) {
  auto A = args.buffer<float>("A");
  auto B = args.buffer<float>("B");
  auto C = args.buffer<float>("C");
  auto out = args.buffer<float>("out");
  for (unsigned t = 0; t < 32; ++t) {
    float a = A[t], b = B[t], c = C[t];
    float* o = &out[t * 4];
    o[0] = std::fma(a, b, c);
    o[1] = a * b + c;  // -ffp-contract=off: two roundings
    o[2] = std::fma(a, b, c);
    o[3] = std::fma(a, b, -(c * a));
  }
}
