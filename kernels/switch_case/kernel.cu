// switch_case: a sparse switch on the signed remainder x % 9 (negative case
// labels, shared labels, fallthrough, default) and a dense 8-way switch on
// x & 7 that a compiler may lower to a compare tree or a jump table.
extern "C" __global__ void switch_case(const int* in, unsigned* out) {
  unsigned t = threadIdx.x;
  int x = in[t];
  unsigned r = (unsigned)x;
  switch (x % 9) {
    case 0: r += 11u; break;
    case 1: r *= 3u; [[fallthrough]];
    case 2: r ^= 0x55u; break;
    case 3:
    case 4: r >>= 2; break;
    case -1: r = ~r; break;
    case -5: r -= 1000u; [[fallthrough]];
    case 6: r += 6u; break;
    default: r = r * 7u + 1u;
  }
  unsigned q;
  switch (x & 7) {
    case 0: q = r + 1u; break;
    case 1: q = r * 13u; break;
    case 2: q = r ^ 0xdeadbeefu; break;
    case 3: q = r << 5; break;
    case 4: q = r >> 3; break;
    case 5: q = r - 77u; break;
    case 6: q = ~r + 2u; break;
    default: q = r | 0x80000000u; break;
  }
  out[t] = q;
}
