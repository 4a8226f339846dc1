#include "qgpu/host_ref.h"

QGPU_HOST_REF(vote) {
  auto in = args.buffer<int32_t>("in");
  auto out = args.buffer<uint32_t>("out");
  for (unsigned g0 = 0; g0 < 32; g0 += 4) {
    unsigned b = 0, odd = 0, big = 0, evenNeg = 0;
    bool allPos = true, oddAllGtM10 = true;
    for (unsigned i = 0; i < 4; ++i) {
      int x = in[g0 + i];
      if (x > 0) b |= 1u << i; else allPos = false;
      if (x & 1) {
        odd |= 1u << i;
        if (x > 10) big |= 1u << i;
        if (!(x > -10)) oddAllGtM10 = false;
      } else if (x < -5) {
        evenNeg = 1;
      }
    }
    unsigned any = b != 0, all = allPos;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned r = b | any << 4 | all << 5 | static_cast<unsigned>(__builtin_popcount(b)) << 8;
      if (odd >> i & 1) r |= big << 12 | static_cast<unsigned>(oddAllGtM10) << 16;
      else r |= evenNeg << 20;
      out[g0 + i] = r;
    }
  }
}
