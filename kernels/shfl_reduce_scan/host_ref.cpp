#include <algorithm>

#include "qgpu/host_ref.h"

QGPU_HOST_REF(shfl_reduce_scan) {
  auto f = args.buffer<float>("f");
  auto v = args.buffer<int32_t>("v");
  auto sum = args.buffer<float>("sum");
  auto scan = args.buffer<int32_t>("scan");
  auto mx = args.buffer<int32_t>("mx");
  for (unsigned g0 = 0; g0 < 32; g0 += 4) {
    float s[4];
    for (unsigned i = 0; i < 4; ++i) s[i] = f[g0 + i];
    for (unsigned k = 1; k < 4; k <<= 1) {  // butterfly: s[i] + s[i ^ k]
      float n[4];
      for (unsigned i = 0; i < 4; ++i) n[i] = s[i] + s[i ^ k];
      for (unsigned i = 0; i < 4; ++i) s[i] = n[i];
    }
    for (unsigned i = 0; i < 4; ++i) sum[g0 + i] = s[i];
    int x[4];
    for (unsigned i = 0; i < 4; ++i) x[i] = v[g0 + i];
    for (unsigned d = 1; d < 4; d <<= 1) {  // up: lanes below d keep their value
      int n[4];
      for (unsigned i = 0; i < 4; ++i) n[i] = i >= d ? x[i] + x[i - d] : x[i];
      for (unsigned i = 0; i < 4; ++i) x[i] = n[i];
    }
    for (unsigned i = 0; i < 4; ++i) scan[g0 + i] = x[i];
    int y[4];
    for (unsigned i = 0; i < 4; ++i) y[i] = v[g0 + i];
    for (unsigned d = 2; d > 0; d >>= 1) {  // down: out-of-range lanes read themselves
      int n[4];
      for (unsigned i = 0; i < 4; ++i) n[i] = std::max(y[i], i + d < 4 ? y[i + d] : y[i]);
      for (unsigned i = 0; i < 4; ++i) y[i] = n[i];
    }
    for (unsigned i = 0; i < 4; ++i) mx[g0 + i] = y[0];
  }
}
