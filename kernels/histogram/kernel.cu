// histogram: 16-bin histogram (bin = byte >> 4) of n bytes by 2 blocks x 64
// threads with a grid-stride loop; shared-memory atomicAdd per block, then one
// global atomicAdd per bin and block. Integer atomics: order-independent.
extern "C" __global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
  __shared__ unsigned h[16];
  unsigned t = threadIdx.x;
  if (t < 16) h[t] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&h[data[i] >> 4], 1u);
  __syncthreads();
  if (t < 16) atomicAdd(&bins[t], h[t]);
}
