// saxpy: y[i] = a * x[i] + y[i]; both compilers contract the expression into
// one fma.rn.f32 (checked in the PTX). 2 blocks x 32 threads, n = 60.
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
