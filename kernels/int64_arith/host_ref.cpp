#include "qgpu/host_ref.h"

QGPU_HOST_REF(int64_arith) {
  auto A = args.buffer<int64_t>("A");
  auto B = args.buffer<int64_t>("B");
  auto out = args.buffer<int64_t>("out");
  for (unsigned t = 0; t < 32; ++t) {
    int64_t a = A[t], b = B[t];
    uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    unsigned s = static_cast<unsigned>(b) & 63u;
    int64_t d = b;
    if (d == 0) d = 5;
    if (a == INT64_MIN && d == -1) d = 1;
    if (t & 1) d >>= 40;  // arithmetic shift (C++20)
    if (d == 0) d = -7;
    int64_t* o = &out[t * 14];
    o[0] = static_cast<int64_t>(ua + ub);
    o[1] = static_cast<int64_t>(ua - ub);
    o[2] = static_cast<int64_t>(ua * ub);
    o[3] = static_cast<int64_t>(ua << s);
    o[4] = a >> s;
    o[5] = static_cast<int64_t>(ua >> s);
    o[6] = a / d;
    o[7] = a % d;
    o[8] = static_cast<int64_t>(ua % static_cast<uint64_t>(d));
    o[9] = static_cast<int64_t>(static_cast<uint64_t>(a < b ? a : b) +
                                static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(a))));
    uint64_t m = ua ^ (ub >> (b & 63));
    if (t == 0) m = 0;
    o[10] = m ? __builtin_clzll(m) : 64;
    o[11] = __builtin_popcountll(m);
    uint64_t r = 0;
    for (int i = 0; i < 64; ++i) r |= ((m >> i) & 1u) << (63 - i);
    o[12] = static_cast<int64_t>(r);
    o[13] = m ? __builtin_ctzll(m) + 1 : 0;
  }
}
