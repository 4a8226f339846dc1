// radix_pass: one stable counting-sort pass of an LSD radix sort on the 4-bit
// digit (key >> shift) & 15 of 64 u32 keys: shared atomicAdd digit counts,
// a serial exclusive scan by thread 0, a per-thread stable rank (count of
// earlier keys with the same digit), then the scatter. Also stores the counts.
extern "C" __global__ void radix_pass(const unsigned* keys, unsigned* out, unsigned* counts,
                                      unsigned shift) {
  __shared__ unsigned cnt[16], off[16], sk[64];
  unsigned t = threadIdx.x;
  if (t < 16) cnt[t] = 0;
  unsigned k = keys[t];
  sk[t] = k;
  __syncthreads();
  unsigned d = (k >> shift) & 15u;
  atomicAdd(&cnt[d], 1u);
  __syncthreads();
  if (t == 0) {
    unsigned run = 0;
    for (int b = 0; b < 16; ++b) {
      off[b] = run;
      run += cnt[b];
    }
  }
  __syncthreads();
  unsigned rank = 0;
  for (unsigned j = 0; j < t; ++j) rank += ((sk[j] >> shift) & 15u) == d;
  out[off[d] + rank] = k;
  if (t < 16) counts[t] = cnt[t];
}
