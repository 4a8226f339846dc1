#include "qgpu/host_ref.h"

QGPU_HOST_REF(switch_case) {
  auto in = args.buffer<int32_t>("in");
  auto out = args.buffer<uint32_t>("out");
  for (unsigned t = 0; t < 32; ++t) {
    int x = in[t];
    uint32_t r = static_cast<uint32_t>(x);
    int m = x % 9;
    if (m == 0) r += 11u;
    else if (m == 1) r = (r * 3u) ^ 0x55u;
    else if (m == 2) r ^= 0x55u;
    else if (m == 3 || m == 4) r >>= 2;
    else if (m == -1) r = ~r;
    else if (m == -5) r = r - 1000u + 6u;
    else if (m == 6) r += 6u;
    else r = r * 7u + 1u;
    uint32_t q;
    switch (x & 7) {
      case 0: q = r + 1u; break;
      case 1: q = r * 13u; break;
      case 2: q = r ^ 0xdeadbeefu; break;
      case 3: q = r << 5; break;
      case 4: q = r >> 3; break;
      case 5: q = r - 77u; break;
      case 6: q = ~r + 2u; break;
      default: q = r | 0x80000000u; break;
    }
    out[t] = q;
  }
}
