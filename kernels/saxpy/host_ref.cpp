#include <cmath>

#include "qgpu/host_ref.h"

// The PTX computes fma.rn.f32(a, x[i], y[i]) (contracted a*x+y).
QGPU_HOST_REF(saxpy) {
  float a = args.scalar<float>("a");
  auto x = args.buffer<float>("x");
  auto y = args.buffer<float>("y");
  int n = args.scalar<int32_t>("n");
  for (int i = 0; i < n; ++i) y[i] = std::fma(a, x[i], y[i]);
}
