// atomics_int: global integer atomics from 2 blocks x 32 threads whose final
// values do not depend on order: atom.add (32- and 64-bit), min/max (signed),
// and/or/xor, inc with wrap-around, a CAS retry loop computing a max, and
// ticket slots: each thread marks slot[atomicAdd(&ticket, 1)], so every slot
// ends up marked exactly once whatever the order.
extern "C" __global__ void atomics_int(const int* in, int* acc, unsigned* bits,
                                       unsigned long long* wide, unsigned* slots) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  atomicAdd(&acc[0], v);
  atomicMin(&acc[1], v);
  atomicMax(&acc[2], v);
  int seen = acc[3];  // CAS loop: acc[3] = max(acc[3], v * 3)
  while (seen < v * 3) {
    int prev = atomicCAS(&acc[3], seen, v * 3);
    if (prev == seen) break;
    seen = prev;
  }
  atomicAnd(&bits[0], ~(1u << (i & 31)) | (unsigned)v);
  atomicOr(&bits[1], 1u << ((unsigned)v & 31u));
  atomicXor(&bits[2], (unsigned)v * 2654435761u);
  atomicInc(&bits[3], 9u);
  atomicAdd(&wide[0], (unsigned long long)(long long)v * 1000003ull);
  unsigned ticket = atomicAdd(&bits[4], 1u);
  slots[ticket] = 1u;
}
