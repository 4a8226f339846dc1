#include <cmath>

#include "qgpu/host_ref.h"

QGPU_HOST_REF(layernorm) {
  auto X = args.buffer<float>("X");
  auto G = args.buffer<float>("G");
  auto B = args.buffer<float>("B");
  auto Y = args.buffer<float>("Y");
  unsigned lanes = args.grid().x * args.block().x;
  for (unsigned g0 = 0; g0 < lanes; g0 += 4) {
    const float* x = &X[g0 * 4];
    float s[4], q[4], d[4][4];
    for (unsigned l = 0; l < 4; ++l) {
      const float* v = x + 4 * l;
      s[l] = (v[0] + v[1]) + (v[2] + v[3]);
    }
    for (unsigned k = 1; k < 4; k <<= 1) {
      float n[4];
      for (unsigned l = 0; l < 4; ++l) n[l] = s[l] + s[l ^ k];
      for (unsigned l = 0; l < 4; ++l) s[l] = n[l];
    }
    for (unsigned l = 0; l < 4; ++l) {
      float mean = s[l] * 0.0625f;
      for (unsigned c = 0; c < 4; ++c) d[l][c] = x[4 * l + c] - mean;
      q[l] = std::fma(d[l][3], d[l][3],
                      std::fma(d[l][2], d[l][2], std::fma(d[l][1], d[l][1], d[l][0] * d[l][0])));
    }
    for (unsigned k = 1; k < 4; k <<= 1) {
      float n[4];
      for (unsigned l = 0; l < 4; ++l) n[l] = q[l] + q[l ^ k];
      for (unsigned l = 0; l < 4; ++l) q[l] = n[l];
    }
    for (unsigned l = 0; l < 4; ++l) {
      float var = q[l] * 0.0625f;
      float rstd = 1.0f / std::sqrt(var + 1.0e-5f);
      for (unsigned c = 0; c < 4; ++c)
        Y[(g0 + l) * 4 + c] = std::fma(d[l][c] * rstd, G[4 * l + c], B[4 * l + c]);
    }
  }
}
