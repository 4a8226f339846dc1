// sha256_round: the SHA-256 compression function (64 rounds with the message
// schedule) applied by each of 32 threads to its own 16-word block, starting
// from the standard initial hash; rotations via __funnelshift_r (shf.r.wrap),
// round constants in __constant__ memory. Output: the 8 updated hash words.
__constant__ unsigned K256[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u,
    0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu,
    0x9bdc06a7u, 0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu,
    0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
    0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
    0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u, 0xa2bfe8a1u, 0xa81a664bu,
    0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u,
    0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u,
    0xc67178f2u};

static __device__ __forceinline__ unsigned rotr(unsigned x, unsigned n) {
  return __funnelshift_r(x, x, n);
}

extern "C" __global__ void sha256_round(const unsigned* msg, unsigned* hash) {
  unsigned t = threadIdx.x;
  unsigned w[16];
  for (int i = 0; i < 16; ++i) w[i] = msg[t * 16 + i];
  const unsigned h0[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                          0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
  unsigned a = h0[0], b = h0[1], c = h0[2], d = h0[3], e = h0[4], f = h0[5], g = h0[6], h = h0[7];
  for (int r = 0; r < 64; ++r) {
    unsigned wr;
    if (r < 16) {
      wr = w[r];
    } else {
      unsigned w15 = w[(r + 1) & 15], w2 = w[(r + 14) & 15];
      unsigned s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> 3);
      unsigned s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> 10);
      wr = w[r & 15] + s0 + w[(r + 9) & 15] + s1;
      w[r & 15] = wr;
    }
    unsigned S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    unsigned ch = (e & f) ^ (~e & g);
    unsigned t1 = h + S1 + ch + K256[r] + wr;
    unsigned S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    unsigned mj = (a & b) ^ (a & c) ^ (b & c);
    unsigned t2 = S0 + mj;
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  unsigned* o = hash + t * 8;
  o[0] = h0[0] + a; o[1] = h0[1] + b; o[2] = h0[2] + c; o[3] = h0[3] + d;
  o[4] = h0[4] + e; o[5] = h0[5] + f; o[6] = h0[6] + g; o[7] = h0[7] + h;
}
