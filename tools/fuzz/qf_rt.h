// qf_rt.h: the runtime of generated fuzz kernels (tools/fuzz/gen.py, docs/fuzzing.md).
//
// One source, three builds:
//   nvcc   -arch=sm_75 -ptx -O3                       (CUDA's own headers)
//   clang  -x cuda ... -include kernels/include/qgpu_cuda.h   (the corpus's clang dialect)
//   g++    -DQF_HOST -x c++ -std=c++20 -ffp-contract=off      (the SIMT shim below: the
//          independent reference every backend is compared with)
// Helpers named qf_* are defined once here so that the generator never emits undefined
// behaviour: guarded division, canonical NaN bits for hashing, the 4-lane group of a thread.
#pragma once

#ifndef QF_HOST
// ---------------------------------------------------------------- device (nvcc, clang)
#define QF_FN static __device__ __forceinline__
#define QF_DYN_SHARED(name) extern __shared__ unsigned name[]
QF_FN unsigned qf_laneid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
// Float -> integer conversions. clang 14 turns __nvvm_f2i_* / __nvvm_d2i_* into fptosi/fptoui,
// whose out-of-range results are poison in LLVM (it folds __double2int_rz(1e300) to no store at
// all), while cvt.rzi saturates: a compiler bug the fuzzer found (docs/fuzzing.md). The clang
// build therefore gets one cvt instruction of inline PTX, as qgpu_cuda.h does for other
// intrinsics; nvcc gets CUDA's intrinsics.
#ifdef __clang__
#define QF_CVT(NAME, T, C, PTX, IC, SRC, SC)                      \
  QF_FN T NAME(SRC a) {                                           \
    C r;                                                          \
    asm("cvt." PTX " %0, %1;" : "=" IC(r) : SC(a));               \
    return (T)r;                                                  \
  }
QF_CVT(qf_float2int_rn, int, int, "rni.s32.f32", "r", float, "f")
QF_CVT(qf_float2int_rz, int, int, "rzi.s32.f32", "r", float, "f")
QF_CVT(qf_float2int_rd, int, int, "rmi.s32.f32", "r", float, "f")
QF_CVT(qf_float2int_ru, int, int, "rpi.s32.f32", "r", float, "f")
QF_CVT(qf_float2uint_rz, unsigned, unsigned, "rzi.u32.f32", "r", float, "f")
QF_CVT(qf_float2ll_rz, long long, long long, "rzi.s64.f32", "l", float, "f")
QF_CVT(qf_double2int_rz, int, int, "rzi.s32.f64", "r", double, "d")
#undef QF_CVT
#else
QF_FN int qf_float2int_rn(float a) { return __float2int_rn(a); }
QF_FN int qf_float2int_rz(float a) { return __float2int_rz(a); }
QF_FN int qf_float2int_rd(float a) { return __float2int_rd(a); }
QF_FN int qf_float2int_ru(float a) { return __float2int_ru(a); }
QF_FN unsigned qf_float2uint_rz(float a) { return __float2uint_rz(a); }
QF_FN long long qf_float2ll_rz(float a) { return __float2ll_rz(a); }
QF_FN int qf_double2int_rz(double a) { return __double2int_rz(a); }
#endif
#else
// ---------------------------------------------------------------- host SIMT shim
// Threads of a block are coroutines (ucontext) run by a round-robin scheduler; a thread
// yields only at __syncthreads and at warp collectives, so atomics and plain memory accesses
// between those points are atomic by construction. Blocks run one after another. The shim
// checks the rules the generator promises: every thread of a block reaches each barrier,
// every lane named in a collective's mask executes it, a shuffle reads only named lanes. A
// violation aborts (exit 3): a generator bug, never a backend mismatch.
#include <ucontext.h>

#include <cfenv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "../../kernels/include/qgpu_host_util.h"

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
};
struct alignas(16) int4 {
  int x, y, z, w;
};

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __constant__ static
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline
#define __restrict__ __restrict
#define QF_FN static inline
#define QF_DYN_SHARED(name) unsigned* name = static_cast<unsigned*>(qf::S.dyn)

namespace qf {
[[noreturn]] inline void die(const char* why) {
  std::fprintf(stderr, "qf host shim: %s\n", why);
  std::exit(3);
}
struct Coll {  // one collective in flight per (4-lane group, member mask)
  unsigned count = 0, gen = 0;
  unsigned long long val[4] = {}, res[4] = {};
};
struct Thread {
  ucontext_t ctx;
  uint3 tid;
  unsigned linear = 0;
  bool done = false;
  std::vector<char> stack;
};
struct Sched {
  std::vector<Thread> th;
  Thread* cur = nullptr;
  ucontext_t main;
  uint3 bid;
  dim3 bdim, gdim;
  unsigned live = 0, barCount = 0, barGen = 0;
  std::vector<Coll> coll;  // [group * 16 + mask4]
  void* dyn = nullptr;
  std::function<void()> body;
  bool progress = false;
};
inline Sched S;
inline void yield() { swapcontext(&S.cur->ctx, &S.main); }
inline void trampoline() {
  S.body();
  S.cur->done = true;
  --S.live;
  S.progress = true;
  if (S.barCount && S.barCount == S.live) die("a thread exited while others wait at a barrier");
  swapcontext(&S.cur->ctx, &S.main);
}
inline void launch(dim3 grid, dim3 block, unsigned dynBytes, std::function<void()> body) {
  unsigned n = block.x * block.y * block.z;
  if (n % 4) die("block size is not a multiple of 4");
  std::vector<unsigned> dynMem((dynBytes + 3) / 4 + 1, 0);
  S.body = std::move(body);
  S.gdim = grid;
  S.bdim = block;
  S.dyn = dynMem.data();
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        S.bid = {bx, by, bz};
        S.th.assign(n, Thread{});
        S.coll.assign(n / 4 * 16, Coll{});
        S.live = n;
        S.barCount = 0;
        for (unsigned i = 0; i < n; ++i) {
          Thread& t = S.th[i];
          t.linear = i;
          t.tid = {i % block.x, i / block.x % block.y, i / (block.x * block.y)};
          t.stack.assign(256 * 1024, 0);
          getcontext(&t.ctx);
          t.ctx.uc_stack.ss_sp = t.stack.data();
          t.ctx.uc_stack.ss_size = t.stack.size();
          t.ctx.uc_link = nullptr;
          makecontext(&t.ctx, trampoline, 0);
        }
        while (S.live) {
          S.progress = false;
          for (Thread& t : S.th) {
            if (t.done) continue;
            S.cur = &t;
            swapcontext(&S.main, &t.ctx);
          }
          if (!S.progress) die("deadlock: threads wait at a barrier or a collective that never completes");
        }
      }
}
inline unsigned linearTid() { return S.cur->linear; }
inline unsigned laneid() { return S.cur->linear % 32u; }
inline void syncthreads() {
  unsigned gen = S.barGen;
  S.progress = true;
  if (++S.barCount == S.live) {
    S.barCount = 0;
    ++S.barGen;
    return;
  }
  while (S.barGen == gen) yield();
}
// A collective over the lanes of `mask` (a warp mask: bits of this thread's group). Each
// member contributes v; `f(val, res, members)` computes every member's result.
template <class F>
unsigned long long collective(unsigned mask, unsigned long long v, F f) {
  unsigned lane = laneid(), base = lane & 28u, l4 = lane & 3u;
  unsigned m4 = (mask >> base) & 0xfu;
  if (!((m4 >> l4) & 1u)) die("a collective's mask does not name the executing lane");
  Coll& c = S.coll[(linearTid() / 4u) * 16u + m4];
  unsigned gen = c.gen;
  c.val[l4] = v;
  S.progress = true;
  if (++c.count == static_cast<unsigned>(__builtin_popcount(m4))) {
    c.count = 0;
    f(c.val, c.res, m4);
    ++c.gen;
  } else {
    while (c.gen == gen) yield();
  }
  return c.res[l4];
}
}  // namespace qf

#define threadIdx (qf::S.cur->tid)
#define blockIdx (qf::S.bid)
#define blockDim (qf::S.bdim)
#define gridDim (qf::S.gdim)
QF_FN unsigned qf_laneid() { return qf::laneid(); }
inline void __syncthreads() { qf::syncthreads(); }

// Width-4 shuffles (the only width generated): mode 0 idx, 1 up, 2 down, 3 bfly.
inline unsigned qf_shfl(unsigned mask, unsigned v, int s, int width, int mode) {
  if (width != 4) qf::die("shuffle width other than 4");
  return static_cast<unsigned>(qf::collective(mask, v, [mode, s](const unsigned long long* val,
                                                                 unsigned long long* res, unsigned m4) {
    for (int l = 0; l < 4; ++l) {
      if (!((m4 >> l) & 1u)) continue;
      int j = mode == 0 ? (s & 3) : mode == 1 ? l - s : mode == 2 ? l + s : (l ^ s);
      if (j < 0 || j > 3) j = l;  // up/down out of the segment: own value
      if (!((m4 >> j) & 1u)) qf::die("a shuffle reads a lane outside its mask");
      res[l] = val[j];
    }
  }));
}
inline unsigned __shfl_sync(unsigned m, unsigned v, int s, int w) { return qf_shfl(m, v, s, w, 0); }
inline unsigned __shfl_up_sync(unsigned m, unsigned v, unsigned s, int w) { return qf_shfl(m, v, static_cast<int>(s), w, 1); }
inline unsigned __shfl_down_sync(unsigned m, unsigned v, unsigned s, int w) { return qf_shfl(m, v, static_cast<int>(s), w, 2); }
inline unsigned __shfl_xor_sync(unsigned m, unsigned v, int s, int w) { return qf_shfl(m, v, s, w, 3); }
inline int __shfl_sync(unsigned m, int v, int s, int w) { return static_cast<int>(qf_shfl(m, static_cast<unsigned>(v), s, w, 0)); }
inline int __shfl_up_sync(unsigned m, int v, unsigned s, int w) { return static_cast<int>(qf_shfl(m, static_cast<unsigned>(v), static_cast<int>(s), w, 1)); }
inline int __shfl_down_sync(unsigned m, int v, unsigned s, int w) { return static_cast<int>(qf_shfl(m, static_cast<unsigned>(v), static_cast<int>(s), w, 2)); }
inline int __shfl_xor_sync(unsigned m, int v, int s, int w) { return static_cast<int>(qf_shfl(m, static_cast<unsigned>(v), s, w, 3)); }
inline float __shfl_sync(unsigned m, float v, int s, int w) { return qgpu_host::u2f(qf_shfl(m, qgpu_host::f2u(v), s, w, 0)); }
inline float __shfl_up_sync(unsigned m, float v, unsigned s, int w) { return qgpu_host::u2f(qf_shfl(m, qgpu_host::f2u(v), static_cast<int>(s), w, 1)); }
inline float __shfl_down_sync(unsigned m, float v, unsigned s, int w) { return qgpu_host::u2f(qf_shfl(m, qgpu_host::f2u(v), static_cast<int>(s), w, 2)); }
inline float __shfl_xor_sync(unsigned m, float v, int s, int w) { return qgpu_host::u2f(qf_shfl(m, qgpu_host::f2u(v), s, w, 3)); }

inline unsigned __ballot_sync(unsigned m, int p) {
  unsigned base = qf::laneid() & 28u;
  return static_cast<unsigned>(qf::collective(m, p != 0, [base](const unsigned long long* val,
                                                                  unsigned long long* res, unsigned m4) {
    unsigned b = 0;
    for (int l = 0; l < 4; ++l)
      if (((m4 >> l) & 1u) && val[l]) b |= 1u << l;
    for (int l = 0; l < 4; ++l) res[l] = static_cast<unsigned long long>(b) << base;
  }));
}
inline int __any_sync(unsigned m, int p) { return __ballot_sync(m, p) != 0; }
inline int __all_sync(unsigned m, int p) {
  unsigned base = qf::laneid() & 28u;
  return __ballot_sync(m, p) == (m & (0xfu << base));
}

// Atomics: the scheduler never switches inside one, so plain read-modify-writes are atomic.
template <class T> inline T qf_atom(T* p, T v, int op) {
  T old = *p;
  switch (op) {
    case 0: *p = static_cast<T>(old + v); break;
    case 1: *p = v < old ? v : old; break;
    case 2: *p = v > old ? v : old; break;
    case 3: *p = old & v; break;
    case 4: *p = old | v; break;
    default: *p = old ^ v; break;
  }
  return old;
}
inline unsigned atomicAdd(unsigned* p, unsigned v) { return qf_atom(p, v, 0); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { return qf_atom(p, v, 0); }
inline unsigned atomicMin(unsigned* p, unsigned v) { return qf_atom(p, v, 1); }
inline unsigned atomicMax(unsigned* p, unsigned v) { return qf_atom(p, v, 2); }
inline int atomicMin(int* p, int v) { return qf_atom(p, v, 1); }
inline int atomicMax(int* p, int v) { return qf_atom(p, v, 2); }
inline unsigned atomicAnd(unsigned* p, unsigned v) { return qf_atom(p, v, 3); }
inline unsigned atomicOr(unsigned* p, unsigned v) { return qf_atom(p, v, 4); }
inline unsigned atomicXor(unsigned* p, unsigned v) { return qf_atom(p, v, 5); }
inline unsigned atomicInc(unsigned* p, unsigned v) {
  unsigned old = *p;
  *p = old >= v ? 0u : old + 1u;
  return old;
}
inline int atomicCAS(int* p, int cmp, int v) {
  int old = *p;
  if (old == cmp) *p = v;
  return old;
}

// Integer intrinsics (CUDA's documented semantics).
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) | __brev(static_cast<unsigned>(x >> 32));
}
inline unsigned __byte_perm(unsigned a, unsigned b, unsigned s) {
  unsigned long long v = (static_cast<unsigned long long>(b) << 32) | a;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((v >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (s & 31u)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (s & 31u));
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (s < 32u ? s : 32u)) >> 32);
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (s < 32u ? s : 32u));
}
// __mul24: the low 32 bits of the product of the sign-extended low 24 bits.
inline int __mul24(int a, int b) {
  long long x = static_cast<long long>(static_cast<unsigned>(a) & 0xffffffu), y = static_cast<long long>(static_cast<unsigned>(b) & 0xffffffu);
  if (x & 0x800000) x -= 0x1000000;
  if (y & 0x800000) y -= 0x1000000;
  return static_cast<int>(static_cast<unsigned>(static_cast<unsigned long long>(x * y)));
}
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  for (int i = 0; i < 4; ++i) c += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
  return c;
}
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) {
  return static_cast<long long>((static_cast<__int128>(a) * b) >> 64);
}
inline unsigned __sad(int a, int b, unsigned c) {
  return (a > b ? static_cast<unsigned>(a) - static_cast<unsigned>(b) : static_cast<unsigned>(b) - static_cast<unsigned>(a)) + c;
}
inline int __dp4a(int a, int b, int c) {
  unsigned r = static_cast<unsigned>(c);
  for (int i = 0; i < 4; ++i)
    r += static_cast<unsigned>(static_cast<int>(static_cast<signed char>(static_cast<unsigned>(a) >> (8 * i))) *
                               static_cast<int>(static_cast<signed char>(static_cast<unsigned>(b) >> (8 * i))));
  return static_cast<int>(r);
}
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }

// Floating point: IEEE with the host's rounding modes (qgpu_host_util.h), PTX's rules for
// min/max (a NaN operand gives the other one, -0 < +0) and float->int conversion (saturate).
using qgpu_host::Rnd;
inline float __uint_as_float(unsigned a) { return qgpu_host::u2f(a); }
inline unsigned __float_as_uint(float a) { return qgpu_host::f2u(a); }
inline double __longlong_as_double(long long a) { return qgpu_host::u2d(static_cast<unsigned long long>(a)); }
inline long long __double_as_longlong(double a) { return static_cast<long long>(qgpu_host::d2u(a)); }
inline float __fadd_rn(float a, float b) { return qgpu_host::addR(a, b, Rnd::rn); }
inline float __fadd_rz(float a, float b) { return qgpu_host::addR(a, b, Rnd::rz); }
inline float __fadd_rd(float a, float b) { return qgpu_host::addR(a, b, Rnd::rm); }
inline float __fadd_ru(float a, float b) { return qgpu_host::addR(a, b, Rnd::rp); }
inline float __fsub_rn(float a, float b) { return qgpu_host::addR(a, -b, Rnd::rn); }
inline float __fmul_rn(float a, float b) { return qgpu_host::mulR(a, b, Rnd::rn); }
inline float __fmul_rz(float a, float b) { return qgpu_host::mulR(a, b, Rnd::rz); }
inline float __fmul_rd(float a, float b) { return qgpu_host::mulR(a, b, Rnd::rm); }
inline float __fmul_ru(float a, float b) { return qgpu_host::mulR(a, b, Rnd::rp); }
inline float __fmaf_rn(float a, float b, float c) { return qgpu_host::fmaR(a, b, c, Rnd::rn); }
inline float __fmaf_rz(float a, float b, float c) { return qgpu_host::fmaR(a, b, c, Rnd::rz); }
inline float __fmaf_rd(float a, float b, float c) { return qgpu_host::fmaR(a, b, c, Rnd::rm); }
inline float __fmaf_ru(float a, float b, float c) { return qgpu_host::fmaR(a, b, c, Rnd::rp); }
// fmaf/fminf/... are macros: defining the libm names themselves would also replace the
// functions std::fma and friends call (endless recursion).
inline float qf_host_fmaf(float a, float b, float c) { return qgpu_host::fmaR(a, b, c, Rnd::rn); }
#define fmaf qf_host_fmaf
inline float __fdiv_rn(float a, float b) { return qgpu_host::divR(a, b, Rnd::rn); }
inline float __fdiv_rz(float a, float b) { return qgpu_host::divR(a, b, Rnd::rz); }
inline float __fdiv_rd(float a, float b) { return qgpu_host::divR(a, b, Rnd::rm); }
inline float __fdiv_ru(float a, float b) { return qgpu_host::divR(a, b, Rnd::rp); }
inline float __frcp_rn(float a) { return qgpu_host::divR(1.0f, a, Rnd::rn); }
inline float __fsqrt_rn(float a) { return qgpu_host::sqrtR(a, Rnd::rn); }
inline float __fsqrt_rz(float a) { return qgpu_host::sqrtR(a, Rnd::rz); }
template <class T> inline T qf_fmin(T a, T b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class T> inline T qf_fmax(T a, T b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
#define fminf qf_fmin<float>
#define fmaxf qf_fmax<float>
#define fmin qf_fmin<double>
#define fmax qf_fmax<double>
inline double __dadd_rn(double a, double b) { volatile double r = a + b; return r; }
inline double __dmul_rn(double a, double b) { volatile double r = a * b; return r; }
inline double __ddiv_rn(double a, double b) { volatile double r = a / b; return r; }
inline double __dsqrt_rn(double a) { return std::sqrt(a); }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline int __float2int_rn(float a) { return qgpu_host::cvtFloatToInt<int32_t>(a, Rnd::rn); }
inline int __float2int_rz(float a) { return qgpu_host::cvtFloatToInt<int32_t>(a, Rnd::rz); }
inline int __float2int_rd(float a) { return qgpu_host::cvtFloatToInt<int32_t>(a, Rnd::rm); }
inline int __float2int_ru(float a) { return qgpu_host::cvtFloatToInt<int32_t>(a, Rnd::rp); }
inline unsigned __float2uint_rz(float a) { return qgpu_host::cvtFloatToInt<uint32_t>(a, Rnd::rz); }
inline long long __float2ll_rz(float a) { return qgpu_host::cvtFloatToInt<int64_t>(a, Rnd::rz); }
inline int __double2int_rz(double a) { return qgpu_host::cvtFloatToInt<int32_t>(a, Rnd::rz, true); }
inline float __double2float_rn(double a) { volatile float r = static_cast<float>(a); return r; }
inline int qf_float2int_rn(float a) { return __float2int_rn(a); }
inline int qf_float2int_rz(float a) { return __float2int_rz(a); }
inline int qf_float2int_rd(float a) { return __float2int_rd(a); }
inline int qf_float2int_ru(float a) { return __float2int_ru(a); }
inline unsigned qf_float2uint_rz(float a) { return __float2uint_rz(a); }
inline long long qf_float2ll_rz(float a) { return __float2ll_rz(a); }
inline int qf_double2int_rz(double a) { return __double2int_rz(a); }
inline float __int2float_rz(int a) { return qgpu_host::i2fR(a, Rnd::rz); }
inline float __int2float_rd(int a) { return qgpu_host::i2fR(a, Rnd::rm); }
inline float __uint2float_rz(unsigned a) { return qgpu_host::u2fR(a, Rnd::rz); }

// The host program of a batch (tools/fuzz/qfuzz.py): `prog KERNEL FILE` reads the launch's
// buffers from FILE (lines "NAME COUNT HEX..."; in, emi, out, gat), runs KERNEL under the shim
// and prints the outputs as "out HEX..." and "gat HEX...".
namespace qf {
using KernelFn = void (*)(const unsigned*, const unsigned*, unsigned*, unsigned*);
struct Entry {
  const char* name;
  KernelFn fn;
  dim3 grid, block;
  unsigned dyn;
};
inline int main(int argc, char** argv, const Entry* entries, size_t n) {
  if (argc != 3) die("usage: prog KERNEL BUFFERS");
  const Entry* e = nullptr;
  for (size_t i = 0; i < n; ++i)
    if (!std::strcmp(entries[i].name, argv[1])) e = &entries[i];
  if (!e) die("no such kernel");
  FILE* f = std::fopen(argv[2], "r");
  if (!f) die("cannot read the buffers file");
  std::vector<unsigned> buf[4];
  const char* names[4] = {"in", "emi", "out", "gat"};
  for (auto& b : buf) {
    char name[16];
    unsigned count = 0;
    if (std::fscanf(f, "%15s %u", name, &count) != 2) die("bad buffers file");
    int k = -1;
    for (int j = 0; j < 4; ++j)
      if (!std::strcmp(name, names[j])) k = j;
    if (k < 0) die("bad buffer name");
    buf[k].assign(count, 0);
    for (unsigned i = 0; i < count; ++i)
      if (std::fscanf(f, "%x", &buf[k][i]) != 1) {
        if (k == 2) break;  // out: a count only
        die("bad buffer value");
      }
    (void)b;
  }
  std::fclose(f);
  launch(e->grid, e->block, e->dyn, [&] { e->fn(buf[0].data(), buf[1].data(), buf[2].data(), buf[3].data()); });
  for (int k : {2, 3}) {
    std::printf("%s", names[k]);
    for (unsigned v : buf[k]) std::printf(" %08x", v);
    std::printf("\n");
  }
  return 0;
}
}  // namespace qf
#endif

// ---------------------------------------------------------------- both
QF_FN unsigned qf_gbase() { return qf_laneid() & 28u; }  // first lane of the 4-lane group
QF_FN unsigned qf_udiv(unsigned a, unsigned b) { return b ? a / b : a; }
QF_FN unsigned qf_urem(unsigned a, unsigned b) { return b ? a % b : a; }
QF_FN int qf_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
QF_FN int qf_srem(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a % b; }
QF_FN unsigned long long qf_udiv64(unsigned long long a, unsigned long long b) { return b ? a / b : a; }
// Bits of a float for hashing: every NaN is one value (PTX leaves NaN payloads open and the
// host's differ), tested on the integer bits.
QF_FN unsigned qf_fbits(float f) {
  unsigned u = __float_as_uint(f);
  return (u & 0x7fffffffu) > 0x7f800000u ? 0x7fffffffu : u;
}
QF_FN unsigned long long qf_dbits(double d) {
  unsigned long long u = (unsigned long long)__double_as_longlong(d);
  return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull ? 0x7fffffffffffffffull : u;
}
QF_FN unsigned qf_mix(unsigned h, unsigned v) {
  h = (h ^ v) * 16777619u;
  return h ^ (h >> 15);
}
QF_FN unsigned qf_mix64(unsigned h, unsigned long long v) {
  return qf_mix(qf_mix(h, (unsigned)v), (unsigned)(v >> 32));
}
