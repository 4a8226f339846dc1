#include <cmath>

#include "../include/qgpu_host_util.h"
#include "qgpu/host_ref.h"

using namespace qgpu_host;

QGPU_HOST_REF(fdiv_sqrt_rcp) {
  auto A = args.buffer<float>("A");
  auto B = args.buffer<float>("B");
  auto out = args.buffer<float>("out");
  for (unsigned t = 0; t < 32; ++t) {
    float a = A[t], b = B[t];
    float* o = &out[t * 6];
    o[0] = a / b;
    o[1] = std::sqrt(std::fabs(a));
    o[2] = 1.0f / b;
    o[3] = divR(a, b, Rnd::rz);
    o[4] = divR(a, b, Rnd::rp);
    o[5] = sqrtR(std::fabs(b), Rnd::rz);
  }
}
