#include "../include/qgpu_host_util.h"
#include "qgpu/host_ref.h"

QGPU_HOST_REF(compare_select) {
  auto A = args.buffer<int32_t>("A");
  auto B = args.buffer<int32_t>("B");
  auto F = args.buffer<float>("F");
  auto G = args.buffer<float>("G");
  auto out = args.buffer<uint32_t>("out");
  for (unsigned t = 0; t < 32; ++t) {
    int32_t a = A[t], b = B[t];
    uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    float f = F[t], g = G[t];
    uint32_t r = 0;
    r |= static_cast<uint32_t>(a < b) << 0;
    r |= static_cast<uint32_t>(ua < ub) << 1;
    r |= static_cast<uint32_t>(a >= b) << 2;
    r |= static_cast<uint32_t>(ua >= ub) << 3;
    r |= static_cast<uint32_t>(f < g) << 4;
    r |= static_cast<uint32_t>(!(f >= g)) << 5;
    r |= static_cast<uint32_t>(f == g) << 6;
    r |= static_cast<uint32_t>(f != g) << 7;
    r |= static_cast<uint32_t>(f <= g) << 8;
    r |= static_cast<uint32_t>(!(f > g)) << 9;
    r |= static_cast<uint32_t>(f != f) << 10;
    r |= static_cast<uint32_t>(f == f && g == g) << 11;
    out[t * 3] = r;
    out[t * 3 + 1] = a < b ? ua * 3u : ub ^ 0xffu;
    out[t * 3 + 2] = f < g ? qgpu_host::f2u(g) : (f != f ? 7u : 9u);
  }
}
