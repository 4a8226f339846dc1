// early_exit: threads leave at different points: out-of-range threads return
// at once, negative inputs return after one store, and the step loop either
// breaks (x reached 1) or returns from inside the loop after 20 steps.
extern "C" __global__ void early_exit(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  out[i] = -1;
  if (x < 0) return;
  int steps = 0;
  while (true) {
    if (x == 1) break;
    if (steps == 20) {
      out[i] = 1000 + x % 1000;
      return;
    }
    x = (x & 1) ? x + 7 : x >> 1;
    ++steps;
  }
  out[i] = steps;
}
