#include <cmath>

#include "qgpu/host_ref.h"

QGPU_HOST_REF(mandelbrot) {
  auto iters = args.buffer<int32_t>("iters");
  int width = args.scalar<int32_t>("width"), maxIter = args.scalar<int32_t>("maxIter");
  int H = static_cast<int>(args.grid().y * args.block().y);
  for (int py = 0; py < H; ++py)
    for (int px = 0; px < width; ++px) {
      float cx = std::fma(static_cast<float>(px), 0.1875f, -2.0f);
      float cy = std::fma(static_cast<float>(py), 0.1875f, -1.5f);
      float x = 0.0f, y = 0.0f;
      int n = 0;
      while (n < maxIter) {
        float x2 = x * x, y2 = y * y;
        if (x2 + y2 > 4.0f) break;
        y = std::fma(x + x, y, cy);
        x = (x2 - y2) + cx;
        ++n;
      }
      iters[py * width + px] = n;
    }
}
