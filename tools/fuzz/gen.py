#!/usr/bin/env python3
"""Seeded generator of deterministic CUDA kernels for differential fuzzing (docs/fuzzing.md).

`generate(seed, variant)` returns one kernel (source text and launch metadata). The same seed
always gives the same kernel, byte for byte, on any Python 3 (the generator draws from its own
splitmix64 stream, never from `random`). variant 0 is the base kernel; variant v > 0 is an EMI
variant: the same kernel with dead code inserted under guards that read the `emi` buffer,
which is all zeros at run time but unknown to the compilers, so every variant must give the
base kernel's outputs.

Undefined behaviour is excluded by construction:
  * integer arithmetic that can wrap is unsigned (C defines the wrap); signed values only go
    through operations that cannot overflow (min/max, >>, guarded division, comparisons);
  * shift amounts are masked (& 31, & 63); division goes through qf_udiv/qf_sdiv (qf_rt.h);
  * every array index is masked or reduced modulo a constant length; every local array and
    shared word is written before it is read;
  * shared memory is used in phases: each thread writes only its own word, __syncthreads,
    reads, __syncthreads; atomics (global and shared) discard their return values and each
    word gets one commutative operation, so the final contents do not depend on the order;
  * __syncthreads appears only in control flow that is uniform over the block;
  * warp shuffles and votes appear only where the set of executing lanes of every 4-lane
    group is known statically (conditions on tid & 3), their mask names exactly that set
    shifted to the group (so warps of 4 and of 32 agree), and a shuffle reads only lanes of
    the set;
  * floating point never leaves the compilers a choice: products and sums go through the
    rounding intrinsics (__fmul_rn, __fadd_rz, fmaf, ...), so nothing can be contracted;
    NaN payloads are never observed (qf_fbits canonicalises before hashing);
  * loops have per-lane trip counts below 16, recursion depth is below 8.
Every thread folds what it computes into a hash, written to out[gid] (CLsmith's approach).
"""
import argparse
import json
import re
import sys

M64 = (1 << 64) - 1
F32_CONSTS = ["0.0f", "-0.0f", "1.0f", "-1.5f", "0.1f", "3.0f", "1e30f", "-1e-30f", "1e-40f",
              "65504.0f", "0.5f", "16777216.0f", "2.5f", "-7.0f", "1.17549435e-38f"]
F64_CONSTS = ["0.0", "-0.0", "1.0", "-2.5", "0.1", "1e300", "-1e-300", "4.9e-324", "3.0", "0.5",
              "9007199254740992.0"]
ROUND = ["rn", "rz", "rd", "ru"]
ATOM_OPS = ["add", "umin", "umax", "smin", "smax", "and", "or", "xor"]


class Rng:
    """splitmix64: platform- and version-independent."""

    def __init__(self, seed):
        self.s = seed & M64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def chance(self, percent):
        return self.below(100) < percent

    def pick(self, seq):
        return seq[self.below(len(seq))]

    def u32(self):
        return self.next() & 0xFFFFFFFF


class Ctx:
    """Where a statement is generated."""

    def __init__(self, **kw):
        self.top = True          # kernel's top level: barriers and shared phases allowed
        self.lanes = 0xF         # lanes of each 4-lane group known to execute; None: unknown
        self.loopvars = []
        self.shared_atom = False  # inside an atomic section on the kernel's shared words
        self.dead = False        # EMI dead code: never executed
        self.depth = 0
        self.helper = False      # inside a device function: no tid, gid, in[]
        self.__dict__.update(kw)

    def sub(self, **kw):
        c = Ctx(**self.__dict__)
        c.loopvars = list(self.loopvars)
        c.__dict__.update(kw)
        return c


class Gen:
    def __init__(self, seed, variant=0, size=None):
        self.seed = seed
        self.r = Rng(seed * 2 + 1)
        self.variant = variant
        self.er = Rng((seed << 8) ^ (variant * 0x5851F42D4C957F2D)) if variant else None
        self.name = f"qf{seed}" + (f"_e{variant}" if variant else "")
        self.features = set()
        self.loop_id = 0
        self.dead_loop_id = 0
        r = self.r
        self.size = size if size is not None else r.pick([6, 10, 14, 20, 28])
        shape = r.pick(["1d", "1d", "1d", "2d"])
        nt = r.pick([4, 8, 16, 32, 32, 64, 12, 40])
        if shape == "2d" and nt >= 8 and nt % 8 == 0:
            self.bdim = [nt // 2, 2, 1] if r.chance(50) else [4, nt // 4, 1]
        else:
            self.bdim = [nt, 1, 1]
        self.nt = nt
        self.grid = [r.pick([1, 1, 2, 3]), 1, 1]
        self.nthreads = nt * self.grid[0]
        self.tbl = self.nthreads * 4        # start of the shared 32-word table in `in`
        self.nin = self.tbl + 32
        # variables: name -> type; mutable ones only
        self.vars = {"u": [], "i": [], "q": [], "f": [], "d": []}
        self.has_la = False
        self.has_struct = False
        self.has_const = r.chance(35)
        self.helpers = []   # (name, kind, arg types)
        self.sa_ops = [r.pick(ATOM_OPS) for _ in range(4)]
        self.gat_ops = ATOM_OPS + ["inc", "cas_add"]
        self.uses_dyn = False
        # a third of the kernels use no f64 arithmetic (the machine lowers little of it)
        self.f64 = r.chance(67)
        if not self.f64 and size is None:
            # ... and are small: these are the kernels the machine can take (it lowers no f64
            # compares or conversions and has 511 registers)
            self.size = min(self.size, 14)

    # ------------------------------------------------------------------ expressions
    def var(self, t, r):
        return r.pick(self.vars[t])

    def eu(self, d, c, r):
        """unsigned 32-bit expression"""
        if d <= 0 or r.chance(25):
            k = r.below(10)
            if k < 5:
                return self.var("u", r)
            if k == 5:
                if c.helper:
                    return r.pick(["threadIdx.x", "blockIdx.x"])
                return r.pick(["tid", "lane4", "gid", "blockIdx.x"])
            if k == 6 and c.loopvars:
                return r.pick(c.loopvars)
            if k == 7 and not c.helper:
                self.features.add("global_table")
                return f"in[{self.tbl}u + (({self.eu(d - 1, c, r)}) & 31u)]"
            if k == 8 and self.has_la and r.chance(50):
                return f"la[({self.eu(d - 1, c, r)}) & 7u]"
            if k == 8 and self.has_struct:
                return "st.a"
            if k == 9 and self.has_const:
                self.features.add("const_mem")
                return f"{self.name}_ct[({self.eu(d - 1, c, r)}) & 15u]"
            return r.pick(["0u", "1u", "3u", "7u", "31u", "0xffffffffu", "0x80000000u",
                           f"0x{r.u32():08x}u", f"{r.below(64)}u"])
        d -= 1
        k = r.below(34)
        a = lambda: self.eu(d, c, r)
        self.features.add("int32")
        if k < 3:
            return f"({a()} + {a()})"
        if k < 5:
            return f"({a()} - {a()})"
        if k < 7:
            return f"({a()} * {a()})"
        if k < 9:
            return f"({a()} ^ {a()})"
        if k == 9:
            return f"({a()} & {a()})"
        if k == 10:
            return f"({a()} | {a()})"
        if k == 11:
            return f"({a()} << (({a()}) & 31u))"
        if k == 12:
            return f"({a()} >> (({a()}) & 31u))"
        if k == 13:
            return f"(~{a()})"
        if k == 14:
            self.features.add("int_div")
            return f"qf_{r.pick(['udiv', 'urem'])}({a()}, {a()})"
        if k == 15:
            return f"(unsigned)({self.ei(d, c, r)})"
        if k == 16:
            return f"({self.eb(d, c, r)} ? {a()} : {a()})"
        if k == 17:
            self.features.add("bit_ops")
            return r.pick([f"(unsigned)__popc({a()})", f"(unsigned)__clz((int)({a()}))", f"__brev({a()})",
                           f"(unsigned)__ffs((int)({a()}))"])
        if k == 18:
            self.features.add("bit_ops")
            return r.pick([f"__byte_perm({a()}, {a()}, {a()})", f"__funnelshift_l({a()}, {a()}, {a()})",
                           f"__funnelshift_r({a()}, {a()}, {a()})", f"__funnelshift_lc({a()}, {a()}, {a()})",
                           f"__funnelshift_rc({a()}, {a()}, {a()})"])
        if k == 19:
            self.features.add("mul_hi")
            return r.pick([f"__umulhi({a()}, {a()})", f"(unsigned)__mulhi((int)({a()}), (int)({a()}))",
                           f"__umul24({a()}, {a()})", f"(unsigned)__mul24((int)({a()}), (int)({a()}))"])
        if k == 20:
            return r.pick([f"umin({a()}, {a()})", f"umax({a()}, {a()})"])
        if k == 21:
            return f"(unsigned)({self.eq(d, c, r)})"
        if k == 22:
            return f"(unsigned)(({self.eq(d, c, r)}) >> 32)"
        if k in (23, 24):
            self.features.add("f32")
            return f"qf_fbits({self.ef(d, c, r)})"
        if k == 25:
            self.features.add("convert")
            return r.pick([f"(unsigned)qf_float2int_{r.pick(ROUND)}({self.ef(d, c, r)})",
                           f"qf_float2uint_rz({self.ef(d, c, r)})",
                           f"(unsigned)qf_double2int_rz({self.ed(d, c, r)})" if self.f64 else "0u"])
        if k == 26:
            return f"(unsigned)({self.eb(d, c, r)})"
        if k == 27:
            self.features.add("sad_dp4a")
            return r.pick([f"__sad((int)({a()}), (int)({a()}), {a()})", f"__usad({a()}, {a()}, {a()})",
                           f"(unsigned)__dp4a((int)({a()}), (int)({a()}), (int)({a()}))",
                           f"__dp4a({a()}, {a()}, {a()})"])
        if k == 28 and self.usable_helpers():
            h = r.pick(self.usable_helpers())
            return self.call(h, d, c, r)
        if k == 29:
            self.features.add("f64")
            return f"(unsigned)qf_dbits({self.ed(d, c, r)})"
        if k == 30 and self.has_struct:
            self.features.add("struct")
            return r.pick(["st.a", "st.b[0]", "st.b[1]", "qf_fbits(st.f)"])
        if k == 31:
            # 8- and 16-bit values: the truncations and extensions of narrow types
            self.features.add("narrow")
            return r.pick([f"(unsigned)(unsigned char)({a()})", f"(unsigned)(unsigned short)({a()})",
                           f"(unsigned)(int)(signed char)({a()})", f"(unsigned)(int)(short)({a()})"])
        return f"({a()} + {a()})"

    def ei(self, d, c, r):
        """signed 32-bit expression (never overflows)"""
        if d <= 0 or r.chance(20):
            if self.vars["i"] and r.chance(70):
                return self.var("i", r)
            return r.pick(["-1", "0", "1", "-7", "(-2147483647 - 1)", "2147483647", str(r.below(200) - 100)])
        d -= 1
        k = r.below(11)
        b = lambda: self.ei(d, c, r)
        self.features.add("int32_signed")
        if k == 0:
            self.features.add("int_div")
            return f"qf_{r.pick(['sdiv', 'srem'])}({b()}, {b()})"
        if k == 1:
            return f"{r.pick(['min', 'max'])}({b()}, {b()})"
        if k == 2:
            return f"({b()} >> (({self.eu(d, c, r)}) & 31u))"
        if k == 3:
            self.features.add("convert")
            return f"qf_float2int_{r.pick(ROUND)}({self.ef(d, c, r)})"
        if k == 4 and self.f64:
            self.features.add("convert")
            return f"qf_double2int_rz({self.ed(d, c, r)})"
        if k == 5:
            return f"(int)({self.eu(d, c, r)})"
        if k == 6:
            return f"({self.eb(d, c, r)} ? {b()} : {b()})"
        if k == 7:
            return f"(({b()}) / {r.pick(['3', '7', '-5', '16', '1000'])})"
        if k == 8:
            return f"(({b()}) % {r.pick(['3', '7', '-5', '16', '1000'])})"
        if k == 9:
            return f"(int)(({self.eq(d, c, r)}) >> {r.pick(['33', '40', '63'])})"
        return f"({b()} >> {r.below(32)})"

    def eq(self, d, c, r):
        """unsigned 64-bit expression"""
        if d <= 0 or r.chance(25):
            if r.chance(75):
                return self.var("q", r)
            return r.pick(["0ull", "1ull", "0xffffffffffffffffull", f"0x{r.next():016x}ull"])
        d -= 1
        k = r.below(13)
        a = lambda: self.eq(d, c, r)
        u = lambda: self.eu(d, c, r)
        self.features.add("int64")
        if k == 0:
            return f"(((unsigned long long)({u()}) << 32) | ({u()}))"
        if k == 1:
            return f"({a()} + {a()})"
        if k == 2:
            return f"({a()} * {a()})"
        if k == 3:
            return f"({a()} ^ {a()})"
        if k == 4:
            return f"({a()} >> (({u()}) & 63u))"
        if k == 5:
            return f"({a()} << (({u()}) & 63u))"
        if k == 6:
            self.features.add("int_div")
            return f"qf_udiv64({a()}, {a()})"
        if k == 7:
            self.features.add("mul_hi")
            return r.pick([f"__umul64hi({a()}, {a()})",
                           f"(unsigned long long)__mul64hi((long long)({a()}), (long long)({a()}))"])
        if k == 8:
            self.features.add("bit_ops")
            return r.pick([f"__brevll({a()})", f"(unsigned long long)__popcll({a()})",
                           f"(unsigned long long)__clzll((long long)({a()}))"])
        if k == 9:
            return f"((unsigned long long)({u()}) * ({u()}))"
        if k == 10:
            self.features.add("convert")
            return f"(unsigned long long)qf_float2ll_rz({self.ef(d, c, r)})"
        if k == 11:
            self.features.add("f64")
            return f"qf_dbits({self.ed(d, c, r)})"
        return f"(unsigned long long)(long long)({self.ei(d, c, r)})"

    def ef(self, d, c, r):
        """f32 expression (no contraction possible: every + and * is an intrinsic)"""
        self.features.add("f32")
        if d <= 0 or r.chance(25):
            k = r.below(6)
            if k < 3:
                return self.var("f", r)
            if k == 3:
                return f"__uint_as_float({self.eu(0, c, r)})"
            if k == 4 and self.has_struct:
                return "st.f"
            return r.pick(F32_CONSTS)
        d -= 1
        k = r.below(20)
        a = lambda: self.ef(d, c, r)
        if k < 3:
            rm = r.pick(ROUND)
            if rm != "rn":
                self.features.add("f32_round_modes")
            return f"__fadd_{rm}({a()}, {a()})"
        if k < 5:
            rm = r.pick(ROUND)
            if rm != "rn":
                self.features.add("f32_round_modes")
            return f"__fmul_{rm}({a()}, {a()})"
        if k < 7:
            rm = r.pick(ROUND)
            self.features.add("fma")
            if rm != "rn":
                self.features.add("f32_round_modes")
            return r.pick([f"__fmaf_{rm}({a()}, {a()}, {a()})", f"fmaf({a()}, {a()}, {a()})"])
        if k == 7:
            rm = r.pick(ROUND)
            self.features.add("f32_div_sqrt")
            return f"__fdiv_{rm}({a()}, {a()})"
        if k == 8:
            self.features.add("f32_div_sqrt")
            return r.pick([f"__fsqrt_rn({a()})", f"__fsqrt_rz({a()})", f"__frcp_rn({a()})"])
        if k == 9:
            return f"{r.pick(['fminf', 'fmaxf'])}({a()}, {a()})"
        if k == 10:
            return r.pick([f"fabsf({a()})", f"(-({a()}))"])
        if k == 11:
            self.features.add("convert")
            return r.pick([f"__int2float_{r.pick(['rz', 'rd'])}({self.ei(d, c, r)})", f"(float)({self.ei(d, c, r)})",
                           f"(float)({self.eu(d, c, r)})", f"__uint2float_rz({self.eu(d, c, r)})"])
        if k == 12 and self.f64:
            self.features.add("f64")
            return f"__double2float_rn({self.ed(d, c, r)})"
        if k == 13:
            return f"({self.eb(d, c, r)} ? {a()} : {a()})"
        if k == 14:
            return f"__uint_as_float({self.eu(d, c, r)})"
        if k == 15:
            return f"__fsub_rn({a()}, {a()})"
        return f"__fadd_rn({a()}, {a()})"

    def ed(self, d, c, r):
        """f64 expression"""
        if not self.f64:
            return self.var("d", r)
        self.features.add("f64")
        if d <= 0 or r.chance(25):
            if r.chance(70):
                return self.var("d", r)
            return r.pick(F64_CONSTS)
        d -= 1
        k = r.below(13)
        a = lambda: self.ed(d, c, r)
        if k < 2:
            return f"__dadd_rn({a()}, {a()})"
        if k < 4:
            return f"__dmul_rn({a()}, {a()})"
        if k == 4:
            self.features.add("fma")
            return f"__fma_rn({a()}, {a()}, {a()})"
        if k == 5:
            return r.pick([f"__ddiv_rn({a()}, {a()})", f"__dsqrt_rn({a()})"])
        if k == 6:
            return f"{r.pick(['fmin', 'fmax'])}({a()}, {a()})"
        if k == 7:
            return r.pick([f"fabs({a()})", f"(-({a()}))"])
        if k == 8:
            self.features.add("convert")
            return f"(double)({self.ef(d, c, r)})"
        if k == 9:
            self.features.add("convert")
            return r.pick([f"(double)({self.ei(d, c, r)})", f"(double)({self.eu(d, c, r)})",
                           f"(double)({self.eq(d, c, r)})"])
        if k == 10:
            return f"__longlong_as_double((long long)({self.eq(d, c, r)}))"
        if k == 11:
            return f"({self.eb(d, c, r)} ? {a()} : {a()})"
        return f"__dadd_rn({a()}, {a()})"

    def eb(self, d, c, r):
        """condition"""
        d = max(d - 1, 0)
        k = r.below(10)
        if k < 3:
            return f"({self.eu(d, c, r)} {r.pick(['<', '>', '<=', '>=', '==', '!='])} {self.eu(d, c, r)})"
        if k == 3:
            return f"({self.ei(d, c, r)} {r.pick(['<', '>=', '=='])} {self.ei(d, c, r)})"
        if k == 4:
            self.features.add("f32_compare")
            return f"({self.ef(d, c, r)} {r.pick(['<', '>', '<=', '>=', '==', '!='])} {self.ef(d, c, r)})"
        if k == 5:
            self.features.add("f32_compare")
            return f"(!({self.ef(d, c, r)} >= {self.ef(d, c, r)}))"
        if k == 6 and self.f64:
            self.features.add("f64")
            return f"({self.ed(d, c, r)} {r.pick(['<', '>=', '!='])} {self.ed(d, c, r)})"
        if k == 7:
            return f"((({self.eu(d, c, r)}) & {1 << r.below(8)}u) != 0u)"
        if k == 8:
            return f"({self.eq(d, c, r)} < {self.eq(d, c, r)})"
        return f"({self.eb(d, c, r)} {r.pick(['&&', '||'])} {self.eb(d, c, r)})"

    def call(self, h, d, c, r):
        name, kind, args = h
        self.features.add("call")
        if kind == "rec":
            self.features.add("recursion")
            return f"{name}({self.eu(d, c, r)}, ({self.eu(d, c, r)}) & 7u)"
        parts = []
        for t in args:
            parts.append({"u": lambda: self.eu(d, c, r), "f": lambda: self.ef(d, c, r),
                          "q": lambda: self.eq(d, c, r), "s": lambda: "st", "p": lambda: "la"}[t]())
            if t == "s":
                self.features.add("struct")
            if t == "p":
                self.features.add("local_array")
        return f"{name}({', '.join(parts)})"

    # ------------------------------------------------------------------ statements
    def assign(self, c, r):
        t = r.pick(["u", "u", "u", "i", "q", "f", "f", "d" if self.f64 else "u"])
        v = self.var(t, r)
        D = r.below(4)
        if t == "u":
            op = r.pick(["=", "=", "+=", "^=", "-=", "*=", "|="])
            return f"{v} {op} {self.eu(D, c, r)};"
        if t == "i":
            return f"{v} = {self.ei(D, c, r)};"
        if t == "q":
            return f"{v} {r.pick(['=', '+=', '^='])} {self.eq(D, c, r)};"
        if t == "f":
            return f"{v} = {self.ef(D, c, r)};"
        return f"{v} = {self.ed(D, c, r)};"

    def hash_stmt(self, c, r):
        k = r.below(5)
        D = r.below(4)
        if k == 0:
            return f"h = qf_mix(h, qf_fbits({self.ef(D, c, r)}));"
        if k == 1:
            return f"h = qf_mix64(h, qf_dbits({self.ed(D, c, r)}));"
        if k == 2:
            return f"h = qf_mix64(h, {self.eq(D, c, r)});"
        if k == 3:
            return f"h = qf_mix(h, (unsigned)({self.ei(D, c, r)}));"
        return f"h = qf_mix(h, {self.eu(D, c, r)});"

    def lanes_mask(self, lanes):
        return f"(0x{lanes:x}u << qf_gbase())"

    def collective(self, c, r, out):
        lanes = c.lanes
        m = self.lanes_mask(lanes)
        if r.chance(35):
            self.features.add("vote")
            v = self.var("u", r)
            k = r.below(3)
            cond = self.eb(2, c, r)
            if k == 0:
                out.append(f"{v} ^= (__ballot_sync({m}, {cond}) >> qf_gbase()) & 0xfu;")
            elif k == 1:
                out.append(f"{v} += (unsigned)__any_sync({m}, {cond});")
            else:
                out.append(f"{v} += (unsigned)__all_sync({m}, {cond}) * 2u;")
            return
        members = [l for l in range(4) if (lanes >> l) & 1]
        modes = []
        for mode, fn in (("idx", "__shfl_sync"), ("up", "__shfl_up_sync"), ("down", "__shfl_down_sync"),
                         ("bfly", "__shfl_xor_sync")):
            for s in range(4 if mode == "idx" else 1, 4) if mode != "idx" else range(4):
                ok = True
                for l in members:
                    j = s if mode == "idx" else l - s if mode == "up" else l + s if mode == "down" else l ^ s
                    if j < 0 or j > 3:
                        j = l
                    ok = ok and j in members
                if ok:
                    modes.append((fn, s))
        fn, s = r.pick(modes)
        self.features.add("shfl")
        t = r.pick(["u", "u", "i", "f"])
        if t == "u":
            out.append(f"{self.var('u', r)} = {fn}({m}, {self.eu(2, c, r)}, {s}, 4);")
        elif t == "i":
            out.append(f"{self.var('i', r)} = {fn}({m}, {self.ei(2, c, r)}, {s}, 4);")
        else:
            out.append(f"{self.var('f', r)} = {fn}({m}, {self.ef(2, c, r)}, {s}, 4);")

    def atomic(self, c, r):
        if c.shared_atom and r.chance(60):
            j = r.below(4)
            op = self.sa_ops[j]
            target = f"&{self.name}_sa[{j}]"
            self.features.add("atomic_shared")
        else:
            j = r.below(len(self.gat_ops))
            op = self.gat_ops[j]
            target = f"&gat[{j}]"
            self.features.add("atomic_global")
        if op == "inc":
            # one limit per word: every thread applies the same function, so the order is free
            self.features.add("atomic_inc_cas")
            return f"atomicInc({target}, 0x{0x100 + 37 * j:x}u);"
        if op == "cas_add":
            # a compare-and-swap loop that adds: the final sum does not depend on the order
            self.features.add("atomic_inc_cas")
            return (f"{{ const unsigned cv = {self.eu(2, c, r)}; unsigned old = 0u, assumed; "
                    f"do {{ assumed = old; old = (unsigned)atomicCAS((int*){target}, (int)assumed, (int)(assumed + cv)); }} "
                    f"while (old != assumed); }}")
        fn = {"add": "atomicAdd", "umin": "atomicMin", "umax": "atomicMax", "smin": "atomicMin",
              "smax": "atomicMax", "and": "atomicAnd", "or": "atomicOr", "xor": "atomicXor"}[op]
        if op in ("smin", "smax"):
            return f"{fn}((int*){target}, {self.ei(2, c, r)});"
        return f"{fn}({target}, {self.eu(2, c, r)});"

    def block(self, c, n, r, out, ind):
        for _ in range(n):
            if self.er is not None and not c.dead and self.er.chance(12):
                self.emi(c, out, ind)
            self.stmt(c, r, out, ind)

    def emi(self, c, out, ind):
        """EMI: a block under a guard that is false at run time (emi[] is all zeros)."""
        er = self.er
        self.features.add("emi")
        g = er.pick([f"emi[{er.below(8)}] != 0u", f"emi[{er.below(8)}] > tid + 3u",
                     f"(emi[{er.below(8)}] ^ emi[{er.below(8)}]) == 1u", f"emi[{er.below(8)}] == 7u"])
        out.append(ind + f"if ({g}) {{")
        self.block(c.sub(dead=True, top=False, lanes=None, depth=c.depth + 1), 1 + er.below(4), er, out, ind + "  ")
        out.append(ind + "}")

    def loopvar(self, c):
        # dead code counts its own loops, so that every variant's live code is the base kernel's
        if c.dead:
            self.dead_loop_id += 1
            return f"e{self.dead_loop_id}"
        self.loop_id += 1
        return f"i{self.loop_id}"

    def usable_helpers(self):
        return [h for h in self.helpers if ("s" not in h[2] or self.has_struct) and ("p" not in h[2] or self.has_la)]

    def stmt(self, c, r, out, ind):
        k = r.below(100)
        deep = c.depth >= 3
        if c.top and not c.dead and k < 10:
            return self.phase(c, r, out, ind)
        if k < 35:
            out.append(ind + self.assign(c, r))
        elif k < 47:
            out.append(ind + self.hash_stmt(c, r))
        elif k < 55 and not deep and r.chance(25):
            # a switch with a fall-through case: data-dependent divergence in several ways
            self.features.add("divergence")
            self.features.add("switch")
            cc = c.sub(top=False, lanes=None, depth=c.depth + 1)
            labels = sorted(set(r.below(8) for _ in range(3)))
            out.append(ind + f"switch (({self.eu(2, c, r)}) & 7u) {{")
            for lab in labels + ["default"]:
                out.append(ind + (f"  case {lab}u: {{" if lab != "default" else "  default: {"))
                self.block(cc, 1 + r.below(2), r, out, ind + "    ")
                out.append(ind + ("  } break;" if lab == "default" or r.chance(70) else "  }  // falls through"))
            out.append(ind + "}")
        elif k < 55 and not deep:
            # data-dependent divergence
            self.features.add("divergence")
            out.append(ind + f"if ({self.eb(3, c, r)}) {{")
            cc = c.sub(top=False, lanes=None, depth=c.depth + 1)
            self.block(cc, 1 + r.below(3), r, out, ind + "  ")
            if r.chance(50):
                out.append(ind + "} else {")
                self.block(cc, 1 + r.below(3), r, out, ind + "  ")
            out.append(ind + "}")
        elif k < 62 and not deep and c.lanes is not None:
            # divergence on the lane within the group: the executing set stays known
            self.features.add("divergence")
            self.features.add("lane_divergence")
            m = 1 + r.below(14)
            out.append(ind + f"if ((0x{m:x}u >> lane4) & 1u) {{")
            self.block(c.sub(top=False, lanes=c.lanes & m or None, depth=c.depth + 1), 1 + r.below(3), r, out,
                       ind + "  ")
            if r.chance(60):
                out.append(ind + "} else {")
                self.block(c.sub(top=False, lanes=c.lanes & ~m & 0xF or None, depth=c.depth + 1), 1 + r.below(3),
                           r, out, ind + "  ")
            out.append(ind + "}")
        elif k < 69 and not deep:
            # a loop with a per-lane trip count
            self.features.add("loop_per_lane")
            iv = self.loopvar(c)
            out.append(ind + f"for (unsigned {iv} = 0u; {iv} < (({self.eu(2, c, r)}) & {r.pick(['3u', '7u', '15u'])}); ++{iv}) {{")
            cc = c.sub(top=False, lanes=None, depth=c.depth + 1)
            cc.loopvars.append(iv)
            n = 1 + r.below(3)
            brk = r.below(n + 1) if r.chance(30) else -1
            for j in range(n + 1):
                if j == brk:
                    out.append(ind + f"  if ({self.eb(2, cc, r)}) {r.pick(['break', 'continue'])};")
                if j < n:
                    self.block(cc, 1, r, out, ind + "  ")
            out.append(ind + "}")
        elif k < 74 and not deep:
            # a loop every thread runs the same number of times
            iv = self.loopvar(c)
            out.append(ind + f"for (unsigned {iv} = 0u; {iv} < {1 + r.below(3)}u; ++{iv}) {{")
            cc = c.sub(top=False, depth=c.depth + 1)
            cc.loopvars.append(iv)
            self.block(cc, 1 + r.below(3), r, out, ind + "  ")
            out.append(ind + "}")
        elif k < 83 and c.lanes is not None and not c.dead:
            tmp = []
            self.collective(c, r, tmp)
            out.extend(ind + s for s in tmp)
        elif k < 88:
            out.append(ind + self.atomic(c, r))
        elif k < 93 and self.usable_helpers():
            v = self.var("u", r)
            out.append(ind + f"{v} ^= {self.call(r.pick(self.usable_helpers()), 2, c, r)};")
        elif k < 96 and self.has_la:
            self.features.add("local_array")
            out.append(ind + f"la[({self.eu(2, c, r)}) & 7u] {r.pick(['=', '+=', '^='])} {self.eu(2, c, r)};")
        elif k < 98 and self.has_struct:
            self.features.add("struct")
            out.append(ind + r.pick([f"st.a += {self.eu(2, c, r)};", f"st.f = {self.ef(2, c, r)};",
                                     f"st.b[({self.eu(1, c, r)}) & 1u] ^= {self.eu(2, c, r)};"]))
        else:
            out.append(ind + self.hash_stmt(c, r))

    def phase(self, c, r, out, ind):
        """Shared memory phases, only at the kernel's top level (uniform control flow)."""
        nt = self.nt
        k = r.below(4)
        self.features.add("barrier")
        if k == 3:
            # atomic section on shared words
            self.features.add("atomic_shared")
            init = {"add": 0, "umin": 0xFFFFFFFF, "umax": 0, "smin": 0x7FFFFFFF, "smax": 0x80000000, "and": 0xFFFFFFFF,
                    "or": 0, "xor": 0}
            vals = ", ".join(f"0x{init[o]:08x}u" for o in self.sa_ops)
            out.append(ind + f"if (tid < 4u) {{ const unsigned init[4] = {{{vals}}}; {self.name}_sa[tid] = init[tid]; }}")
            out.append(ind + "__syncthreads();")
            out.append(ind + "{")
            self.block(c.sub(top=False, shared_atom=True, depth=c.depth + 1), 2 + r.below(3), r, out, ind + "  ")
            out.append(ind + "}")
            out.append(ind + "__syncthreads();")
            out.append(ind + f"{self.var('u', r)} ^= {self.name}_sa[({self.eu(2, c, r)}) & 3u];")
            out.append(ind + "__syncthreads();")
            return
        arr, kind = r.pick([(f"{self.name}_ms", "shared_module"), ("fs", "shared_function"),
                            ("dyn", "shared_extern"), ("sf", "shared_float"), ("sb", "shared_byte")])
        if kind == "shared_extern":
            self.uses_dyn = True
        self.features.add(kind)
        if kind == "shared_float":
            out.append(ind + f"sf[tid] = {self.ef(3, c, r)};")
            out.append(ind + "__syncthreads();")
            out.append(ind + f"{self.var('f', r)} = sf[(tid + {1 + r.below(nt)}u) % {nt}u];")
            out.append(ind + f"{self.var('f', r)} = fmaxf({self.var('f', r)}, sf[({self.eu(2, c, r)}) % {nt}u]);")
            out.append(ind + "__syncthreads();")
            return
        if kind == "shared_byte":
            out.append(ind + f"sb[tid] = (unsigned char)({self.eu(3, c, r)});")
            out.append(ind + "__syncthreads();")
            v = self.var("u", r)
            out.append(ind + f"{v} += sb[(tid + {1 + r.below(nt)}u) % {nt}u];")
            out.append(ind + f"{v} ^= (unsigned)sb[({self.eu(2, c, r)}) % {nt}u] << 8;")
            out.append(ind + "__syncthreads();")
            return
        out.append(ind + f"{arr}[tid] = {self.eu(3, c, r)};")
        out.append(ind + "__syncthreads();")
        if k == 2 and nt & (nt - 1) == 0 and nt > 1:
            self.features.add("reduction_tree")
            op = r.pick(["+", "^", "max"])
            e = f"umax({arr}[tid], {arr}[tid + s])" if op == "max" else f"{arr}[tid] {op} {arr}[tid + s]"
            out.append(ind + f"for (unsigned s = {nt // 2}u; s > 0u; s >>= 1) {{")
            out.append(ind + f"  if (tid < s) {arr}[tid] = {e};")
            out.append(ind + "  __syncthreads();")
            out.append(ind + "}")
            out.append(ind + f"{self.var('u', r)} ^= {arr}[0];")
        else:
            v = self.var("u", r)
            out.append(ind + f"{v} += {arr}[(tid + {1 + r.below(nt)}u) % {nt}u];")
            out.append(ind + f"{v} ^= {arr}[({self.eu(2, c, r)}) % {nt}u];")
        out.append(ind + "__syncthreads();")

    # ------------------------------------------------------------------ whole kernel
    def helpers_src(self):
        r = self.r
        src = []
        n = r.below(3)
        for hidx in range(n):
            name = f"{self.name}_h{hidx}"
            if r.chance(30):
                # bounded recursion: depth d < 8
                saved = self.vars
                saved_la, saved_st = self.has_la, self.has_struct
                self.has_la = self.has_struct = False
                self.vars = {"u": ["x", "d"], "i": [], "q": ["0ull"], "f": ["1.0f"], "d": ["1.0"]}
                c = Ctx(top=False, lanes=None, helper=True)
                base = self.eu(2, c, r)
                step = self.eu(2, c, r)
                comb = self.eu(1, c, r)
                self.vars = saved
                self.has_la, self.has_struct = saved_la, saved_st
                src.append(f"static __device__ __noinline__ unsigned {name}(unsigned x, unsigned d) {{\n"
                           f"  if (d == 0u) return {base};\n"
                           f"  return {name}({step}, d - 1u) ^ ({comb});\n}}\n")
                self.helpers.append((name, "rec", ["u", "u"]))
                continue
            args = [r.pick(["u", "f", "q"]) for _ in range(1 + r.below(3))]
            if self.has_struct and r.chance(30):
                args.append("s")
            if self.has_la and r.chance(30):
                args.append("p")
            ctype = {"u": "unsigned", "f": "float", "q": "unsigned long long", "s": f"{self.name}_S",
                     "p": "const unsigned*"}
            pnames = [f"a{j}" for j in range(len(args))]
            saved = self.vars
            self.vars = {"u": ["x0"] + [p for p, t in zip(pnames, args) if t == "u"], "i": ["i0"],
                         "q": ["y0"] + [p for p, t in zip(pnames, args) if t == "q"],
                         "f": ["g0"] + [p for p, t in zip(pnames, args) if t == "f"], "d": ["e0"]}
            saved_la, saved_st = self.has_la, self.has_struct
            self.has_la = "p" in args
            self.has_struct = False
            c = Ctx(top=False, lanes=None, depth=2, helper=True)
            body = []
            full = self.vars
            # x0's initialiser sees only the parameters (the locals are declared after it)
            self.vars = {"u": [p for p, t in zip(pnames, args) if t == "u"] or ["blockIdx.x"], "i": [],
                         "q": [p for p, t in zip(pnames, args) if t == "q"] or ["0ull"],
                         "f": [p for p, t in zip(pnames, args) if t == "f"] or ["0.5f"], "d": ["1.0"]}
            first = self.eu(2, c, r)
            self.vars = full
            sargs = []
            for p, t in zip(pnames, args):
                if t == "s":
                    sargs.append(f"x0 ^= {p}.a + {p}.b[1] + qf_fbits({p}.f);")
            for _ in range(1 + r.below(4)):
                body.append("  " + self.assign(c, r))
            ret = self.eu(2, c, r)
            self.vars = saved
            self.has_la, self.has_struct = saved_la, saved_st
            params = ", ".join(f"{ctype[t]} {p}" for p, t in zip(pnames, args))
            inline = r.pick(["__noinline__", "__forceinline__"])
            if "p" in args:
                # Every use of the kernel's `la` becomes the pointer parameter: element reads,
                # and `la` passed on to an earlier helper that takes one too (seed 601318).
                ptr = "a" + str(args.index("p"))
                body_src = re.sub(r"\bla\b", ptr, "\n".join(body))
                ret = re.sub(r"\bla\b", ptr, ret)
                first = re.sub(r"\bla\b", ptr, first)
            else:
                body_src = "\n".join(body)
            src.append(f"static __device__ {inline} unsigned {name}({params}) {{\n"
                       f"  unsigned x0 = {first};\n  int i0 = (int)x0;\n"
                       f"  unsigned long long y0 = (unsigned long long)x0 * 0x9e3779b97f4a7c15ull;\n"
                       f"  float g0 = __uint_as_float(x0 ^ 0x3f800000u);\n  double e0 = (double)g0;\n"
                       + "".join(f"  {s}\n" for s in sargs) + body_src + "\n"
                       f"  return x0 ^ ({ret});\n}}\n")
            self.helpers.append((name, "fn", args))
        return src

    def generate(self):
        r = self.r
        nt = self.nt
        self.has_la = r.chance(40)
        self.has_struct = r.chance(30)
        pre = []
        if self.has_struct:
            pre.append(f"struct {self.name}_S {{\n  unsigned a;\n  float f;\n  unsigned b[2];\n}};\n")
        if self.has_const:
            vals = ", ".join(f"0x{r.u32():08x}u" for _ in range(16))
            pre.append(f"__constant__ unsigned {self.name}_ct[16] = {{{vals}}};\n")
        pre.append(f"__shared__ unsigned {self.name}_ms[{nt}];\n")
        # the kernel's variables (declared before the helpers are generated: they use none)
        nu, ni, nq, nf, nd = 2 + r.below(3), 1 + r.below(2), 1, 1 + r.below(3), 1
        self.vars = {"u": [f"u{j}" for j in range(nu)], "i": [f"n{j}" for j in range(ni)],
                     "q": [f"q{j}" for j in range(nq)], "f": [f"f{j}" for j in range(nf)],
                     "d": [f"d{j}" for j in range(nd)]}
        helpers = self.helpers_src()
        body = []
        ind = "  "
        if self.bdim[1] > 1:
            body.append(ind + "const unsigned tid = threadIdx.x + threadIdx.y * blockDim.x;")
        else:
            body.append(ind + "const unsigned tid = threadIdx.x;")
        body.append(ind + f"const unsigned gid = blockIdx.x * {nt}u + tid;")
        body.append(ind + "const unsigned lane4 = tid & 3u;")
        body.append(ind + "const unsigned* my = in + gid * 4u;")
        body.append(ind + "unsigned h = 0x811c9dc5u ^ gid;")
        body.append(ind + "(void)emi;")
        decl_at = len(body)
        vec = r.chance(50)
        if vec:
            # one 16-byte load (ld.global.nc.v4) of the thread's words
            self.features.add("vector_load")
            body.append(ind + "const int4 v4 = *reinterpret_cast<const int4*>(my);")
        for j, v in enumerate(self.vars["u"]):
            src = f"(unsigned)v4.{'xyzw'[j % 4]}" if vec else f"my[{j % 4}]"
            body.append(ind + f"unsigned {v} = {src};")
        for j, v in enumerate(self.vars["i"]):
            body.append(ind + f"int {v} = (int)my[{(j + 1) % 4}];")
        body.append(ind + "unsigned long long q0 = ((unsigned long long)my[2] << 32) | my[3];")
        for j, v in enumerate(self.vars["f"]):
            src = f"my[{(j + 2) % 4}]" if j % 2 == 0 else f"in[{self.tbl}u + ((gid + {j}u) & 31u)]"
            body.append(ind + f"float {v} = __uint_as_float({src});")
        body.append(ind + "double d0 = __longlong_as_double((long long)(((unsigned long long)my[1] << 32) | my[0]));")
        if self.has_la:
            self.features.add("local_array")
            body.append(ind + "unsigned la[8];")
            body.append(ind + "for (unsigned j = 0u; j < 8u; ++j) la[j] = my[j & 3u] * (j + 1u);")
        if self.has_struct:
            self.features.add("struct")
            body.append(ind + f"{self.name}_S st;")
            body.append(ind + "st.a = u0 ^ 0x5a5a5a5au; st.f = f0; st.b[0] = tid; st.b[1] = u1;")
        c = Ctx()
        self.block(c, self.size, r, body, ind)
        early = r.chance(30)
        if early:
            # threads leave early (after the last barrier): the others go on with unknown lanes
            self.features.add("early_exit")
            body.append(ind + f"if ({self.eb(2, c, r)}) {{ out[gid] = qf_mix(h, 0xe4u); return; }}")
            self.block(c.sub(top=False, lanes=None), 1 + r.below(3), r, body, ind)
        # fold every variable into the hash
        fold = ["h"]
        for v in self.vars["u"]:
            fold.append(f"h = qf_mix(h, {v});")
        for v in self.vars["i"]:
            fold.append(f"h = qf_mix(h, (unsigned){v});")
        fold.append("h = qf_mix64(h, q0);")
        for v in self.vars["f"]:
            fold.append(f"h = qf_mix(h, qf_fbits({v}));")
        fold.append("h = qf_mix64(h, qf_dbits(d0));")
        if self.has_la:
            fold.append("for (unsigned j = 0u; j < 8u; ++j) h = qf_mix(h, la[j]);")
        if self.has_struct:
            fold.append("h = qf_mix(h, st.a ^ st.b[0] ^ st.b[1]); h = qf_mix(h, qf_fbits(st.f));")
        for s in fold[1:]:
            body.append(ind + s)
        body.append(ind + "out[gid] = h;")
        text = "\n".join(body)
        decls = []
        if "fs[" in text:
            decls.append(ind + f"__shared__ unsigned fs[{nt}];")
        if "sf[" in text:
            decls.append(ind + f"__shared__ float sf[{nt}];")
        if "sb[" in text:
            decls.append(ind + f"__shared__ unsigned char sb[{nt}];")
        if "dyn[" in text:
            decls.append(ind + "QF_DYN_SHARED(dyn);")
        if f"{self.name}_sa[" in text:
            decls.append(ind + f"__shared__ unsigned {self.name}_sa[4];")
        decls.append(ind + "(void)lane4;")
        body[decl_at:decl_at] = decls
        if f"{self.name}_ms[" not in text:
            pre = [p for p in pre if "_ms[" not in p]
        dyn_words = nt
        kernel = (f'extern "C" __global__ void {self.name}(const unsigned* __restrict__ in, const unsigned* emi, '
                  f"unsigned* out, unsigned* gat) {{\n" + "\n".join(body) + "\n}\n")
        source = "".join(pre) + "".join(helpers) + kernel
        # data: the same for every variant of a seed
        dr = Rng(self.seed ^ 0xD1B54A32D192ED03)
        specials = [0, 1, 0x80000000, 0x7FFFFFFF, 0xFFFFFFFF, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000,
                    0x7FC00000, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0x4B800000, 0xCF000000,
                    0x40490FDB, 0x00000003, 0x00000010, 0xFFFFFFF0]
        inp = []
        for _ in range(self.nin):
            k = dr.below(10)
            inp.append(dr.pick(specials) if k < 3 else dr.below(64) if k < 5 else
                       (0x3F800000 + dr.below(1 << 24)) if k < 7 else dr.u32())
        gat_init = {"add": 0, "umin": 0xFFFFFFFF, "umax": 0, "smin": 0x7FFFFFFF, "smax": 0x80000000,
                    "and": 0xFFFFFFFF, "or": 0, "xor": 0, "inc": 0, "cas_add": 0}
        gat = [gat_init[o] ^ (dr.u32() & 0xFF if o in ("add", "xor", "inc", "cas_add") else 0) for o in self.gat_ops]
        return {
            "name": self.name, "seed": self.seed, "variant": self.variant, "source": source,
            "grid": self.grid, "block": self.bdim, "dynamic_shared_bytes": dyn_words * 4,
            "in": inp, "emi": [0] * 8, "out_count": self.nthreads, "gat": gat,
            "features": sorted(self.features),
        }


def generate(seed, variant=0):
    return Gen(seed, variant).generate()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--variant", type=int, default=0, help="0: base kernel; v > 0: EMI variant v")
    ap.add_argument("--meta", action="store_true", help="print the launch metadata as JSON instead")
    a = ap.parse_args()
    k = generate(a.seed, a.variant)
    if a.meta:
        k = dict(k)
        del k["source"]
        json.dump(k, sys.stdout, indent=1)
        print()
    else:
        sys.stdout.write('#include "qf_rt.h"\n' + k["source"])


if __name__ == "__main__":
    main()
