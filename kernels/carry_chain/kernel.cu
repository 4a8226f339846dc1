// carry_chain: extended-precision integer arithmetic with the carry flag
// (inline PTX): 128-bit add (add.cc / addc.cc / addc), 128-bit subtract
// (sub.cc / subc.cc / subc) and a 64x64 -> 128-bit product from 32-bit limbs
// with mul.lo / mul.hi, mad.lo.cc / madc.hi.cc / madc.hi.
struct U128 {
  unsigned w[4];
};
extern "C" __global__ void carry_chain(const U128* A, const U128* B, U128* sum, U128* diff,
                                       U128* prod) {
  unsigned t = threadIdx.x;
  U128 a = A[t], b = B[t], s, d, p;
  asm("add.cc.u32 %0, %4, %8;\n\taddc.cc.u32 %1, %5, %9;\n\t"
      "addc.cc.u32 %2, %6, %10;\n\taddc.u32 %3, %7, %11;"
      : "=r"(s.w[0]), "=r"(s.w[1]), "=r"(s.w[2]), "=r"(s.w[3])
      : "r"(a.w[0]), "r"(a.w[1]), "r"(a.w[2]), "r"(a.w[3]),
        "r"(b.w[0]), "r"(b.w[1]), "r"(b.w[2]), "r"(b.w[3]));
  asm("sub.cc.u32 %0, %4, %8;\n\tsubc.cc.u32 %1, %5, %9;\n\t"
      "subc.cc.u32 %2, %6, %10;\n\tsubc.u32 %3, %7, %11;"
      : "=r"(d.w[0]), "=r"(d.w[1]), "=r"(d.w[2]), "=r"(d.w[3])
      : "r"(a.w[0]), "r"(a.w[1]), "r"(a.w[2]), "r"(a.w[3]),
        "r"(b.w[0]), "r"(b.w[1]), "r"(b.w[2]), "r"(b.w[3]));
  // (a1:a0) * (b1:b0) with a = a.w[0..1], b = b.w[0..1]
  asm("mul.lo.u32 %0, %4, %6;\n\t"
      "mul.hi.u32 %1, %4, %6;\n\t"
      "mul.lo.u32 %2, %5, %7;\n\t"
      "mul.hi.u32 %3, %5, %7;\n\t"
      "mad.lo.cc.u32 %1, %4, %7, %1;\n\t"
      "madc.hi.cc.u32 %2, %4, %7, %2;\n\t"
      "addc.u32 %3, %3, 0;\n\t"
      "mad.lo.cc.u32 %1, %5, %6, %1;\n\t"
      "madc.hi.cc.u32 %2, %5, %6, %2;\n\t"
      "addc.u32 %3, %3, 0;"
      : "=&r"(p.w[0]), "=&r"(p.w[1]), "=&r"(p.w[2]), "=&r"(p.w[3])
      : "r"(a.w[0]), "r"(a.w[1]), "r"(b.w[0]), "r"(b.w[1]));
  sum[t] = s;
  diff[t] = d;
  prod[t] = p;
}
