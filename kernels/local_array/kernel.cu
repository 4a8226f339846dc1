// local_array: a 16-entry per-thread array indexed with run-time values, so
// it lives in local memory (ld.local / st.local on the stack frame): fill,
// scattered read-modify-writes at data-dependent indices, then a gather.
extern "C" __global__ void local_array(const unsigned* in, unsigned* out) {
  unsigned t = threadIdx.x;
  unsigned x = in[t];
  unsigned a[16];
  for (int k = 0; k < 16; ++k) a[k] = x * (unsigned)(k + 1);
  for (int k = 0; k < 12; ++k) {
    unsigned i = (x >> (2 * k)) & 15u;
    unsigned j = (x + (unsigned)k * 7u) & 15u;
    a[i] += a[j] ^ (unsigned)k;
  }
  unsigned r = 0;
  for (int k = 0; k < 4; ++k) r = r * 31u + a[(x >> (k * 4 + 1)) & 15u];
  out[t] = r;
}
