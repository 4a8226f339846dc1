#include "qgpu/host_ref.h"

QGPU_HOST_REF(shfl_patterns) {
  auto in = args.buffer<int32_t>("in");
  auto w = args.buffer<int64_t>("w");
  auto out = args.buffer<int32_t>("out");
  auto wout = args.buffer<int64_t>("wout");
  for (unsigned t = 0; t < 32; ++t) {
    unsigned base = t & ~3u, g = t & 3u, pair = t & ~1u;
    auto at = [&](unsigned lane) { return in[lane]; };
    int v = in[t];
    int32_t* o = &out[t * 8];
    o[0] = at(base + ((g + 1) & 3u));
    o[1] = at(base + ((g + 5) & 3u));
    o[2] = g >= 3 ? at(t - 3) : v;
    o[3] = g + 3 <= 3 ? at(t + 3) : v;
    o[4] = v;
    unsigned p = t & 1u;  // width 2: segment [pair, pair+1]
    o[5] = at(pair + (p ^ 1u)) + (p + 1 <= 1 ? at(t + 1) : v);
    int r = -1;
    if (v & 1) {
      unsigned first = 0;
      while (!(in[base + first] & 1)) ++first;
      r = in[base + first] * 10;
    }
    o[6] = r;
    o[7] = static_cast<int32_t>(base + 3);
    wout[t] = w[base + (g ^ 3u)];
  }
}
