// bit_tricks: integer bit instructions on random words a, b (plus the edge
// values 0 and ~0 in lanes 0 and 1): popc, clz, brev, ffs, __byte_perm (a
// random selector; CUDA uses 3 bits per byte), raw prmt.b32 with a random
// selector (sign-replicating nibbles included), funnel shifts
// (wrap and clamp, shift amounts 0..63), bfe.u32 / bfe.s32 and bfi.b32 with
// positions/lengths 0..63 (so fields run past bit 31); dp4a.s32/u32,
// sad.s32/u32, __mul24 and mul24.hi.s32 (bits 47..16 of the 48-bit product,
// on sign-extended 24-bit operands).
static __device__ __forceinline__ unsigned bfe_u(unsigned a, unsigned pos, unsigned len) {
  unsigned r;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(pos), "r"(len));
  return r;
}
static __device__ __forceinline__ unsigned prmt(unsigned a, unsigned b, unsigned s) {
  unsigned r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
  return r;
}
static __device__ __forceinline__ int bfe_s(int a, unsigned pos, unsigned len) {
  int r;
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(pos), "r"(len));
  return r;
}
static __device__ __forceinline__ unsigned bfi(unsigned f, unsigned base, unsigned pos,
                                               unsigned len) {
  unsigned r;
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(f), "r"(base), "r"(pos), "r"(len));
  return r;
}

static __device__ __forceinline__ int mul24hi(int a, int b) {
  int r;
  asm("mul24.hi.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

extern "C" __global__ void bit_tricks(const unsigned* A, const unsigned* B, unsigned* out) {
  unsigned t = threadIdx.x;
  unsigned a = A[t], b = B[t];
  if (t == 0) a = 0;
  if (t == 1) a = 0xffffffffu;
  unsigned s = b & 63u, pos = (b >> 8) & 63u, len = (b >> 16) & 63u;
  unsigned* o = out + t * 19;
  o[0] = (unsigned)__popc(a);
  o[1] = (unsigned)__clz((int)a);
  o[2] = __brev(a);
  o[3] = (unsigned)__ffs((int)a);
  o[4] = __byte_perm(a, b, b >> 16);
  o[5] = __funnelshift_l(a, b, s);
  o[6] = __funnelshift_r(a, b, s);
  o[7] = __funnelshift_lc(a, b, s);
  o[8] = __funnelshift_rc(a, b, s);
  o[9] = bfe_u(a, pos, len);
  o[10] = (unsigned)bfe_s((int)a, pos, len);
  o[11] = bfi(b, a, pos, len);
  o[12] = prmt(a, b, b >> 16);
  o[13] = (unsigned)__dp4a((int)a, (int)b, (int)t);
  o[14] = __dp4a(a, b, t);
  o[15] = (unsigned)__sad((int)a, (int)b, t);
  o[16] = __usad(a, b, t);
  o[17] = (unsigned)__mul24((int)a, (int)b);
  int a24 = (int)(a << 8) >> 8, b24 = (int)(b << 8) >> 8;  // well-defined mul24 operands
  o[18] = (unsigned)mul24hi(a24, b24);
}
