#include "qgpu/host_ref.h"

QGPU_HOST_REF(radix_pass) {
  auto keys = args.buffer<uint32_t>("keys");
  auto out = args.buffer<uint32_t>("out");
  auto counts = args.buffer<uint32_t>("counts");
  uint32_t shift = args.scalar<uint32_t>("shift");
  uint32_t cnt[16] = {};
  for (unsigned i = 0; i < 64; ++i) ++cnt[(keys[i] >> shift) & 15u];
  unsigned pos = 0;
  for (unsigned b = 0; b < 16; ++b)  // stable: keys of digit b in input order
    for (unsigned i = 0; i < 64; ++i)
      if (((keys[i] >> shift) & 15u) == b) out[pos++] = keys[i];
  for (unsigned b = 0; b < 16; ++b) counts[b] = cnt[b];
}
