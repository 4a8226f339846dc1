// int64_arith: 64-bit integer add/sub/mul (wrapping, done unsigned), variable
// shifts (amount & 63, arithmetic and logical right), signed and unsigned
// 64-bit division/remainder (div.s64/rem.u64; 0 divisor -> 5, LLONG_MIN / -1
// avoided), signed compare/select, a 32->64 sign extension, and the 64-bit
// bit instructions clz.b64, popc.b64, brev.b64 and __ffsll.
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
  long long* o = out + t * 14;
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
  unsigned long long m = ua ^ (ub >> (b & 63));  // some lanes 0 or small
  if (t == 0) m = 0;
  o[10] = __clzll((long long)m);
  o[11] = __popcll(m);
  o[12] = (long long)__brevll(m);
  o[13] = __ffsll((long long)m);
}
