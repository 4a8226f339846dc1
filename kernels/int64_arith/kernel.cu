// int64_arith: 64-bit integer add/sub/mul (wrapping, done unsigned), variable
// shifts (amount & 63, arithmetic and logical right), signed and unsigned
// 64-bit division/remainder (div.s64/rem.u64; 0 divisor -> 5, LLONG_MIN / -1
// avoided), signed compare/select and a 32->64 sign extension.
extern "C" __global__ void int64_arith(const long long* A, const long long* B, long long* out) {
  unsigned t = threadIdx.x;
  long long a = A[t], b = B[t];
  unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
  unsigned s = (unsigned)b & 63u;
  long long d = b;
  if (d == 0) d = 5;
  if (a == (long long)0x8000000000000000ull && d == -1) d = 1;
  if (t & 1) d >>= 40;  // small divisors too (never 0 after the fix below)
  if (d == 0) d = -7;
  long long* o = out + t * 10;
  o[0] = (long long)(ua + ub);
  o[1] = (long long)(ua - ub);
  o[2] = (long long)(ua * ub);
  o[3] = (long long)(ua << s);
  o[4] = a >> s;
  o[5] = (long long)(ua >> s);
  o[6] = a / d;
  o[7] = a % d;
  o[8] = (long long)(ua % (unsigned long long)d);
  o[9] = (a < b ? a : b) + (long long)(int)a;
}
