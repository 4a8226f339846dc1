// stencil_2d: one Jacobi step of the 5-point Laplacian on a 10x10 grid
// (2D block 10x10, threadIdx.y rows): interior points become
// 0.25 * ((north + south) + (west + east)); the boundary is copied.
extern "C" __global__ void stencil_2d(const float* in, float* out, int w, int h) {
  int x = threadIdx.x, y = threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[i] = in[i];
    return;
  }
  float ns = in[i - w] + in[i + w];
  float we = in[i - 1] + in[i + 1];
  out[i] = 0.25f * (ns + we);
}
