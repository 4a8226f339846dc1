// shared_kinds: the three kinds of shared memory in one kernel: a module-scope
// __shared__ array, a function-scope __shared__ array (nvcc declares it inside
// the entry, a "demoted" variable) and extern __shared__ dynamic memory (256
// bytes from the launch). Each thread writes a different value into each, the
// block sums every array through its own shared tree, and each sum lands in its
// own output slot: if two kinds overlap, the sums of the overlapped arrays change.
__shared__ int module_buf[64];

extern "C" __global__ void shared_kinds(const int* in, int* out) {
  __shared__ int func_buf[64];
  extern __shared__ int dyn[];
  unsigned t = threadIdx.x, n = blockDim.x, b = blockIdx.x;
  int v = in[b * n + t];
  module_buf[t] = v;
  func_buf[t] = 3 * v + 1;
  dyn[t] = v ^ 0x55;
  __syncthreads();
  for (unsigned s = n / 2; s > 0; s >>= 1) {
    if (t < s) {
      module_buf[t] += module_buf[t + s];
      func_buf[t] += func_buf[t + s];
      dyn[t] += dyn[t + s];
    }
    __syncthreads();
  }
  // Every thread reads the three sums back, so a thread whose writes went to
  // the wrong array shows up in its own slot too.
  out[3 * (b * n + t) + 0] = module_buf[0];
  out[3 * (b * n + t) + 1] = func_buf[0];
  out[3 * (b * n + t) + 2] = dyn[0] + (int)t;
}
