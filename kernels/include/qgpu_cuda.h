// qgpu_cuda.h: the CUDA dialect the corpus uses, for clang 14 without the CUDA
// SDK (-nocudainc -nocudalib). Force-included by tools/gen_ptx.sh when it
// builds the `clang` flavour:
//   clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_75 -nocudainc
//            -nocudalib -O3 -S -include kernels/include/qgpu_cuda.h
// Every intrinsic maps onto an NVVM builtin (or, where clang 14 has none, one
// PTX instruction in inline asm), so each lowers to the same PTX instruction
// that nvcc emits for it. nvcc never sees this header.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))

#define QGPU_DI static __device__ __inline__ __attribute__((always_inline))

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
};
struct int2 {
  int x, y;
};
struct __attribute__((aligned(8))) int2a {
  int x, y;
};
struct __attribute__((aligned(16))) float4 {
  float x, y, z, w;
};
struct __attribute__((aligned(16))) int4 {
  int x, y, z, w;
};
struct __attribute__((aligned(8))) float2 {
  float x, y;
};
struct __attribute__((aligned(8))) uint2 {
  unsigned x, y;
};

// Special registers (the dim3 members are unsigned, as in CUDA).
QGPU_DI uint3 __qgpu_tid() {
  return {(unsigned)__nvvm_read_ptx_sreg_tid_x(), (unsigned)__nvvm_read_ptx_sreg_tid_y(),
          (unsigned)__nvvm_read_ptx_sreg_tid_z()};
}
QGPU_DI uint3 __qgpu_ctaid() {
  return {(unsigned)__nvvm_read_ptx_sreg_ctaid_x(), (unsigned)__nvvm_read_ptx_sreg_ctaid_y(),
          (unsigned)__nvvm_read_ptx_sreg_ctaid_z()};
}
QGPU_DI dim3 __qgpu_ntid() {
  return {(unsigned)__nvvm_read_ptx_sreg_ntid_x(), (unsigned)__nvvm_read_ptx_sreg_ntid_y(),
          (unsigned)__nvvm_read_ptx_sreg_ntid_z()};
}
QGPU_DI dim3 __qgpu_nctaid() {
  return {(unsigned)__nvvm_read_ptx_sreg_nctaid_x(), (unsigned)__nvvm_read_ptx_sreg_nctaid_y(),
          (unsigned)__nvvm_read_ptx_sreg_nctaid_z()};
}
#define threadIdx (__qgpu_tid())
#define blockIdx (__qgpu_ctaid())
#define blockDim (__qgpu_ntid())
#define gridDim (__qgpu_nctaid())

// Barriers.
// __syncthreads() is a clang builtin (bar.sync 0).

// Warp shuffles and votes. clang 14 does not know CUDA 13 and so enables no
// ptx60+ target feature, which its __nvvm_shfl_sync_* / __nvvm_vote_*_sync
// builtins require; the backend still emits .version 6.3 for sm_75, so these
// are inline PTX (volatile: never moved across control flow). The `c` operand
// packs the segment width as CUDA does: ((32 - width) << 8) | clamp.
#define QGPU_SHFL(NAME, MODE, CLAMP)                                                  \
  QGPU_DI unsigned __qgpu_##NAME##_u(unsigned m, unsigned v, unsigned s, int w) {      \
    unsigned r;                                                                       \
    asm volatile("shfl.sync." MODE ".b32 %0, %1, %2, %3, %4;"                         \
                 : "=r"(r)                                                            \
                 : "r"(v), "r"(s), "r"(((32 - w) << 8) | CLAMP), "r"(m));             \
    return r;                                                                         \
  }                                                                                   \
  QGPU_DI int NAME(unsigned m, int v, int s, int w = 32) {                            \
    return (int)__qgpu_##NAME##_u(m, (unsigned)v, (unsigned)s, w);                    \
  }                                                                                   \
  QGPU_DI unsigned NAME(unsigned m, unsigned v, int s, int w = 32) {                  \
    return __qgpu_##NAME##_u(m, v, (unsigned)s, w);                                   \
  }                                                                                   \
  QGPU_DI float NAME(unsigned m, float v, int s, int w = 32) {                        \
    return __builtin_bit_cast(float,                                                  \
                              __qgpu_##NAME##_u(m, __builtin_bit_cast(unsigned, v),   \
                                                (unsigned)s, w));                     \
  }
QGPU_SHFL(__shfl_sync, "idx", 0x1f)
QGPU_SHFL(__shfl_down_sync, "down", 0x1f)
QGPU_SHFL(__shfl_up_sync, "up", 0)
QGPU_SHFL(__shfl_xor_sync, "bfly", 0x1f)
#undef QGPU_SHFL

QGPU_DI unsigned __ballot_sync(unsigned m, int p) {
  unsigned r;
  asm volatile("{ .reg .pred %%qp; setp.ne.s32 %%qp, %1, 0; vote.sync.ballot.b32 %0, %%qp, %2; }"
               : "=r"(r)
               : "r"(p), "r"(m));
  return r;
}
QGPU_DI int __any_sync(unsigned m, int p) {
  unsigned r;
  asm volatile(
      "{ .reg .pred %%qp; setp.ne.s32 %%qp, %1, 0; vote.sync.any.pred %%qp, %%qp, %2; "
      "selp.u32 %0, 1, 0, %%qp; }"
      : "=r"(r)
      : "r"(p), "r"(m));
  return (int)r;
}
QGPU_DI int __all_sync(unsigned m, int p) {
  unsigned r;
  asm volatile(
      "{ .reg .pred %%qp; setp.ne.s32 %%qp, %1, 0; vote.sync.all.pred %%qp, %%qp, %2; "
      "selp.u32 %0, 1, 0, %%qp; }"
      : "=r"(r)
      : "r"(p), "r"(m));
  return (int)r;
}

// Integer atomics (generic address space, as nvcc's atom.* without a space
// qualifier; nvcc may pick .global/.shared where it can prove the space).
QGPU_DI int atomicAdd(int* p, int v) { return __nvvm_atom_add_gen_i(p, v); }
QGPU_DI unsigned atomicAdd(unsigned* p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int*)p, (int)v);
}
QGPU_DI unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long*)p, (long long)v);
}
QGPU_DI int atomicMax(int* p, int v) { return __nvvm_atom_max_gen_i(p, v); }
QGPU_DI int atomicMin(int* p, int v) { return __nvvm_atom_min_gen_i(p, v); }
QGPU_DI unsigned atomicMax(unsigned* p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
QGPU_DI unsigned atomicMin(unsigned* p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
QGPU_DI int atomicAnd(int* p, int v) { return __nvvm_atom_and_gen_i(p, v); }
QGPU_DI int atomicOr(int* p, int v) { return __nvvm_atom_or_gen_i(p, v); }
QGPU_DI int atomicXor(int* p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
QGPU_DI unsigned atomicAnd(unsigned* p, unsigned v) {
  return (unsigned)__nvvm_atom_and_gen_i((int*)p, (int)v);
}
QGPU_DI unsigned atomicOr(unsigned* p, unsigned v) {
  return (unsigned)__nvvm_atom_or_gen_i((int*)p, (int)v);
}
QGPU_DI unsigned atomicXor(unsigned* p, unsigned v) {
  return (unsigned)__nvvm_atom_xor_gen_i((int*)p, (int)v);
}
QGPU_DI int atomicExch(int* p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
QGPU_DI int atomicCAS(int* p, int c, int v) { return __nvvm_atom_cas_gen_i(p, c, v); }
QGPU_DI unsigned atomicInc(unsigned* p, unsigned v) { return __nvvm_atom_inc_gen_ui(p, v); }

// Integer intrinsics: one PTX instruction each.
QGPU_DI int __popc(unsigned x) {
  unsigned r;
  asm("popc.b32 %0, %1;" : "=r"(r) : "r"(x));
  return (int)r;
}
QGPU_DI int __popcll(unsigned long long x) {
  unsigned r;
  asm("popc.b64 %0, %1;" : "=r"(r) : "l"(x));
  return (int)r;
}
QGPU_DI int __clz(int x) {
  unsigned r;
  asm("clz.b32 %0, %1;" : "=r"(r) : "r"(x));
  return (int)r;
}
QGPU_DI int __clzll(long long x) {
  unsigned r;
  asm("clz.b64 %0, %1;" : "=r"(r) : "l"(x));
  return (int)r;
}
QGPU_DI unsigned __brev(unsigned x) {
  unsigned r;
  asm("brev.b32 %0, %1;" : "=r"(r) : "r"(x));
  return r;
}
// CUDA's __byte_perm uses 3 selector bits per byte (no sign replication):
// nvcc emits and.b32 s, 0x7777 before the prmt.
QGPU_DI unsigned __byte_perm(unsigned a, unsigned b, unsigned s) {
  unsigned r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s & 0x7777u));
  return r;
}
QGPU_DI unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  unsigned r;
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(s));
  return r;
}
QGPU_DI unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  unsigned r;
  asm("shf.l.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(s));
  return r;
}
QGPU_DI unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  unsigned r;
  asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(s));
  return r;
}
QGPU_DI unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  unsigned r;
  asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(s));
  return r;
}
QGPU_DI unsigned long long __brevll(unsigned long long x) {
  unsigned long long r;
  asm("brev.b64 %0, %1;" : "=l"(r) : "l"(x));
  return r;
}
QGPU_DI int __ffs(int x) { return x == 0 ? 0 : __popc((unsigned)(x ^ (x - 1))); }
QGPU_DI int __ffsll(long long x) {
  return x == 0 ? 0 : __popcll((unsigned long long)(x ^ (x - 1)));
}
QGPU_DI int __dp4a(int a, int b, int c) {
  int r;
  asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
QGPU_DI unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  unsigned r;
  asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
QGPU_DI int __mul24(int a, int b) {
  return (int)((unsigned)((int)((unsigned)a << 8) >> 8) * (unsigned)((int)((unsigned)b << 8) >> 8));
}
QGPU_DI unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
QGPU_DI int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
QGPU_DI unsigned __umulhi(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a * b) >> 32);
}
QGPU_DI long long __mul64hi(long long a, long long b) {
  long long r;
  asm("mul.hi.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
  return r;
}
QGPU_DI unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  unsigned long long r;
  asm("mul.hi.u64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
  return r;
}
QGPU_DI unsigned __sad(int a, int b, unsigned c) {
  unsigned r;
  asm("sad.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
QGPU_DI unsigned __usad(unsigned a, unsigned b, unsigned c) {
  unsigned r;
  asm("sad.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
QGPU_DI int min(int a, int b) { return a < b ? a : b; }
QGPU_DI int max(int a, int b) { return a > b ? a : b; }
QGPU_DI unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
QGPU_DI unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }

// Float intrinsics with explicit rounding (never contracted). clang 14 folds
// __nvvm_{add,mul}_rn_{f,d} into plain fadd/fmul, which its CUDA default
// -ffp-contract=fast then fuses into fma; inline PTX keeps them separate, as
// nvcc's mul.rn / add.rn do.
QGPU_DI float __fadd_rn(float a, float b) {
  float r;
  asm("add.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
QGPU_DI float __fsub_rn(float a, float b) {
  float r;
  asm("sub.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
QGPU_DI float __fmul_rn(float a, float b) {
  float r;
  asm("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
QGPU_DI double __dadd_rn(double a, double b) {
  double r;
  asm("add.rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
  return r;
}
QGPU_DI double __dmul_rn(double a, double b) {
  double r;
  asm("mul.rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
  return r;
}
QGPU_DI float __fadd_rz(float a, float b) { return __nvvm_add_rz_f(a, b); }
QGPU_DI float __fadd_rd(float a, float b) { return __nvvm_add_rm_f(a, b); }
QGPU_DI float __fadd_ru(float a, float b) { return __nvvm_add_rp_f(a, b); }
QGPU_DI float __fmul_rz(float a, float b) { return __nvvm_mul_rz_f(a, b); }
QGPU_DI float __fmul_rd(float a, float b) { return __nvvm_mul_rm_f(a, b); }
QGPU_DI float __fmul_ru(float a, float b) { return __nvvm_mul_rp_f(a, b); }
QGPU_DI float __fmaf_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
QGPU_DI float __fmaf_rz(float a, float b, float c) { return __nvvm_fma_rz_f(a, b, c); }
QGPU_DI float __fmaf_rd(float a, float b, float c) { return __nvvm_fma_rm_f(a, b, c); }
QGPU_DI float __fmaf_ru(float a, float b, float c) { return __nvvm_fma_rp_f(a, b, c); }
QGPU_DI float __fdiv_rn(float a, float b) { return __nvvm_div_rn_f(a, b); }
QGPU_DI float __fdiv_rz(float a, float b) { return __nvvm_div_rz_f(a, b); }
QGPU_DI float __fdiv_rd(float a, float b) { return __nvvm_div_rm_f(a, b); }
QGPU_DI float __fdiv_ru(float a, float b) { return __nvvm_div_rp_f(a, b); }
QGPU_DI float __frcp_rn(float a) { return __nvvm_rcp_rn_f(a); }
QGPU_DI float __frcp_rz(float a) { return __nvvm_rcp_rz_f(a); }
QGPU_DI float __fsqrt_rn(float a) { return __nvvm_sqrt_rn_f(a); }
QGPU_DI float __fsqrt_rz(float a) { return __nvvm_sqrt_rz_f(a); }
QGPU_DI double __fma_rn(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
QGPU_DI double __ddiv_rn(double a, double b) { return __nvvm_div_rn_d(a, b); }
QGPU_DI double __dsqrt_rn(double a) { return __nvvm_sqrt_rn_d(a); }
QGPU_DI double __drcp_rn(double a) { return __nvvm_rcp_rn_d(a); }
QGPU_DI float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
QGPU_DI double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
QGPU_DI float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
QGPU_DI float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
QGPU_DI double fmin(double a, double b) { return __nvvm_fmin_d(a, b); }
QGPU_DI double fmax(double a, double b) { return __nvvm_fmax_d(a, b); }
QGPU_DI float fabsf(float a) { return __builtin_fabsf(a); }
QGPU_DI double fabs(double a) { return __builtin_fabs(a); }
QGPU_DI float sqrtf(float a) { return __nvvm_sqrt_rn_f(a); }
QGPU_DI double sqrt(double a) { return __nvvm_sqrt_rn_d(a); }

// Float <-> integer conversions with explicit rounding (cvt.r*i saturates,
// NaN -> 0).
QGPU_DI int __float2int_rn(float a) { return __nvvm_f2i_rn(a); }
QGPU_DI int __float2int_rz(float a) { return __nvvm_f2i_rz(a); }
QGPU_DI int __float2int_rd(float a) { return __nvvm_f2i_rm(a); }
QGPU_DI int __float2int_ru(float a) { return __nvvm_f2i_rp(a); }
QGPU_DI unsigned __float2uint_rn(float a) { return __nvvm_f2ui_rn(a); }
QGPU_DI unsigned __float2uint_rz(float a) { return __nvvm_f2ui_rz(a); }
QGPU_DI long long __float2ll_rz(float a) { return __nvvm_f2ll_rz(a); }
QGPU_DI long long __float2ll_rn(float a) { return __nvvm_f2ll_rn(a); }
QGPU_DI unsigned long long __float2ull_rz(float a) { return __nvvm_f2ull_rz(a); }
QGPU_DI int __double2int_rz(double a) { return __nvvm_d2i_rz(a); }
QGPU_DI int __double2int_rn(double a) { return __nvvm_d2i_rn(a); }
QGPU_DI float __double2float_rn(double a) { return __nvvm_d2f_rn(a); }
QGPU_DI float __double2float_rz(double a) { return __nvvm_d2f_rz(a); }
// clang 14 folds __nvvm_i2f_rz into a round-to-nearest sitofp: inline PTX.
#define QGPU_CVT_I2F(NAME, T, RND, SRC)                         \
  QGPU_DI float NAME(T a) {                                 \
    float r;                                                \
    asm("cvt." RND ".f32." SRC " %0, %1;" : "=f"(r) : "r"(a)); \
    return r;                                               \
  }
QGPU_CVT_I2F(__int2float_rz, int, "rz", "s32")
QGPU_CVT_I2F(__int2float_rd, int, "rm", "s32")
QGPU_CVT_I2F(__int2float_ru, int, "rp", "s32")
QGPU_CVT_I2F(__uint2float_rz, unsigned, "rz", "u32")
#undef QGPU_CVT_I2F
QGPU_DI float __int_as_float(int a) { return __builtin_bit_cast(float, a); }
QGPU_DI int __float_as_int(float a) { return __builtin_bit_cast(int, a); }
QGPU_DI float __uint_as_float(unsigned a) { return __builtin_bit_cast(float, a); }
QGPU_DI unsigned __float_as_uint(float a) { return __builtin_bit_cast(unsigned, a); }
QGPU_DI long long __double_as_longlong(double a) { return __builtin_bit_cast(long long, a); }
QGPU_DI double __longlong_as_double(long long a) { return __builtin_bit_cast(double, a); }

// Fast-math intrinsics, as nvcc 13 expands them (see kernels/fast_math):
// __expf = ex2.approx(x * log2 e), __logf = lg2.approx(x) * ln 2.
QGPU_DI float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.44269502162933349609375f); }
QGPU_DI float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.693147182464599609375f; }
QGPU_DI float __sinf(float x) { return __nvvm_sin_approx_f(x); }
QGPU_DI float __cosf(float x) { return __nvvm_cos_approx_f(x); }
QGPU_DI float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
QGPU_DI float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }

// Approximate instructions (each one PTX .approx instruction).
QGPU_DI float __qgpu_ex2_approx_ftz(float a) { return __nvvm_ex2_approx_ftz_f(a); }
QGPU_DI float __qgpu_lg2_approx_ftz(float a) { return __nvvm_lg2_approx_ftz_f(a); }
QGPU_DI float __qgpu_sin_approx_ftz(float a) { return __nvvm_sin_approx_ftz_f(a); }
QGPU_DI float __qgpu_cos_approx_ftz(float a) { return __nvvm_cos_approx_ftz_f(a); }
