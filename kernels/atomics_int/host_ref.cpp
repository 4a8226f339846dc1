#include <algorithm>

#include "qgpu/host_ref.h"

QGPU_HOST_REF(atomics_int) {
  auto in = args.buffer<int32_t>("in");
  auto acc = args.buffer<int32_t>("acc");
  auto bits = args.buffer<uint32_t>("bits");
  auto wide = args.buffer<uint64_t>("wide");
  auto slots = args.buffer<uint32_t>("slots");
  unsigned n = args.grid().x * args.block().x;
  for (unsigned i = 0; i < n; ++i) {
    int v = in[i];
    acc[0] = static_cast<int32_t>(static_cast<uint32_t>(acc[0]) + static_cast<uint32_t>(v));
    acc[1] = std::min(acc[1], v);
    acc[2] = std::max(acc[2], v);
    acc[3] = std::max(acc[3], v * 3);
    bits[0] &= ~(1u << (i & 31)) | static_cast<uint32_t>(v);
    bits[1] |= 1u << (static_cast<uint32_t>(v) & 31u);
    bits[2] ^= static_cast<uint32_t>(v) * 2654435761u;
    bits[3] = bits[3] >= 9u ? 0u : bits[3] + 1u;  // atom.inc.u32 with limit 9
    wide[0] += static_cast<uint64_t>(static_cast<int64_t>(v)) * 1000003ull;
    slots[bits[4]++] = 1u;
  }
}
