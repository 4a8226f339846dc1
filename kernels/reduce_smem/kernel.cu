// reduce_smem: shared-memory tree reduction. Each of 2 blocks x 64 threads adds
// two inputs, then halves the active threads with __syncthreads between steps;
// thread 0 stores the block's sum.
extern "C" __global__ void reduce_smem(const float* in, float* out) {
  __shared__ float s[64];
  unsigned t = threadIdx.x;
  unsigned base = blockIdx.x * 128;
  s[t] = in[base + t] + in[base + t + 64];
  __syncthreads();
  for (unsigned k = 32; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
