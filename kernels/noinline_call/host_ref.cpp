#include <cmath>

#include "qgpu/host_ref.h"

namespace {
uint32_t mix(uint32_t a, uint32_t b, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    a ^= b + 0x9e3779b9u + (a << 6) + (a >> 2);
    b = b * 0x01000193u + static_cast<uint32_t>(i);
  }
  return a;
}
uint32_t fibx(uint32_t n) {
  if (n < 2) return n + 1u;
  return fibx(n - 1) ^ (fibx(n - 2) * 3u + n);
}
}  // namespace

QGPU_HOST_REF(noinline_call) {
  auto in = args.buffer<uint32_t>("in");
  auto f = args.buffer<float>("f");
  auto out = args.buffer<uint32_t>("out");
  auto fout = args.buffer<float>("fout");
  auto rec = args.buffer<uint32_t>("rec");
  for (unsigned t = 0; t < 32; ++t) {
    uint32_t v = in[t], h = 0;
    for (int k = 0; k < 3; ++k) h = mix(h ^ v, static_cast<uint32_t>(k), static_cast<int>(v & 3u) + k);
    if (t & 1) h = mix(h, v, 2);
    out[t] = h + t;
    float w = static_cast<float>(t & 7) * 0.125f;
    fout[t] = std::fma(w, f[t + 32] - f[t], f[t]);
    rec[t] = fibx(3u + (v & 7u));
  }
}
