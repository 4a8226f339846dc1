// transpose: out (W x H) = in (H x W)^T through a padded 4x5 shared tile; grid
// 3x2 of 4x4 blocks; reads and writes are both row-contiguous per tile row.
#define T 4
extern "C" __global__ void transpose(const unsigned* in, unsigned* out, int H, int W) {
  __shared__ unsigned tile[T][T + 1];
  int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;
  if (x < W && y < H) tile[threadIdx.y][threadIdx.x] = in[y * W + x];
  __syncthreads();
  int ox = blockIdx.y * T + threadIdx.x, oy = blockIdx.x * T + threadIdx.y;
  if (ox < H && oy < W) out[oy * H + ox] = tile[threadIdx.x][threadIdx.y];
}
