// Fixture of the machine's call-inlining tests (machine/test/inline_test.cpp): the
// non-recursive calls of kernels/noinline_call (mix, lerp, put; a loop and divergent call
// sites) plus a callee with early, divergent returns, nested calls, narrow and signed
// parameters, and .local arrays in a callee and its caller. PTX made as tools/gen_ptx.sh
// makes the corpus's: calls.sm_75.ptx (nvcc -arch=sm_75 -ptx -O3), calls.clang.ptx
// (clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_75 -nocudainc -nocudalib -O3 -S
// -include kernels/include/qgpu_cuda.h).
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
// Returns from inside a loop, depending on the lane's data.
__device__ __noinline__ unsigned early(unsigned x) {
  if (x & 1u) return x * 3u;
  for (unsigned i = 0; i < (x & 7u); ++i) {
    x = x * 5u + i;
    if ((x & 12u) == 12u) return x ^ 0x55u;
  }
  return x + 7u;
}
// Nested calls, narrow signed parameters, a .local array indexed by data.
__device__ __noinline__ int outer(signed char c, short s, unsigned x) {
  unsigned t[8];
  for (int i = 0; i < 8; ++i) t[i] = early(x + (unsigned)i);
  return (int)c * (int)s + (int)mix(t[x & 7u], t[(x >> 3) & 7u], 1);
}

extern "C" __global__ void calls(const unsigned* in, const float* f, unsigned* out, float* fout,
                                 int* nested) {
  unsigned t = threadIdx.x;
  unsigned v = in[t];
  unsigned h = 0;
  for (int k = 0; k < 3; ++k) h = mix(h ^ v, (unsigned)k, (int)(v & 3u) + k);
  if (t & 1) h = mix(h, v, 2);
  put(out, h, (int)t);
  fout[t] = lerp(f[t], f[t + 32], (float)(t & 7) * 0.125f);
  // A .local array live across the call of outer, whose frame (with its own array) must not
  // overlap it.
  unsigned loc[16];
  for (int i = 0; i < 16; ++i) loc[i] = in[(t + (unsigned)i) & 31u];
  loc[v & 15u] ^= h;
  int o = outer((signed char)(v >> 8), (short)(v >> 16), v);
  nested[t] = o + (int)loc[(v >> 4) & 15u] + (int)early(v >> 4);
}
