// y[i] = a * x[i] + y[i] over two blocks: fused multiply-add, block indexing.
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = a * v + y[i];
  }
}
