#include "qgpu/host_ref.h"

// C++ division truncates toward zero and % takes the dividend's sign, as PTX
// div.s32 / rem.s32 do.
QGPU_HOST_REF(int_divrem) {
  auto A = args.buffer<int32_t>("A");
  auto B = args.buffer<int32_t>("B");
  auto out = args.buffer<int32_t>("out");
  for (unsigned t = 0; t < 32; ++t) {
    int32_t a = A[t], b = B[t];
    if (b == 0) b = 3;
    if (a == INT32_MIN && b == -1) b = 1;
    uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    int32_t* o = &out[t * 10];
    o[0] = a / b;
    o[1] = a % b;
    o[2] = static_cast<int32_t>(ua / ub);
    o[3] = static_cast<int32_t>(ua % ub);
    o[4] = a / 7;
    o[5] = a % 7;
    o[6] = a / -10;
    o[7] = a % -10;
    o[8] = static_cast<int32_t>(ua / 10u);
    o[9] = static_cast<int32_t>(ua % 10u);
  }
}
