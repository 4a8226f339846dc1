// dyn_shared: extern __shared__ dynamic shared memory (size from the launch:
// dynamic_shared_bytes = 768) carved into an int region and a float region
// behind it: each block reverses its 64 ints through shared memory and
// averages float neighbours, 2 blocks.
extern "C" __global__ void dyn_shared(const int* in, const float* f, int* out, float* fout) {
  extern __shared__ int dyn[];
  int* si = dyn;                          // 64 ints
  float* sf = (float*)(dyn + blockDim.x);  // 128 floats
  unsigned t = threadIdx.x, n = blockDim.x, base = blockIdx.x * n;
  si[t] = in[base + t];
  sf[t] = f[2 * base + t];
  sf[t + n] = f[2 * base + t + n];
  __syncthreads();
  out[base + t] = si[n - 1 - t];
  fout[base + t] = 0.5f * (sf[2 * t] + sf[2 * t + 1]);
}
