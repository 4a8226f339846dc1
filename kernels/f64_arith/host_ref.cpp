#include <cmath>

#include "qgpu/host_ref.h"

QGPU_HOST_REF(f64_arith) {
  auto A = args.buffer<double>("A");
  auto B = args.buffer<double>("B");
  auto C = args.buffer<double>("C");
  auto out = args.buffer<double>("out");
  auto fout = args.buffer<float>("fout");
  for (unsigned t = 0; t < 32; ++t) {
    double a = A[t], b = B[t], c = C[t];
    double* o = &out[t * 8];
    o[0] = a + b;
    o[1] = a * b;
    o[2] = a / b;
    o[3] = std::sqrt(std::fabs(a));
    o[4] = 1.0 / b;
    o[5] = std::fma(a, b, c);
    o[6] = a * b + c;  // -ffp-contract=off: two roundings
    o[7] = static_cast<double>(static_cast<float>(c)) + a;
    fout[t] = static_cast<float>(a * 1.0e-3);
  }
}
