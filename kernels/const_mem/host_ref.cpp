#include <cmath>

#include "qgpu/host_ref.h"

QGPU_HOST_REF(const_mem) {
  const int ctab[8] = {3, -1, 4, 1, -5, 9, 2, -6};
  const float cpoly[5] = {0.5f, -1.25f, 0.75f, 2.0f, -0.375f};
  auto in = args.buffer<int32_t>("in");
  auto x = args.buffer<float>("x");
  auto iout = args.buffer<int32_t>("iout");
  auto fout = args.buffer<float>("fout");
  for (unsigned t = 0; t < 32; ++t) {
    int v = in[t];
    iout[t] = v * ctab[v & 7] + ctab[(t + 3) & 7];
    float p = cpoly[0];
    for (int k = 1; k < 5; ++k) p = std::fma(p, x[t], cpoly[k]);
    fout[t] = p;
  }
}
