#include "qgpu/host_ref.h"

// Integer addition is associative (wrapping), so a running sum equals the tree.
QGPU_HOST_REF(scan_hs) {
  auto in = args.buffer<int32_t>("in");
  auto out = args.buffer<int32_t>("out");
  uint32_t acc = 0;
  for (unsigned i = 0; i < 64; ++i) {
    acc += static_cast<uint32_t>(in[i]);
    out[i] = static_cast<int32_t>(acc);
  }
}
