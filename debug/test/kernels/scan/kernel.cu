// Inclusive prefix sum of 16 integers in one block (Hillis-Steele in shared
// memory): barriers inside a loop, every thread reads its neighbours' writes.
extern "C" __global__ void scan(const int* in, int* out) {
  __shared__ int buf[16];
  int t = threadIdx.x;
  buf[t] = in[t];
  __syncthreads();
  for (int d = 1; d < 16; d <<= 1) {
    int v = t >= d ? buf[t - d] : 0;
    __syncthreads();
    buf[t] += v;
    __syncthreads();
  }
  out[t] = buf[t];
}
