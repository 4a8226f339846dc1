#include "qgpu/host_ref.h"

// Table-driven CRC-32 (same function, different algorithm from the kernel).
QGPU_HOST_REF(crc32) {
  auto data = args.buffer<uint8_t>("data");
  auto out = args.buffer<uint32_t>("out");
  int chunk = args.scalar<int32_t>("chunk");
  uint32_t table[256];
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  for (unsigned t = 0; t < args.block().x; ++t) {
    uint32_t crc = 0xffffffffu;
    for (int i = 0; i < chunk; ++i) crc = table[(crc ^ data[t * chunk + i]) & 0xffu] ^ (crc >> 8);
    out[t] = ~crc;
  }
}
