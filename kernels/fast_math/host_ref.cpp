#include "../include/qgpu_host_util.h"
#include "qgpu/host_ref.h"

// The approximate instructions use the interpreter's model (qgpu_host_util.h).
using namespace qgpu_host;

QGPU_HOST_REF(fast_math) {
  auto X = args.buffer<float>("X");
  auto P = args.buffer<float>("P");
  auto out = args.buffer<float>("out");
  const float log2e = u2f(0x3FB8AA3B), ln2 = u2f(0x3F317218);
  for (unsigned t = 0; t < 32; ++t) {
    float x = X[t], p = P[t];
    float* o = &out[t * 6];
    o[0] = ex2Approx(x * log2e);
    o[1] = lg2Approx(p) * ln2;
    o[2] = sinApprox(x);
    o[3] = cosApprox(x);
    o[4] = divApprox(x, p);
    o[5] = rsqrtApprox(p);
  }
}
