// Random PTX kernels for the machine's property tests.
#include "ptx_snippets.h"

#include <fmt/format.h>

namespace qgpu::machine::test {
namespace {

// The registers the statements use; the kernel and every helper function declare all of them.
constexpr const char* kRegisters = R"(	.reg .pred 	%p<8>;
	.reg .b16 	%rs<4>;
	.reg .b32 	%r<24>;
	.reg .f32 	%f<8>;
	.reg .f64 	%fd<4>;
	.reg .b64 	%rd<16>;
)";

class Gen {
 public:
  Gen(std::mt19937_64& rng, const SnippetOptions& o) : rng_(rng), o_(o) {}

  std::string kernel() {
    std::string helpers;
    for (int k = 0; k < o_.functions; ++k) helpers += helper(k);
    function_ = -1;
    calls_ = 0;
    std::string body;
    int budget = o_.ops;
    while (budget > 0) body += statement(0, false, budget);
    std::string s = R"(.version 7.0
.target sm_75
.address_size 64

)" + helpers + R"(.visible .entry prop(
	.param .u64 prop_param_0,
	.param .u64 prop_param_1,
	.param .u64 prop_param_2
)
{
	.local .align 4 .b8 	lm[32];
	.shared .align 4 .b8 	sm[64];
)" + std::string(kRegisters) + R"(
	ld.param.u64 	%rd1, [prop_param_0];
	ld.param.u64 	%rd2, [prop_param_1];
	ld.param.u64 	%rd3, [prop_param_2];
	cvta.to.global.u64 	%rd4, %rd1;
	cvta.to.global.u64 	%rd5, %rd2;
	cvta.to.global.u64 	%rd6, %rd3;
	mov.u32 	%r20, %ctaid.x;
	mov.u32 	%r21, %ntid.x;
	mov.u32 	%r22, %tid.x;
	mad.lo.s32 	%r0, %r20, %r21, %r22;
	mul.wide.u32 	%rd7, %r0, 32;
	add.s64 	%rd8, %rd4, %rd7;
	add.s64 	%rd9, %rd5, %rd7;
)";
    for (int i = 1; i <= 8; ++i) s += fmt::format("\tld.global.u32 \t%r{}, [%rd8+{}];\n", i, 4 * (i - 1));
    for (int i = 1; i <= 6; ++i) s += fmt::format("\tld.global.f32 \t%f{}, [%rd9+{}];\n", i, 4 * (i - 1));
    s += "\tsetp.lt.s32 \t%p1, %r1, %r2;\n\tsetp.ne.s32 \t%p2, %r3, 0;\n";
    s += "\tsetp.gt.u32 \t%p3, %r4, %r5;\n\tsetp.eq.s32 \t%p4, %r6, %r0;\n";
    s += "\tcvt.u16.u32 \t%rs1, %r7;\n";
    s += body;
    s += "\tmul.wide.u32 \t%rd10, %r0, 64;\n\tadd.s64 \t%rd11, %rd6, %rd10;\n";
    for (int i = 1; i <= 8; ++i) s += fmt::format("\tst.global.u32 \t[%rd11+{}], %r{};\n", 4 * (i - 1), i);
    for (int i = 1; i <= 6; ++i) s += fmt::format("\tst.global.f32 \t[%rd11+{}], %f{};\n", 32 + 4 * (i - 1), i);
    s += "\tselp.u32 \t%r23, 1, 0, %p1;\n\tselp.u32 \t%r9, 2, 0, %p2;\n\tor.b32 \t%r23, %r23, %r9;\n";
    s += "\tselp.u32 \t%r9, 4, 0, %p3;\n\tor.b32 \t%r23, %r23, %r9;\n";
    s += "\tselp.u32 \t%r9, 8, 0, %p4;\n\tor.b32 \t%r23, %r23, %r9;\n";
    s += "\tst.global.u32 \t[%rd11+56], %r23;\n";
    s += "\tcvt.u32.u16 \t%r23, %rs1;\n\tst.global.u32 \t[%rd11+60], %r23;\n";
    s += "\tret;\n\n}\n";
    return s;
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool chance(int percent) { return pick(100) < percent; }
  std::string r() { return fmt::format("%r{}", 1 + pick(8)); }
  std::string f() { return fmt::format("%f{}", 1 + pick(6)); }
  std::string p() { return fmt::format("%p{}", 1 + pick(4)); }
  std::string rOrImm() {
    if (!chance(30)) return r();
    static const int64_t kImm[] = {0, 1, 2, 3, 7, 31, 32, 100, -1, -5, 65535, 65536, 0x7fffffff, -2147483647 - 1};
    return fmt::format("{}", kImm[pick(static_cast<int>(std::size(kImm)))]);
  }
  std::string fOrImm() {
    if (!chance(25)) return f();
    static const char* kImm[] = {"0f00000000", "0f80000000", "0f3F800000", "0fBF000000", "0f7F800000",
                                 "0f00000001", "0f7FC00000", "0f4B000000", "0f3EAAAAAB", "0f40000000", "0f40400000", "0f00000003"};
    return kImm[pick(static_cast<int>(std::size(kImm)))];
  }
  std::string guard() {
    if (!chance(20)) return "\t";
    return fmt::format("\t@{}{} ", chance(50) ? "!" : "", p());
  }
  std::string fmods(bool rounding, bool sat) {
    static const char* kRounding[] = {".rn", ".rn", ".rz", ".rm", ".rp"};
    std::string m;
    if (rounding) m += kRounding[pick(5)];
    if (chance(25)) m += ".ftz";
    if (sat && chance(15)) m += ".sat";
    return m;
  }

  std::string intOp() {
    const char* it = chance(50) ? "s32" : "u32";
    switch (pick(25)) {
      case 24: {  // 64-bit multiply (micro-code), MIN/MAX: operands built from two 32-bit registers each
        std::string s = fmt::format("cvt.u64.u32 \t%rd12, {};\n\tshl.b64 \t%rd12, %rd12, 32;\n\tcvt.u64.u32 \t%rd13, {};\n"
                                    "\tor.b64 \t%rd12, %rd12, %rd13;\n\tcvt.u64.u32 \t%rd13, {};\n\tshl.b64 \t%rd13, %rd13, 32;\n"
                                    "\tcvt.u64.u32 \t%rd14, {};\n\tor.b64 \t%rd13, %rd13, %rd14;\n",
                                    r(), r(), r(), r());
        static const char* kImm64[] = {"4", "12", "-8", "4294967297", "-1", "9223372036854775807"};
        const char* t64 = chance(50) ? "s64" : "u64";
        switch (pick(6)) {
          case 5: {  // 8-byte MIN/MAX: SETP and SELP (sometimes d = a)
            const bool inPlace = chance(30);
            s += fmt::format("\t{}.{} \t{}, %rd12, {};\n", chance(50) ? "min" : "max", t64, inPlace ? "%rd12" : "%rd14",
                             chance(30) ? kImm64[pick(6)] : "%rd13");
            if (inPlace) s += "\tmov.b64 \t%rd14, %rd12;\n";
            break;
          }
          case 0: s += fmt::format("\tmul.lo.{} \t%rd14, %rd12, {};\n", t64, chance(40) ? kImm64[pick(6)] : "%rd13"); break;
          case 1: s += fmt::format("\tmul.hi.{} \t%rd14, %rd12, {};\n", t64, chance(20) ? kImm64[pick(6)] : "%rd13"); break;
          case 2: s += fmt::format("\tmad.lo.{} \t%rd14, %rd12, %rd13, %rd12;\n", t64); break;
          case 3: s += "\tmul.hi.s64 \t%rd12, %rd12, %rd13;\n\tmov.b64 \t%rd14, %rd12;\n"; break;  // d = a
          default:
            s += fmt::format("\tmad.{}.cc.u64 \t%rd14, %rd12, %rd13, %rd13;\n\tmadc.{}.u64 \t%rd15, %rd13, %rd12, %rd12;\n"
                             "\txor.b64 \t%rd14, %rd14, %rd15;\n", chance(50) ? "lo" : "hi", chance(50) ? "lo" : "hi");
        }
        return s + fmt::format("\tcvt.u32.u64 \t{}, %rd14;\n\tshr.u64 \t%rd14, %rd14, 32;\n\tcvt.u32.u64 \t{}, %rd14;\n", r(), r());
      }
      case 23: {  // a carry chain of two to four links
        std::string s = fmt::format("{}.cc.u32 \t{}, {}, {};\n", chance(50) ? "add" : "sub", r(), r(), rOrImm());
        int links = 1 + pick(3);
        for (int i = 0; i < links; ++i) {
          bool last = i + 1 == links;
          switch (pick(3)) {
            case 0: s += fmt::format("\taddc{}.u32 \t{}, {}, {};\n", last ? "" : ".cc", r(), r(), rOrImm()); break;
            case 1: s += fmt::format("\tsubc{}.u32 \t{}, {}, {};\n", last ? "" : ".cc", r(), r(), rOrImm()); break;
            default: s += fmt::format("\tmadc.{}{}.u32 \t{}, {}, {}, {};\n", chance(50) ? "lo" : "hi", last ? "" : ".cc",
                                      r(), r(), r(), r());
          }
        }
        return s;
      }
      case 22: {
        if (chance(35)) return fmt::format("sad.{} \t{}, {}, {}, {};\n", it, r(), r(), rOrImm(), r());
        if (chance(50)) return fmt::format("mul24.{}.{} \t{}, {}, {};\n", chance(50) ? "lo" : "hi", it, r(), r(), rOrImm());
        return fmt::format("mad24.{}.{} \t{}, {}, {}, {};\n", chance(50) ? "lo" : "hi", it, r(), r(), rOrImm(), r());
      }
      case 21: {
        static const char* kT[] = {"u32", "s32"};
        if (chance(50))
          return fmt::format("dp4a.{}.{} \t{}, {}, {}, {};\n", kT[pick(2)], kT[pick(2)], r(), r(), r(), rOrImm());
        return fmt::format("dp2a.{}.{}.{} \t{}, {}, {}, {};\n", chance(50) ? "lo" : "hi", kT[pick(2)], kT[pick(2)], r(),
                           r(), r(), rOrImm());
      }
      case 20:
        if (chance(30))
          return fmt::format("mul.wide.{} \t%rd12, {}, {};\n\tcvt.{}64.{} \t%rd13, {};\n\t{}.{}64 \t%rd14, %rd12, %rd13;\n"
                             "\tcvt.u32.u64 \t{}, %rd14;\n\tshr.u64 \t%rd14, %rd14, 32;\n\tcvt.u32.u64 \t{}, %rd14;\n",
                             it, r(), r(), it[0] == 's' ? "s" : "u", it, r(), chance(50) ? "div" : "rem",
                             it[0] == 's' ? "s" : "u", r(), r());
        return fmt::format("{}.{} \t{}, {}, {};\n", chance(50) ? "div" : "rem", it, r(), rOrImm(), rOrImm());
      case 16: {
        static const char* kOps[] = {"popc.b32", "clz.b32", "brev.b32", "bfind.u32", "bfind.s32", "bfind.shiftamt.u32"};
        return fmt::format("{} \t{}, {};\n", kOps[pick(6)], r(), r());
      }
      case 17: return fmt::format("bfe.{} \t{}, {}, {}, {};\n", it, r(), r(), chance(50) ? std::to_string(pick(40)) : r(),
                                  chance(50) ? std::to_string(pick(40)) : r());
      case 18: return fmt::format("bfi.b32 \t{}, {}, {}, {}, {};\n", r(), r(), r(), chance(50) ? std::to_string(pick(40)) : r(),
                                  chance(50) ? std::to_string(pick(40)) : r());
      case 19: {
        static const char* kModes[] = {"", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"};
        if (chance(50))
          return fmt::format("shf.{}.{}.b32 \t{}, {}, {}, {};\n", chance(50) ? "l" : "r", chance(50) ? "wrap" : "clamp",
                             r(), r(), r(), chance(50) ? std::to_string(pick(40)) : r());
        return fmt::format("prmt.b32{} \t{}, {}, {}, {};\n", kModes[pick(7)], r(), r(), r(), rOrImm());
      }
      case 0: return fmt::format("add.{} \t{}, {}, {};\n", it, r(), r(), rOrImm());
      case 1: return fmt::format("sub.{} \t{}, {}, {};\n", it, r(), rOrImm(), r());
      case 2: return fmt::format("mul.lo.{} \t{}, {}, {};\n", it, r(), r(), rOrImm());
      case 3: return fmt::format("mul.hi.{} \t{}, {}, {};\n", it, r(), r(), r());
      case 4: return fmt::format("mad.lo.{} \t{}, {}, {}, {};\n", it, r(), r(), rOrImm(), r());
      case 5: {
        static const char* kOps[] = {"and", "or", "xor"};
        return fmt::format("{}.b32 \t{}, {}, {};\n", kOps[pick(3)], r(), r(), rOrImm());
      }
      case 6: return fmt::format("not.b32 \t{}, {};\n", r(), r());
      case 7: return fmt::format("shl.b32 \t{}, {}, {};\n", r(), r(), chance(50) ? std::to_string(pick(40)) : r());
      case 8: return fmt::format("shr.{} \t{}, {}, {};\n", chance(30) ? "b32" : it, r(), r(),
                                 chance(50) ? std::to_string(pick(40)) : r());
      case 9: return fmt::format("{}.{} \t{}, {}, {};\n", chance(50) ? "min" : "max", it, r(), r(), rOrImm());
      case 10: return fmt::format("{}.s32 \t{}, {};\n", chance(50) ? "neg" : "abs", r(), r());
      case 11: return fmt::format("selp.b32 \t{}, {}, {}, {};\n", r(), r(), rOrImm(), p());
      case 12: {
        static const char* kCmp[] = {"eq", "ne", "lt", "le", "gt", "ge"};
        static const char* kUCmp[] = {"lo", "ls", "hi", "hs"};
        bool u = chance(30);
        return fmt::format("setp.{}.{} \t{}, {}, {};\n", u ? kUCmp[pick(4)] : kCmp[pick(6)],
                           u ? "u32" : it, p(), r(), rOrImm());
      }
      case 13: return fmt::format("cvt.u16.u32 \t%rs1, {};\n", r());
      case 14: return fmt::format("cvt.{}.{} \t{}, %rs1;\n", it, chance(50) ? "s16" : "u16", r());
      default: return fmt::format("mul.wide.{} \t%rd12, {}, {};\n", it, r(), r()) +
                      fmt::format("\tshr.{} \t%rd13, %rd12, {};\n", chance(50) ? "s64" : "u64", pick(48)) +
                      fmt::format("\tcvt.u32.u64 \t{}, %rd13;\n", r());
    }
  }

  std::string floatOp() {
    switch (pick(14)) {
      case 13: {  // float -> float conversions: f16 round trips, rounding to integral, .sat/.ftz
        static const char* kR[] = {"rn", "rz", "rm", "rp"};
        static const char* kI[] = {"rni", "rzi", "rmi", "rpi"};
        switch (pick(3)) {
          case 0:
            return fmt::format("cvt.{}{}{}.f16.f32 \t%rs2, {};\n\tcvt.f32.f16 \t{}, %rs2;\n", kR[pick(4)],
                               chance(20) ? ".ftz" : "", chance(20) ? ".sat" : "", f(), f());
          case 1:
            return fmt::format("cvt.{}{}{}.f32.f32 \t{}, {};\n", kI[pick(4)], chance(20) ? ".ftz" : "",
                               chance(20) ? ".sat" : "", f(), f());
          default:
            return fmt::format("cvt{}{}.f32.f32 \t{}, {};\n", chance(50) ? ".ftz" : "", chance(50) ? ".sat" : "", f(), f());
        }
      }
      case 12: {  // f64 min/max/abs/neg on widened f32 values, split into two 32-bit registers
        std::string s = fmt::format("cvt{}.f64.f32 \t%fd1, {};\n\tcvt.f64.f32 \t%fd2, {};\n", chance(20) ? ".ftz" : "", f(), f());
        static const char* kR[] = {"", ".rn", ".rz", ".rm", ".rp"};
        static const char* kI[] = {"rni", "rzi", "rmi", "rpi"};
        switch (pick(9)) {
          case 8: {
            static const char* kD[] = {".rn", ".rz", ".rm", ".rp"};
            switch (pick(4)) {
              case 3:
                s += fmt::format("\tfma{}.f64 \t%fd3, %fd1, {}, {};\n", kD[pick(4)], chance(20) ? "0d3FF8000000000000" : "%fd2",
                                 chance(30) ? "0dBFF0000000000000" : "%fd1");
                break;
              case 0: s += fmt::format("\tdiv{}.f64 \t%fd3, %fd1, {};\n", kD[pick(4)], chance(20) ? "0d4008000000000000" : "%fd2"); break;
              case 1: s += fmt::format("\trcp{}.f64 \t%fd3, %fd1;\n", kD[pick(4)]); break;
              default: s += fmt::format("\tsqrt{}.f64 \t%fd3, %fd1;\n", kD[pick(4)]); break;
            }
            break;
          }
          case 5:
            s += fmt::format("\t{}{}.f64 \t%fd3, %fd1, {};\n", chance(50) ? "add" : "sub", kR[pick(5)],
                             chance(20) ? "0d3CB0000000000000" : "%fd2");
            break;
          case 6:  // f64 -> f32 rounding of a sum that is rarely exact in f32
            return s + fmt::format("\tadd.f64 \t%fd3, %fd1, %fd2;\n\tcvt{}{}{}.f32.f64 \t{}, %fd3;\n", kR[1 + pick(4)],
                                   chance(20) ? ".ftz" : "", chance(20) ? ".sat" : "", f());
          case 7:  // integer -> f64, including 64-bit values that need rounding
            return fmt::format("mul.wide.{} \t%rd12, {}, {};\n\tshl.b64 \t%rd12, %rd12, {};\n\tcvt{}.f64.{} \t%fd3, %rd12;\n"
                               "\tmov.b64 \t%rd14, %fd3;\n\tcvt.u32.u64 \t{}, %rd14;\n\tshr.u64 \t%rd14, %rd14, 32;\n"
                               "\tcvt.u32.u64 \t{}, %rd14;\n",
                               chance(50) ? "s32" : "u32", r(), r(), pick(8), kR[1 + pick(4)], chance(50) ? "s64" : "u64", r(), r());
          case 3:
            s += fmt::format("\tmul{}.f64 \t%fd3, %fd1, {};\n", kR[pick(5)], chance(30) ? "0d4008000000000000" : "%fd2");
            break;
          case 4:  // f64 -> integer: the product of two f32 values, converted
            return s + fmt::format("\tmul.f64 \t%fd3, %fd1, %fd2;\n\tcvt.{}.{}.f64 \t{}, %fd3;\n", kI[pick(4)],
                                   chance(50) ? "s32" : "u32", r());
          case 0: s += fmt::format("\t{}.f64 \t%fd3, %fd1, %fd2;\n", chance(50) ? "min" : "max"); break;
          case 1: s += fmt::format("\t{}.f64 \t%fd3, %fd1;\n", chance(50) ? "neg" : "abs"); break;
          default: s += "\tmax.f64 \t%fd3, %fd1, 0dFFF8000000000000;\n"; break;  // a NaN operand
        }
        return s + fmt::format("\tmov.b64 \t%rd14, %fd3;\n\tcvt.u32.u64 \t{}, %rd14;\n\tshr.u64 \t%rd14, %rd14, 32;\n"
                               "\tcvt.u32.u64 \t{}, %rd14;\n", r(), r());
      }
      case 11: {
        static const char* kR[] = {"rn", "rz", "rm", "rp"};
        std::string m = fmt::format(".{}{}", kR[pick(4)], chance(25) ? ".ftz" : "");
        switch (pick(3)) {
          case 0: return fmt::format("div{}.f32 \t{}, {}, {};\n", m, f(), f(), fOrImm());
          case 1: return fmt::format("rcp{}.f32 \t{}, {};\n", m, f(), f());
          default: return fmt::format("sqrt{}.f32 \t{}, {};\n", m, f(), f());
        }
      }
      case 0: return fmt::format("{}{}.f32 \t{}, {}, {};\n", chance(50) ? "add" : "sub", fmods(chance(50), true), f(), f(), fOrImm());
      case 1: return fmt::format("mul{}.f32 \t{}, {}, {};\n", fmods(chance(50), true), f(), f(), fOrImm());
      case 2: return fmt::format("fma{}.f32 \t{}, {}, {}, {};\n", fmods(true, true), f(), f(), fOrImm(), f());
      case 3: return fmt::format("{}{}.f32 \t{}, {}, {};\n", chance(50) ? "min" : "max", fmods(false, false), f(), f(), fOrImm());
      case 4: return fmt::format("{}{}.f32 \t{}, {};\n", chance(50) ? "neg" : "abs", fmods(false, false), f(), f());
      case 5: {
        static const char* kCmp[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
        return fmt::format("setp.{}{}.f32 \t{}, {}, {};\n", kCmp[pick(14)], chance(20) ? ".ftz" : "", p(), f(), fOrImm());
      }
      case 6: {
        static const char* kR[] = {"rn", "rz", "rm", "rp"};
        if (chance(25))
          return fmt::format("mul.wide.s32 \t%rd14, {}, {};\n\tcvt.{}.f32.{} \t{}, %rd14;\n", r(), r(), kR[pick(4)],
                             chance(50) ? "s64" : "u64", f());
        return fmt::format("cvt.{}.f32.{} \t{}, {};\n", kR[pick(4)], chance(50) ? "s32" : "u32", f(), r());
      }
      case 7: {
        static const char* kR[] = {"rni", "rzi", "rmi", "rpi"};
        return fmt::format("cvt.{}{}.{}.f32 \t{}, {};\n", kR[pick(4)], chance(20) ? ".ftz" : "",
                           chance(50) ? "s32" : "u32", r(), f());
      }
      case 8: return fmt::format("mov.b32 \t{}, {};\n", r(), f());
      case 9: return fmt::format("mov.b32 \t{}, {};\n", f(), r());
      default: return fmt::format("selp.f32 \t{}, {}, {}, {};\n", f(), f(), fOrImm(), p());
    }
  }

  std::string predOp() {
    switch (pick(3)) {
      case 0: {
        static const char* kOps[] = {"and", "or", "xor"};
        return fmt::format("{}.pred \t{}, {}, {};\n", kOps[pick(3)], p(), p(), p());
      }
      case 1: return fmt::format("not.pred \t{}, {};\n", p(), p());
      default: return fmt::format("mov.pred \t{}, {};\n", p(), p());
    }
  }

  // Only where every lane of the warp is converged.
  std::string warpOp() {
    switch (pick(6)) {
      case 5: {  // atomics on shared memory (all threads hit word tid & 1) and on the out buffer
        static const char* kOps[] = {"add.u32", "and.b32", "or.b32", "xor.b32", "exch.b32", "inc.u32", "dec.u32",
                                     "min.s32", "max.u32", "min.u32", "max.s32"};
        std::string s = "\tmov.u32 \t%r12, sm;\n\tand.b32 \t%r13, %r22, 1;\n\tshl.b32 \t%r13, %r13, 2;\n"
                        "\tadd.s32 \t%r14, %r12, %r13;\n";
        if (chance(30))
          s += fmt::format("\tatom.shared.cas.b32 \t{}, [%r14], {}, {};\n", r(), r(), r());
        else if (chance(20))
          s += fmt::format("\tred.shared.{} \t[%r14], {};\n", kOps[pick(11)], r());
        else
          s += fmt::format("\tatom.shared.{} \t{}, [%r14], {};\n", kOps[pick(11)], r(), rOrImm());
        s += fmt::format("\tbar.sync \t0;\n\tld.shared.u32 \t{}, [%r14];\n\tbar.sync \t0;\n", r());
        s += fmt::format("\tatom.global.add.u32 \t{}, [%rd6], {};\n", r(), r());
        return s;
      }
      case 0: {
        static const char* kModes[] = {"bfly", "down", "up", "idx"};
        int m = pick(4);
        return fmt::format("\tshfl.sync.{}.b32 \t{}, {}, {}, {}, 15;\n", kModes[m], r(), r(), pick(4),
                           m == 2 ? 7168 : 7199);
      }
      case 1: return fmt::format("\tvote.sync.ballot.b32 \t{}, {}{}, 15;\n", r(), chance(30) ? "!" : "", p());
      case 2: {
        static const char* kModes[] = {"any", "all", "uni"};
        return fmt::format("\tvote.sync.{}.pred \t{}, {}, 15;\n", kModes[pick(3)], p(), p());
      }
      case 3:  // exchange through shared memory with the neighbour thread
        return fmt::format(
            "\tmov.u32 \t%r12, sm;\n\tshl.b32 \t%r13, %r22, 2;\n\tadd.s32 \t%r14, %r12, %r13;\n"
            "\tst.shared.u32 \t[%r14], {};\n\tbar.sync \t0;\n\txor.b32 \t%r15, %r13, 4;\n"
            "\tadd.s32 \t%r16, %r12, %r15;\n\tld.shared.u32 \t{}, [%r16];\n\tbar.sync \t0;\n",
            r(), r());
      default:  // local memory round trip
        return fmt::format("\tst.local.u32 \t[lm+{}], {};\n\tld.local.u32 \t{}, [lm+{}];\n", 4 * pick(8), r(), r(),
                           4 * pick(8));
    }
  }

  // h_k(a, b): the kernel's register set, every register defined from a and b first (the
  // oracle's fresh frame would read 0 from an unwritten one, the inlined copy a stale value).
  std::string helper(int k) {
    function_ = k;
    calls_ = 0;
    std::string body;
    int budget = 2 + pick(6);
    while (budget > 0) body += statement(0, false, budget);
    std::string s = fmt::format(R"(.func (.param .b32 func_retval0) h{0}(.param .b32 h{0}_param_0, .param .b32 h{0}_param_1)
{{
{1}
	ld.param.u32 	%r1, [h{0}_param_0];
	ld.param.u32 	%r2, [h{0}_param_1];
	mov.u32 	%r0, %tid.x;
	xor.b32 	%r3, %r1, 1540483477;
	add.s32 	%r4, %r2, 7;
	mul.lo.s32 	%r5, %r1, %r2;
	sub.s32 	%r6, %r2, %r1;
	shl.b32 	%r7, %r1, 3;
	or.b32 	%r8, %r2, %r0;
	mov.b32 	%f1, %r1;
	mov.b32 	%f2, %r2;
	cvt.rn.f32.s32 	%f3, %r3;
	cvt.rn.f32.u32 	%f4, %r4;
	mov.b32 	%f5, %r5;
	cvt.rz.f32.s32 	%f6, %r6;
	setp.lt.s32 	%p1, %r1, %r2;
	setp.ne.s32 	%p2, %r3, 0;
	setp.gt.u32 	%p3, %r4, %r5;
	setp.eq.s32 	%p4, %r6, %r0;
	cvt.u16.u32 	%rs1, %r7;
)", k, kRegisters);
    s += body;
    s += "\txor.b32 \t%r9, %r1, %r2;\n";
    for (int i = 3; i <= 8; ++i) s += fmt::format("\tmad.lo.s32 \t%r9, %r9, 31, %r{};\n", i);
    for (int i = 1; i <= 6; ++i) s += fmt::format("\tmov.b32 \t%r11, %f{};\n\txor.b32 \t%r9, %r9, %r11;\n", i);
    s += "\tselp.u32 \t%r11, 1, 0, %p1;\n\tadd.s32 \t%r9, %r9, %r11;\n";
    s += "\tcvt.u32.u16 \t%r11, %rs1;\n\tadd.s32 \t%r9, %r9, %r11;\n";
    s += "\tst.param.b32 \t[func_retval0+0], %r9;\n\tret;\n}\n\n";
    return s;
  }

  // A call of an earlier helper: from the kernel, any; from h_k, h_0..h_{k-1}.
  std::string call() {
    ++calls_;
    int callee = pick(function_ < 0 ? o_.functions : function_);
    return fmt::format("\t{{\n\t.param .b32 \tparam0;\n\tst.param.b32 \t[param0+0], {};\n\t.param .b32 \tparam1;\n"
                       "\tst.param.b32 \t[param1+0], {};\n\t.param .b32 \tretval0;\n{}call.uni (retval0), h{}, (param0, param1);\n"
                       "\tld.param.b32 \t{}, [retval0+0];\n\t}}\n",
                       r(), rOrImm(), guard(), callee, r());
  }

  // In a helper: a guarded early return, which stores the return value first or not.
  std::string earlyReturn() {
    std::string s;
    if (chance(50)) s += fmt::format("\tst.param.b32 \t[func_retval0+0], {};\n", r());
    return s + fmt::format("\t@{}{} ret;\n", chance(50) ? "!" : "", p());
  }

  std::string statement(int depth, bool inLoop, int& budget) {
    --budget;
    int kind = pick(100);
    bool converged = depth == 0 && function_ < 0;
    const int callable = function_ < 0 ? o_.functions : function_;
    if (callable > 0 && calls_ < (function_ < 0 ? 3 : 1) && kind >= 56 && kind < 66) return call();
    if (function_ >= 0 && kind >= 50 && kind < 56) return earlyReturn();
    if (o_.branchy && depth < 3 && kind < 18) return ifElse(depth, inLoop, budget);
    if (o_.branchy && depth < 3 && !inLoop && kind < 26) return loop(depth, budget);
    if (converged && kind >= 90) return warpOp();
    if (kind >= 75) return guard() + floatOp();
    if (kind >= 68) return guard() + predOp();
    return guard() + intOp();
  }

  std::string block(int depth, bool inLoop, int& budget) {
    std::string s;
    int n = 1 + pick(4);
    for (int i = 0; i < n && budget > 0; ++i) s += statement(depth, inLoop, budget);
    return s;
  }

  std::string ifElse(int depth, bool inLoop, int& budget) {
    int id = label_++;
    std::string s = fmt::format("\tsetp.{}.s32 \t%p{}, {}, {};\n", chance(50) ? "lt" : "ne", 5 + pick(2), r(), rOrImm());
    std::string pr = s.substr(s.find("%p"), 3);
    s += fmt::format("\t@{} bra \t$L__else{};\n", pr, id);
    s += block(depth + 1, inLoop, budget);
    if (chance(60)) {
      s += fmt::format("\tbra.uni \t$L__end{};\n$L__else{}:\n", id, id);
      s += block(depth + 1, inLoop, budget);
      s += fmt::format("$L__end{}:\n", id);
    } else {
      s += fmt::format("$L__else{}:\n", id);
    }
    return s;
  }

  std::string loop(int depth, int& budget) {
    int id = label_++;
    std::string s = fmt::format("\tand.b32 \t%r10, {}, 3;\n\tadd.s32 \t%r10, %r10, 1;\n$L__loop{}:\n", r(), id);
    s += block(depth + 1, true, budget);
    s += fmt::format("\tsub.s32 \t%r10, %r10, 1;\n\tsetp.ne.s32 \t%p7, %r10, 0;\n\t@%p7 bra \t$L__loop{};\n", id);
    return s;
  }

  std::mt19937_64& rng_;
  SnippetOptions o_;
  int label_ = 0;
  int function_ = -1;  // helper being generated, -1: the kernel
  int calls_ = 0;      // calls in the body being generated
};

}  // namespace

std::string randomKernel(std::mt19937_64& rng, const SnippetOptions& options) {
  return Gen(rng, options).kernel();
}

}  // namespace qgpu::machine::test
