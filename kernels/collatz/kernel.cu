// collatz: Collatz stopping times of n = start + global id (64 threads in 2
// blocks): a per-lane data-dependent while loop with an odd/even branch,
// capped at 1000 steps; also the peak value reached (64-bit).
extern "C" __global__ void collatz(unsigned start, unsigned* steps, unsigned long long* peak) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long n = start + i, top = n;
  unsigned s = 0;
  while (n != 1 && s < 1000) {
    if (n & 1) n = 3 * n + 1;
    else n >>= 1;
    if (n > top) top = n;
    ++s;
  }
  steps[i] = s;
  peak[i] = top;
}
