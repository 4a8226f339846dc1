#include "qgpu/host_ref.h"

QGPU_HOST_REF(local_array) {
  auto in = args.buffer<uint32_t>("in");
  auto out = args.buffer<uint32_t>("out");
  for (unsigned t = 0; t < 32; ++t) {
    uint32_t x = in[t];
    uint32_t a[16];
    for (unsigned k = 0; k < 16; ++k) a[k] = x * (k + 1);
    for (unsigned k = 0; k < 12; ++k) {
      uint32_t i = (x >> (2 * k)) & 15u;
      uint32_t j = (x + k * 7u) & 15u;
      a[i] += a[j] ^ k;
    }
    uint32_t r = 0;
    for (unsigned k = 0; k < 4; ++k) r = r * 31u + a[(x >> (k * 4 + 1)) & 15u];
    out[t] = r;
  }
}
