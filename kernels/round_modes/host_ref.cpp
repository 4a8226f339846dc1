#include "../include/qgpu_host_util.h"
#include "qgpu/host_ref.h"

using namespace qgpu_host;

QGPU_HOST_REF(round_modes) {
  auto A = args.buffer<float>("A");
  auto B = args.buffer<float>("B");
  auto C = args.buffer<float>("C");
  auto I = args.buffer<int32_t>("I");
  auto fout = args.buffer<float>("fout");
  auto iout = args.buffer<int32_t>("iout");
  for (unsigned t = 0; t < 32; ++t) {
    float a = A[t], b = B[t], c = C[t];
    int32_t i = I[t];
    float* f = &fout[t * 13];
    f[0] = a + b;
    f[1] = addR(a, b, Rnd::rz);
    f[2] = addR(a, b, Rnd::rm);
    f[3] = addR(a, b, Rnd::rp);
    f[4] = mulR(a, b, Rnd::rz);
    f[5] = mulR(a, b, Rnd::rm);
    f[6] = mulR(a, b, Rnd::rp);
    f[7] = fmaR(a, b, c, Rnd::rz);
    f[8] = fmaR(a, b, c, Rnd::rm);
    f[9] = fmaR(a, b, c, Rnd::rp);
    f[10] = i2fR(i, Rnd::rz);
    f[11] = i2fR(i, Rnd::rm);
    f[12] = i2fR(i, Rnd::rp);
    int32_t* o = &iout[t * 4];
    float s = a * 1.0e-30f;
    o[0] = cvtFloatToInt<int32_t>(s, Rnd::rn);
    o[1] = cvtFloatToInt<int32_t>(s, Rnd::rz);
    o[2] = cvtFloatToInt<int32_t>(s, Rnd::rm);
    o[3] = cvtFloatToInt<int32_t>(s, Rnd::rp);
  }
}
