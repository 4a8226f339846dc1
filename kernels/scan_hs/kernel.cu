// scan_hs: Hillis-Steele inclusive prefix sum of 64 ints in shared memory with
// a double buffer and __syncthreads after every step (offsets 1..32).
extern "C" __global__ void scan_hs(const int* in, int* out) {
  __shared__ int s[2][64];
  unsigned t = threadIdx.x;
  int pin = 0;
  s[0][t] = in[t];
  __syncthreads();
  for (unsigned off = 1; off < 64; off <<= 1) {
    int v = s[pin][t];
    if (t >= off) v += s[pin][t - off];
    s[1 - pin][t] = v;
    pin = 1 - pin;
    __syncthreads();
  }
  out[t] = s[pin][t];
}
