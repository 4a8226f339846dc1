// crc32: bitwise reflected CRC-32 (polynomial 0xEDB88320, init and final
// xor ~0) of each thread's own 24-byte chunk (byte loads ld.global.u8,
// an 8-step inner loop with a mask-select), 32 threads.
extern "C" __global__ void crc32(const unsigned char* data, unsigned* out, int chunk) {
  unsigned t = threadIdx.x;
  const unsigned char* p = data + t * chunk;
  unsigned crc = 0xffffffffu;
  for (int i = 0; i < chunk; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  out[t] = ~crc;
}
