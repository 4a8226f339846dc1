// Collatz step counts: data-dependent loops and divergent branches, so lanes
// of one warp run different numbers of iterations.
__device__ __noinline__ unsigned step(unsigned v) { return (v & 1) ? 3 * v + 1 : v / 2; }

extern "C" __global__ void collatz(const unsigned* start, unsigned* steps, unsigned* peak) {
  unsigned t = threadIdx.x;
  unsigned v = start[t], n = 0, top = v;
  while (v != 1) {
    v = step(v);
    top = v > top ? v : top;
    ++n;
  }
  steps[t] = n;
  peak[t] = top;
}
