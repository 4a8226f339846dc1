#include "qgpu/host_ref.h"

QGPU_HOST_REF(byte_short_ldst) {
  auto s8 = args.buffer<int8_t>("s8");
  auto u8 = args.buffer<uint8_t>("u8");
  auto s16 = args.buffer<int16_t>("s16");
  auto u16 = args.buffer<uint16_t>("u16");
  auto o8 = args.buffer<uint8_t>("o8");
  auto o16 = args.buffer<uint16_t>("o16");
  auto o32 = args.buffer<int32_t>("o32");
  for (unsigned t = 0; t < 32; ++t) {
    int a = s8[t], b = u8[t], c = s16[t], d = u16[t];
    o8[t] = static_cast<uint8_t>(a * 3 + b);
    o16[t] = static_cast<uint16_t>(c * 5 - d);
    o32[t * 2] = a + b + c + d;
    o32[t * 2 + 1] = static_cast<int>(static_cast<int8_t>(b + 1)) * static_cast<int>(static_cast<int16_t>(d + 3));
    o8[32 + t] = static_cast<uint8_t>(u8[(t + 1) & 31] ^ 0x5a);
  }
}
