// int_divrem: signed and unsigned 32-bit division and remainder with random
// operands (divisors of both signs; 0 -> 3, and INT_MIN / -1 avoided), and by
// constants 7 / -10 / 10u, which compilers turn into mul.hi sequences.
extern "C" __global__ void int_divrem(const int* A, const int* B, int* out) {
  unsigned t = threadIdx.x;
  int a = A[t], b = B[t];
  if (b == 0) b = 3;
  if (a == (int)0x80000000 && b == -1) b = 1;
  unsigned ua = (unsigned)a, ub = (unsigned)b;
  int* o = out + t * 10;
  o[0] = a / b;
  o[1] = a % b;
  o[2] = (int)(ua / ub);
  o[3] = (int)(ua % ub);
  o[4] = a / 7;
  o[5] = a % 7;
  o[6] = a / -10;
  o[7] = a % -10;
  o[8] = (int)(ua / 10u);
  o[9] = (int)(ua % 10u);
}
