#include "../include/qgpu_host_util.h"
#include "qgpu/host_ref.h"

using namespace qgpu_host;

namespace {
uint16_t canon16(uint16_t h) { return ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) ? 0x7e00u : h; }
uint32_t canon32(float f) {
  uint32_t u = f2u(f);
  return (u & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : u;
}
}  // namespace

QGPU_HOST_REF(cvt_half) {
  auto F = args.buffer<float>("F");
  auto H = args.buffer<uint16_t>("H");
  auto h16 = args.buffer<uint16_t>("h16");
  auto f32 = args.buffer<uint32_t>("f32");
  for (unsigned t = 0; t < 32; ++t) {
    h16[t] = canon16(f32ToF16(F[t]));
    float b = f16ToF32(H[t]);
    f32[t] = canon32(b);
    h16[32 + t] = canon16(f32ToF16(b * 3.0f));
  }
}
