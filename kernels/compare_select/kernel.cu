// compare_select: comparisons producing predicates and selects: signed vs
// unsigned integer compares on the same bits, ordered vs unordered float
// compares with NaN operands (setp.lt vs setp.ltu etc., isnan), the results
// packed bit by bit into one word per lane; plus selp-style selects.
extern "C" __global__ void compare_select(const int* A, const int* B, const float* F,
                                          const float* G, unsigned* out) {
  unsigned t = threadIdx.x;
  int a = A[t], b = B[t];
  unsigned ua = (unsigned)a, ub = (unsigned)b;
  float f = F[t], g = G[t];
  unsigned r = 0;
  r |= (unsigned)(a < b) << 0;
  r |= (unsigned)(ua < ub) << 1;
  r |= (unsigned)(a >= b) << 2;
  r |= (unsigned)(ua >= ub) << 3;
  r |= (unsigned)(f < g) << 4;
  r |= (unsigned)!(f >= g) << 5;   // unordered-or-less
  r |= (unsigned)(f == g) << 6;
  r |= (unsigned)(f != g) << 7;    // unordered-or-not-equal
  r |= (unsigned)(f <= g) << 8;
  r |= (unsigned)!(f > g) << 9;
  r |= (unsigned)(f != f) << 10;   // isnan
  r |= (unsigned)(f == f && g == g) << 11;
  out[t * 3] = r;
  out[t * 3 + 1] = a < b ? ua * 3u : ub ^ 0xffu;
  out[t * 3 + 2] = f < g ? __float_as_uint(g) : (f != f ? 7u : 9u);
}
