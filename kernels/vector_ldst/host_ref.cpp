#include "qgpu/host_ref.h"

QGPU_HOST_REF(vector_ldst) {
  auto a = args.buffer<int32_t>("a");
  auto f = args.buffer<float>("f");
  auto o4 = args.buffer<int32_t>("o4");
  auto o2 = args.buffer<float>("o2");
  auto ou = args.buffer<uint32_t>("ou");
  for (unsigned t = 0; t < 32; ++t) {
    const int32_t* v = &a[t * 4];
    o4[t * 4 + 0] = v[3];
    o4[t * 4 + 1] = v[2];
    o4[t * 4 + 2] = v[1];
    o4[t * 4 + 3] = static_cast<int32_t>(static_cast<uint32_t>(v[0]) + 1u);
    o2[t * 2 + 0] = f[t * 2 + 1] * 2.0f;
    o2[t * 2 + 1] = f[t * 2 + 0];
    unsigned s = 31 - t;  // thread t reads what thread 31-t stored
    ou[t * 2 + 0] = static_cast<uint32_t>(a[s * 4 + 0]) ^ s;
    ou[t * 2 + 1] = static_cast<uint32_t>(a[s * 4 + 1]) + s;
  }
}
