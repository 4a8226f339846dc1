// prime_sieve: sieve of Eratosthenes for n = 1024 in shared memory by one
// block of 64 threads: for each p < 32 still marked prime (read after a
// barrier), threads strike disjoint multiples p*p + (t + 64k)*p; then flags
// (u8 stores) and a prime count (shared atomicAdd, then one global store).
#define N 1024
extern "C" __global__ void prime_sieve(unsigned char* flags, unsigned* count) {
  __shared__ unsigned char s[N];
  __shared__ unsigned total;
  unsigned t = threadIdx.x;
  for (unsigned i = t; i < N; i += 64) s[i] = i >= 2;
  if (t == 0) total = 0;
  __syncthreads();
  for (unsigned p = 2; p * p < N; ++p) {
    bool isPrime = s[p] != 0;
    __syncthreads();
    if (isPrime)
      for (unsigned m = p * p + t * p; m < N; m += 64 * p) s[m] = 0;
    __syncthreads();
  }
  unsigned mine = 0;
  for (unsigned i = t; i < N; i += 64) {
    flags[i] = s[i];
    mine += s[i];
  }
  atomicAdd(&total, mine);
  __syncthreads();
  if (t == 0) *count = total;
}
