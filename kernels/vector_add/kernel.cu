// vector_add: c[i] = a[i] + b[i] over a 1D grid of 3 blocks x 32 threads with a
// bounds check (n = 90, so the last 6 threads do nothing).
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
