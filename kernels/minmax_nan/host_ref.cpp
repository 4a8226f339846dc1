#include <algorithm>
#include <cmath>

#include "../include/qgpu_host_util.h"
#include "qgpu/host_ref.h"

using namespace qgpu_host;

namespace {
// min.f32 / max.f32: if one operand is NaN the other is returned.
float fmin32(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : (b < a ? b : a); }
float fmax32(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : (b > a ? b : a); }
uint32_t canon(float f) {
  uint32_t u = f2u(f);
  return (u & 0x7fffffffu) > 0x7f800000u ? 0x7fffffffu : u;
}
}  // namespace

QGPU_HOST_REF(minmax_nan) {
  auto A = args.buffer<float>("A");
  auto B = args.buffer<float>("B");
  auto out = args.buffer<uint32_t>("out");
  auto dout = args.buffer<uint64_t>("dout");
  for (unsigned t = 0; t < 32; ++t) {
    float a = A[t], b = B[t];
    uint32_t* o = &out[t * 7];
    o[0] = canon(fmin32(a, b));
    o[1] = canon(fmax32(a, b));
    o[2] = canon(std::fabs(a));
    uint32_t ua = f2u(a), ub = f2u(b);
    o[3] = static_cast<uint32_t>(std::min(static_cast<int32_t>(ua), static_cast<int32_t>(ub)));
    o[4] = static_cast<uint32_t>(std::max(static_cast<int32_t>(ua), static_cast<int32_t>(ub)));
    o[5] = std::min(ua, ub);
    o[6] = std::max(ua, ub);
    double da = a, db = b;
    double d = std::isnan(da) ? db : std::isnan(db) ? da : (db < da ? db : da);
    uint64_t du = d2u(d);
    dout[t] = (du & 0x7fffffffffffffffull) > 0x7ff0000000000000ull ? 0x7fffffffffffffffull : du;
  }
}
