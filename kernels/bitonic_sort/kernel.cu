// bitonic_sort: in-place ascending bitonic sort of 64 signed ints in shared
// memory by one block of 64 threads: 21 compare-exchange stages, each followed
// by __syncthreads (data-dependent swaps, i ^ j partner indexing).
extern "C" __global__ void bitonic_sort(int* data) {
  __shared__ int s[64];
  unsigned i = threadIdx.x;
  s[i] = data[i];
  __syncthreads();
  for (unsigned k = 2; k <= 64; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      unsigned p = i ^ j;
      if (p > i) {
        int a = s[i], b = s[p];
        bool up = (i & k) == 0;
        if ((a > b) == up) {
          s[i] = b;
          s[p] = a;
        }
      }
      __syncthreads();
    }
  }
  data[i] = s[i];
}
