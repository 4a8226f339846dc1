#include "qgpu/host_ref.h"

QGPU_HOST_REF(vector_add) {
  auto a = args.buffer<float>("a");
  auto b = args.buffer<float>("b");
  auto c = args.buffer<float>("c");
  int n = args.scalar<int32_t>("n");
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
