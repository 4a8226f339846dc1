#include "qgpu/host_ref.h"

// Trial division (a different algorithm from the kernel's sieve).
QGPU_HOST_REF(prime_sieve) {
  auto flags = args.buffer<uint8_t>("flags");
  auto count = args.buffer<uint32_t>("count");
  uint32_t c = 0;
  for (uint32_t i = 0; i < flags.size(); ++i) {
    bool prime = i >= 2;
    for (uint32_t q = 2; prime && q * q <= i; ++q) prime = i % q != 0;
    flags[i] = prime ? 1 : 0;
    c += prime;
  }
  count[0] = c;
}
