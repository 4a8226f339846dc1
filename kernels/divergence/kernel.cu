// divergence: per-lane control flow with no warp operations: an if/else on
// the input, nested loops whose trip counts differ per lane (outer x & 7,
// inner 1 + (y % 5) + i), a data-dependent continue and an inner break.
extern "C" __global__ void divergence(const int* X, const int* Y, int* out) {
  unsigned t = threadIdx.x;
  int x = X[t], y = Y[t];
  unsigned acc;  // unsigned: wrapping arithmetic is defined
  if (x & 8) {
    acc = (unsigned)x * 3u + 1u;
  } else {
    acc = (unsigned)y - (unsigned)x;
  }
  int outer = x & 7;
  for (int i = 0; i < outer; ++i) {
    if ((acc ^ (unsigned)i) & 1u) {
      acc += (unsigned)i;
      continue;
    }
    int inner = 1 + (y % 5 + 5) % 5 + i;
    for (int j = 0; j < inner; ++j) {
      acc = acc * 5u + (unsigned)j;
      if ((acc & 31u) == 7u) break;
    }
  }
  out[t] = (int)acc;
}
