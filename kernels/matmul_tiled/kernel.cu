// matmul_tiled: C (8x8) = A (8x12) * B (12x8) with 4x4 shared-memory tiles;
// grid 2x2 of 4x4 blocks, 3 tile steps with two __syncthreads each, explicit
// fmaf accumulation in k order.
#define T 4
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N,
                                        int K) {
  __shared__ float As[T][T], Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int kt = 0; kt < K; kt += T) {
    As[ty][tx] = A[row * K + kt + tx];
    Bs[ty][tx] = B[(kt + ty) * N + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
