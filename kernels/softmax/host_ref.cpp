#include <cmath>

#include "../include/qgpu_host_util.h"
#include "qgpu/host_ref.h"

// ex2.approx.ftz.f32 uses the interpreter's model (qgpu_host::ex2ApproxFtz).
using namespace qgpu_host;

QGPU_HOST_REF(softmax) {
  auto in = args.buffer<float>("in");
  auto out = args.buffer<float>("out");
  unsigned n = args.grid().x * args.block().x;
  const float log2e = u2f(0x3FB8AA3B);
  for (unsigned r = 0; r < n; r += 4) {
    float v[4], e[4];
    for (unsigned i = 0; i < 4; ++i) v[i] = in[r + i];
    float mx[4], s[4];
    for (unsigned i = 0; i < 4; ++i) mx[i] = v[i];
    for (unsigned k = 1; k < 4; k <<= 1) {  // butterfly max; no NaN inputs
      float nx[4];
      for (unsigned i = 0; i < 4; ++i) nx[i] = std::fmax(mx[i], mx[i ^ k]);
      for (unsigned i = 0; i < 4; ++i) mx[i] = nx[i];
    }
    for (unsigned i = 0; i < 4; ++i) s[i] = e[i] = ex2ApproxFtz((v[i] - mx[i]) * log2e);
    for (unsigned k = 1; k < 4; k <<= 1) {
      float ns[4];
      for (unsigned i = 0; i < 4; ++i) ns[i] = s[i] + s[i ^ k];
      for (unsigned i = 0; i < 4; ++i) s[i] = ns[i];
    }
    for (unsigned i = 0; i < 4; ++i) out[r + i] = e[i] / s[i];
  }
}
