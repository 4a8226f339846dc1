// mandelbrot: escape-time iteration counts for a 16x16 view of [-2, 1) x
// [-1.5, 1.5), 2x2 grid of 8x8 blocks, up to 64 iterations: per-lane trip
// counts with a data-dependent break. All float roundings explicit
// (__fmul_rn / __fadd_rn / fmaf), so both compilers emit the same operations.
extern "C" __global__ void mandelbrot(int* iters, int width, int maxIter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  float cx = fmaf((float)px, 0.1875f, -2.0f), cy = fmaf((float)py, 0.1875f, -1.5f);
  float x = 0.0f, y = 0.0f;
  int n = 0;
  while (n < maxIter) {
    float x2 = __fmul_rn(x, x), y2 = __fmul_rn(y, y);
    if (__fadd_rn(x2, y2) > 4.0f) break;
    y = fmaf(__fadd_rn(x, x), y, cy);
    x = __fadd_rn(__fsub_rn(x2, y2), cx);
    ++n;
  }
  iters[py * width + px] = n;
}
