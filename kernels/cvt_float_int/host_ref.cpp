#include "../include/qgpu_host_util.h"
#include "qgpu/host_ref.h"

using namespace qgpu_host;

QGPU_HOST_REF(cvt_float_int) {
  auto F = args.buffer<float>("F");
  auto L = args.buffer<int64_t>("L");
  auto i32 = args.buffer<int32_t>("i32");
  auto i64 = args.buffer<int64_t>("i64");
  auto f32 = args.buffer<float>("f32");
  for (unsigned t = 0; t < 32; ++t) {
    double f = F[t];  // exact widening
    int32_t* o = &i32[t * 7];
    o[0] = cvtFloatToInt<int32_t>(f, Rnd::rn);
    o[1] = cvtFloatToInt<int32_t>(f, Rnd::rz);
    o[2] = cvtFloatToInt<int32_t>(f, Rnd::rm);
    o[3] = cvtFloatToInt<int32_t>(f, Rnd::rp);
    o[4] = static_cast<int32_t>(cvtFloatToInt<uint32_t>(f, Rnd::rn));
    o[5] = static_cast<int32_t>(cvtFloatToInt<uint32_t>(f, Rnd::rz));
    o[6] = cvtFloatToInt<int32_t>(f * 3.0, Rnd::rz, true);  // f64 multiply, RN; f64 source
    int64_t* q = &i64[t * 3];
    q[0] = cvtFloatToInt<int64_t>(f, Rnd::rn);
    q[1] = cvtFloatToInt<int64_t>(f, Rnd::rz);
    q[2] = static_cast<int64_t>(cvtFloatToInt<uint64_t>(f, Rnd::rz));
    int64_t l = L[t];
    float* r = &f32[t * 3];
    r[0] = static_cast<float>(static_cast<int32_t>(l));
    r[1] = static_cast<float>(static_cast<uint32_t>(l));
    r[2] = static_cast<float>(l);
  }
}
