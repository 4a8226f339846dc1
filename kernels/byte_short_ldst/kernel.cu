// byte_short_ldst: 8- and 16-bit memory accesses: ld.global.s8/u8/s16/u16
// with sign vs zero extension, arithmetic in 32 bits, truncating stores
// st.global.u8/u16, and byte-granular shared memory (a char array written by
// one thread and read by its neighbour after a barrier).
extern "C" __global__ void byte_short_ldst(const signed char* s8, const unsigned char* u8,
                                           const short* s16, const unsigned short* u16,
                                           unsigned char* o8, unsigned short* o16, int* o32) {
  __shared__ unsigned char sb[32];
  unsigned t = threadIdx.x;
  int a = s8[t], b = u8[t], c = s16[t], d = u16[t];
  o8[t] = (unsigned char)(a * 3 + b);
  o16[t] = (unsigned short)(c * 5 - d);
  o32[t * 2] = a + b + c + d;
  o32[t * 2 + 1] = (int)(signed char)(b + 1) * (int)(short)(d + 3);
  sb[t] = (unsigned char)(u8[t] ^ 0x5a);
  __syncthreads();
  o8[32 + t] = sb[(t + 1) & 31];
}
