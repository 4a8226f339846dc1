// noinline_call: calls to __noinline__ device functions (.func with .param
// arguments and return values): an integer mixer with a loop, a float
// function returning an fmaf result, and a void function storing through a
// pointer argument; called from divergent code and in a loop; and a
// tree-recursive function (two self-calls per activation, depth 3..10 chosen
// per lane, so lanes recurse divergently with their own stack frames).
__device__ __noinline__ unsigned mix(unsigned a, unsigned b, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    a ^= b + 0x9e3779b9u + (a << 6) + (a >> 2);
    b = b * 0x01000193u + (unsigned)i;
  }
  return a;
}
extern "C" __device__ __noinline__ float lerp(float a, float b, float w) {
  return fmaf(w, b - a, a);
}
extern "C" __device__ __noinline__ void put(unsigned* p, unsigned v, int k) { p[k] = v + (unsigned)k; }
__device__ __noinline__ unsigned fibx(unsigned n) {
  if (n < 2) return n + 1u;
  return fibx(n - 1) ^ (fibx(n - 2) * 3u + n);
}

extern "C" __global__ void noinline_call(const unsigned* in, const float* f, unsigned* out,
                                         float* fout, unsigned* rec) {
  unsigned t = threadIdx.x;
  unsigned v = in[t];
  unsigned h = 0;
  for (int k = 0; k < 3; ++k) h = mix(h ^ v, (unsigned)k, (int)(v & 3u) + k);
  if (t & 1) h = mix(h, v, 2);
  put(out, h, (int)t);
  fout[t] = lerp(f[t], f[t + 32], (float)(t & 7) * 0.125f);
  rec[t] = fibx(3u + (v & 7u));
}
