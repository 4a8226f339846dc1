#include "qf_rt.h"
// Found by the differential fuzzer (seed 8, interp-clang-w4 vs the host, docs/fuzzing.md),
// reduced by hand from creduce's output. A compiler bug, not qgpu's: clang 14 (LLVM 14)
// rewrites the NVVM intrinsics __nvvm_d2i_rz / __nvvm_f2i_* (CUDA's __double2int_rz,
// __float2int_*) into fptosi, whose result is poison when the value is out of range; with a
// constant argument the store is then dropped entirely. PTX's cvt.rzi.s32.f64 saturates
// (1e300 -> 0x7fffffff), which is what nvcc emits and the host reference computes. The
// generator now converts through qf_double2int_rz & co. (inline cvt under clang).
extern "C" __global__ void qf8(const unsigned* __restrict__ in, const unsigned* emi, unsigned* out,
                               unsigned* gat) {
  (void)in; (void)emi; (void)gat;
  unsigned gid = blockIdx.x * 32u + threadIdx.x;
  out[gid] = 1u;
  out[gid] = (unsigned)__double2int_rz(1e300);
}
