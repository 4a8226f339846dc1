#include <cmath>

#include "../include/qgpu_host_util.h"
#include "qgpu/host_ref.h"

// Mirrors nvcc 13's inline sequences for expf, logf and sinf instruction by
// instruction (see kernel.sm_75.ptx; constants are the PTX's bit patterns).
// ex2.approx.ftz.f32 uses the interpreter's model (qgpu_host::ex2ApproxFtz).
// sinf: only the fast path (|x| < 105615, or inf) is mirrored; the launch's
// inputs never take the Payne-Hanek path.

using namespace qgpu_host;

namespace {
float K(uint32_t bits) { return u2f(bits); }
float sat(float f) { return std::isnan(f) ? 0.0f : f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f; }

float expfSeq(float x) {
  float f22 = sat(std::fma(x, K(0x3BBB989D), 0.5f));
  float f25 = fmaR(f22, K(0x437C0000), K(0x4B400001), Rnd::rm);
  float f26 = f25 + K(0xCB40007F);
  float f29 = std::fma(x, K(0x3FB8AA3B), -f26);
  float f31 = std::fma(x, K(0x32A57060), f29);
  float scale = u2f(f2u(f25) << 23);
  return ex2ApproxFtz(f31) * scale;
}

float logfSeq(float p) {
  bool small = p < K(0x00800000);
  float f2 = small ? p * K(0x4B000000) : p;
  float f36 = small ? K(0xC1B80000) : 0.0f;
  uint32_t r23 = f2u(f2);
  uint32_t r25 = (r23 - 1059760811u) & 0xff800000u;
  float f37 = u2f(r23 - r25);
  float f38 = static_cast<float>(static_cast<int32_t>(r25));
  float f40 = std::fma(f38, K(0x34000000), f36);
  float m = f37 + K(0xBF800000);
  float q = std::fma(K(0xBE055027), m, K(0x3E1039F6));
  const uint32_t c[] = {0xBDF8CDCC, 0x3E0F2955, 0xBE2AD8B9, 0x3E4CED0B,
                        0xBE7FFF22, 0x3EAAAA78, 0xBF000000};
  for (uint32_t ci : c) q = std::fma(q, m, K(ci));
  float f59 = m * q;
  float f60 = std::fma(f59, m, m);
  float r = std::fma(f40, K(0x3F317218), f60);
  if (!(r23 < 0x7f800000u)) r = std::fma(f2, K(0x7F800000), K(0x7F800000));
  return f2 == 0.0f ? K(0xFF800000) : r;
}

float sinfSeq(float x) {
  int32_t q = cvtFloatToInt<int32_t>(x * K(0x3F22F983), Rnd::rn);
  float fq = static_cast<float>(q);
  float r = std::fma(fq, K(0xBFC90FDA), x);
  r = std::fma(fq, K(0xB3A22168), r);
  r = std::fma(fq, K(0xA7C234C5), r);
  if (std::isinf(x)) {
    r = x * 0.0f;
    q = 0;
  }
  bool even = (q & 1) == 0;
  float f11 = even ? r : 1.0f;
  float r2 = r * r;
  float p = even ? K(0xB94D4153) : std::fma(K(0x37CBAC00), r2, K(0xBAB607ED));
  p = std::fma(p, r2, even ? K(0x3C0885E4) : K(0x3D2AAABB));
  p = std::fma(p, r2, even ? K(0xBE2AAAA8) : K(0xBEFFFFFF));
  float f82 = std::fma(r2, f11, 0.0f);
  float s = std::fma(p, f82, f11);
  if (q & 2) s = std::fma(s, -1.0f, 0.0f);
  return s;
}
}  // namespace

QGPU_HOST_REF(libm_funcs) {
  auto X = args.buffer<float>("X");
  auto P = args.buffer<float>("P");
  auto out = args.buffer<float>("out");
  for (unsigned t = 0; t < 32; ++t) {
    out[t * 3 + 0] = expfSeq(X[t]);
    out[t * 3 + 1] = logfSeq(P[t]);
    out[t * 3 + 2] = sinfSeq(X[t]);
  }
}
