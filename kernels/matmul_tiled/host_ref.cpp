#include <cmath>

#include "qgpu/host_ref.h"

QGPU_HOST_REF(matmul_tiled) {
  auto A = args.buffer<float>("A");
  auto B = args.buffer<float>("B");
  auto C = args.buffer<float>("C");
  int M = args.scalar<int32_t>("M"), N = args.scalar<int32_t>("N"), K = args.scalar<int32_t>("K");
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc = std::fma(A[r * K + k], B[k * N + c], acc);
      C[r * N + c] = acc;
    }
}
