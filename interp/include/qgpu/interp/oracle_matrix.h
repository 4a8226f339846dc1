// The instruction forms the numeric oracle tests (interp/test/numerics_oracle_test.cpp)
// compare against independent references: LLVM APFloat for floating point,
// 128-bit integer arithmetic for integers. One source of truth: the oracle
// test iterates over exactly these lists, and `qgpu coverage` reads them to
// say which opcode/type/modifier combinations the oracle covers.
#pragma once

#include <string>
#include <vector>

namespace qgpu::oracle {

/// Opcode spellings (without operands) such as "add.rz.ftz.sat.f32".
inline std::vector<std::string> floatCases() {
  std::vector<std::string> out;
  const char* modes[] = {"rn", "rz", "rm", "rp"};
  for (const char* op : {"add", "sub", "mul", "fma", "mad"})
    for (const char* m : modes)
      for (const char* ftz : {"", ".ftz"})
        for (const char* sat : {"", ".sat"}) out.push_back(std::string(op) + "." + m + ftz + sat + ".f32");
  // Un-moded add/sub/mul: the interpreter rounds them to nearest (what
  // hardware does unless ptxas contracts them; see qgpu lint).
  for (const char* op : {"add", "sub", "mul"}) {
    for (const char* ftz : {"", ".ftz"})
      for (const char* sat : {"", ".sat"}) out.push_back(std::string(op) + ftz + sat + ".f32");
    out.push_back(std::string(op) + ".f64");
  }
  for (const char* op : {"div", "rcp", "sqrt"})
    for (const char* m : modes)
      for (const char* ftz : {"", ".ftz"}) out.push_back(std::string(op) + "." + m + ftz + ".f32");
  for (const char* op : {"add", "sub", "mul", "fma", "mad", "div", "rcp", "sqrt"})
    for (const char* m : modes) out.push_back(std::string(op) + "." + m + ".f64");
  for (const char* op : {"add", "sub", "mul", "fma"})
    for (const char* t : {".f16", ".f16x2"}) {
      for (const char* ftz : {"", ".ftz"})
        for (const char* sat : {"", ".sat"}) out.push_back(std::string(op) + ".rn" + ftz + sat + t);
      if (std::string(op) != "fma") out.push_back(std::string(op) + t);  // no rounding modifier: .rn
    }
  for (const char* t : {".f16", ".f16x2"})
    for (const char* ftz : {"", ".ftz"}) out.push_back(std::string("fma.rn") + ftz + ".relu" + t);
  for (const char* t : {".bf16", ".bf16x2"}) {
    for (const char* op : {"add", "sub", "mul"}) {
      out.push_back(std::string(op) + ".rn" + t);
      out.push_back(std::string(op) + t);
    }
    out.push_back(std::string("fma.rn") + t);
    out.push_back(std::string("fma.rn.relu") + t);
  }
  // Half-precision min/max (every .ftz/.NaN/.xorsign.abs combination ptxas accepts) and
  // neg/abs (exhaustive over the 2^16 patterns of each element).
  for (const char* op : {"min", "max"})
    for (const char* t : {".f16", ".f16x2", ".bf16", ".bf16x2"})
      for (const char* ftz : {"", ".ftz"})
        for (const char* nan : {"", ".NaN"})
          for (const char* xs : {"", ".xorsign.abs"}) {
            if (*ftz && t[1] == 'b') continue;  // bf16 has no .ftz
            out.push_back(std::string(op) + ftz + nan + xs + t);
          }
  for (const char* op : {"neg", "abs"})
    for (const char* t : {".f16", ".f16x2", ".bf16", ".bf16x2"}) {
      out.push_back(std::string(op) + t);
      if (t[1] == 'f') out.push_back(std::string(op) + ".ftz" + t);
    }
  for (const char* op : {"min", "max"}) {
    for (const char* ftz : {"", ".ftz"})
      for (const char* nan : {"", ".NaN"})
        for (const char* xs : {"", ".xorsign.abs"}) out.push_back(std::string(op) + ftz + nan + xs + ".f32");
    out.push_back(std::string(op) + ".f64");
  }
  for (const char* op : {"abs", "neg"}) {
    out.push_back(std::string(op) + ".f32");
    out.push_back(std::string(op) + ".ftz.f32");
    out.push_back(std::string(op) + ".f64");
  }
  out.push_back("copysign.f32");
  out.push_back("copysign.f64");
  for (const char* c : {"finite", "infinite", "number", "notanumber", "normal", "subnormal"})
    for (const char* t : {".f32", ".f64"}) out.push_back(std::string("testp.") + c + t);
  for (const char* c : {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"})
    for (const char* t : {".f16", ".ftz.f16", ".f16x2", ".ftz.f16x2", ".bf16", ".bf16x2"})
      out.push_back(std::string("setp.") + c + t);
  // set with a half-precision source or destination: every destination type ptxas accepts
  // for each source, with .ftz where it is allowed (f16, f16x2 and f32 sources, no bf16 result).
  for (const char* c : {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}) {
    const std::string s = std::string("set.") + c;
    for (const char* d : {"u16", "s16", "u32", "s32", "f16", "bf16"})
      for (const char* ftz : {"", ".ftz"}) {
        if (*ftz && d[0] == 'b') continue;
        out.push_back(s + ftz + "." + d + ".f16");
      }
    for (const char* d : {"u16", "s16", "u32", "s32", "bf16"}) out.push_back(s + "." + d + ".bf16");
    for (const char* d : {"u32", "s32", "f16x2"})
      for (const char* ftz : {"", ".ftz"}) out.push_back(s + ftz + "." + d + ".f16x2");
    for (const char* d : {"u32", "s32", "bf16x2"}) out.push_back(s + "." + d + ".bf16x2");
    for (const char* src : {".f32", ".f64"}) {
      out.push_back(s + ".f16" + src);
      out.push_back(s + ".bf16" + src);
      if (src[2] == '3') out.push_back(s + ".ftz.f16" + src);
    }
  }
  for (const char* c : {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}) {
    out.push_back(std::string("setp.") + c + ".f32");
    out.push_back(std::string("setp.") + c + ".ftz.f32");
    out.push_back(std::string("setp.") + c + ".f64");
  }
  return out;
}

inline const std::vector<std::string>& intTypeNames() {
  static const std::vector<std::string> t = {"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"};
  return t;
}

/// cvt forms: "cvt[.rnd][.ftz][.sat].DST.SRC".
inline std::vector<std::string> cvtCases() {
  std::vector<std::string> out;
  const std::vector<std::string> floats = {"f16", "f32", "f64"};
  auto width = [](const std::string& f) { return f == "f16" ? 16 : f == "f32" ? 32 : 64; };
  for (const auto& d : intTypeNames())
    for (const auto& s : intTypeNames()) {
      out.push_back("cvt." + d + "." + s);
      out.push_back("cvt.sat." + d + "." + s);
    }
  for (const auto& d : floats)
    for (const auto& s : intTypeNames())
      for (const char* m : {"rn", "rz", "rm", "rp"}) out.push_back(std::string("cvt.") + m + "." + d + "." + s);
  for (const auto& s : floats)
    for (const auto& d : intTypeNames())
      for (const char* m : {"rni", "rzi", "rmi", "rpi"}) {
        out.push_back(std::string("cvt.") + m + "." + d + "." + s);
        if (s == "f32") out.push_back(std::string("cvt.") + m + ".ftz." + d + "." + s);
      }
  for (const auto& d : floats)
    for (const auto& s : floats) {
      std::vector<std::string> rnds;
      if (width(d) < width(s)) rnds = {"rn", "rz", "rm", "rp"};
      else if (width(d) > width(s)) rnds = {""};
      else rnds = {"", "rni", "rzi", "rmi", "rpi"};
      bool f32 = d == "f32" || s == "f32";
      for (const auto& r : rnds)
        for (const char* ftz : {"", ".ftz"})
          for (const char* sat : {"", ".sat"}) {
            if (*ftz && !f32) continue;
            if (r.empty() && d == s && !*ftz && !*sat) continue;  // plain cvt.fX.fX is a move
            out.push_back("cvt" + (r.empty() ? "" : "." + r) + ftz + sat + "." + d + "." + s);
          }
    }
  // bf16 (sm_80: with f32; sm_90: the others), as ptxas 13 accepts them: no .sat, no 8-bit
  // integers; f16 <-> bf16 and bf16 -> f32/f64 with or without a rounding modifier.
  const char* frnd[] = {"rn", "rz", "rm", "rp"};
  for (const char* t : {"u16", "s16", "u32", "s32", "u64", "s64"}) {
    for (const char* m : frnd) out.push_back(std::string("cvt.") + m + ".bf16." + t);
    for (const char* m : {"rni", "rzi", "rmi", "rpi"}) out.push_back(std::string("cvt.") + m + "." + t + ".bf16");
  }
  for (const char* m : frnd) {
    out.push_back(std::string("cvt.") + m + ".bf16.f16");
    out.push_back(std::string("cvt.") + m + ".f16.bf16");
    out.push_back(std::string("cvt.") + m + ".bf16.f32");
    out.push_back(std::string("cvt.") + m + ".ftz.bf16.f32");
    out.push_back(std::string("cvt.") + m + ".bf16.f64");
  }
  for (const char* f : {"cvt.bf16.f16", "cvt.f16.bf16", "cvt.f32.bf16", "cvt.ftz.f32.bf16", "cvt.rn.f32.bf16",
                        "cvt.f64.bf16", "cvt.rn.f64.bf16", "cvt.rni.bf16.bf16", "cvt.rzi.bf16.bf16",
                        "cvt.rmi.bf16.bf16", "cvt.rpi.bf16.bf16"})
    out.push_back(f);
  // .relu / .satfinite (f16 and bf16 from f32, .rn or .rz).
  for (const char* m : {"rn", "rz"})
    for (const char* mod : {".relu", ".satfinite", ".relu.satfinite"})
      for (const char* d : {".f16", ".bf16"}) out.push_back(std::string("cvt.") + m + mod + d + ".f32");
  return out;
}

/// The packing cvt forms (interp/test/numerics_oracle_test.cpp, PackedCvtOracle).
inline std::vector<std::string> packedCvtCases() {
  std::vector<std::string> out;
  for (const char* d : {"f16x2", "bf16x2"})
    for (const char* m : {"rn", "rz"})
      for (const char* mod : {"", ".relu", ".satfinite", ".relu.satfinite"})
        out.push_back(std::string("cvt.") + m + mod + "." + d + ".f32");
  for (const char* f8 : {"e4m3x2", "e5m2x2"}) {
    for (const char* src : {"f32", "f16x2"})
      for (const char* relu : {"", ".relu"}) out.push_back(std::string("cvt.rn.satfinite") + relu + "." + f8 + "." + src);
    for (const char* relu : {"", ".relu"}) out.push_back(std::string("cvt.rn") + relu + ".f16x2." + f8);
  }
  for (const char* t : {"u16", "s16"}) out.push_back(std::string("cvt.pack.sat.") + t + ".s32");
  for (const char* f : {"cvt.rna.tf32.f32", "cvt.rna.satfinite.tf32.f32", "cvt.rn.tf32.f32", "cvt.rz.tf32.f32",
                        "cvt.rn.relu.tf32.f32", "cvt.rz.relu.tf32.f32"})
    out.push_back(f);
  for (const char* t : {"u8", "s8", "u4", "s4", "u2", "s2"}) out.push_back(std::string("cvt.pack.sat.") + t + ".s32.b32");
  return out;
}

/// Integer forms checked against 128-bit reference arithmetic.
inline std::vector<std::string> integerCases() {
  std::vector<std::string> out;
  for (const char* t : {"u16", "s16", "u32", "s32", "u64", "s64"}) {
    std::string ts = t;
    for (const char* op : {"add", "sub", "mul.lo", "mul.hi", "mad.lo", "mad.hi", "div", "rem", "min", "max", "sad"})
      out.push_back(std::string(op) + "." + ts);
    if (ts != "u64" && ts != "s64") out.push_back("mul.wide." + ts);
    if (ts == "s16" || ts == "s32" || ts == "s64") out.push_back("abs." + ts), out.push_back("neg." + ts);
  }
  for (const char* t : {"u16", "s16", "u32", "s32", "u64", "s64"})
    for (const std::string c : {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"}) {
      const bool unsignedComparison = c == "lo" || c == "ls" || c == "hi" || c == "hs";  // ptxas: unsigned types only
      if (!unsignedComparison || t[0] == 'u') out.push_back("setp." + c + "." + t);
    }
  for (const char* t : {"b16", "b32", "b64"})
    for (const char* c : {"eq", "ne"}) out.push_back(std::string("setp.") + c + "." + t);
  for (const char* t : {"u16", "s16", "u32", "s32"}) out.push_back(std::string("mad.wide.") + t);
  for (const char* t : {"b16", "b32", "b64"})
    for (const char* op : {"and", "or", "xor", "not", "cnot"}) out.push_back(std::string(op) + "." + t);
  for (const char* t : {"u16", "s16", "u32", "u64"}) out.push_back(std::string("shr.") + t);
  out.push_back("dp4a.u32.s32");
  out.push_back("dp4a.s32.u32");
  out.push_back("dp2a.lo.u32.s32");
  out.push_back("dp2a.hi.s32.u32");
  out.push_back("add.sat.s32");
  out.push_back("sub.sat.s32");
  out.push_back("mad.hi.sat.s32");
  for (const char* t : {"u32", "s32"}) {
    std::string ts = t;
    out.push_back("mul24.lo." + ts);
    out.push_back("mul24.hi." + ts);
    out.push_back("mad24.lo." + ts);
    out.push_back("mad24.hi." + ts);
    out.push_back("bfe." + ts);
    out.push_back("bfind." + ts);
    out.push_back("bfind.shiftamt." + ts);
    out.push_back("dp4a." + ts + "." + ts);
    out.push_back("dp2a.lo." + ts + "." + ts);
    out.push_back("dp2a.hi." + ts + "." + ts);
  }
  for (const char* t : {"u64", "s64"}) {
    std::string ts = t;
    out.push_back("bfe." + ts);
    out.push_back("bfind." + ts);
    out.push_back("bfind.shiftamt." + ts);
  }
  out.push_back("bfi.b32");
  out.push_back("bfi.b64");
  for (const char* m : {"", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"}) out.push_back(std::string("prmt.b32") + m);
  for (const char* d : {"l", "r"})
    for (const char* m : {"clamp", "wrap"}) out.push_back(std::string("shf.") + d + "." + m + ".b32");
  out.push_back("lop3.b32");
  for (const char* m : {"clamp", "wrap"}) {
    out.push_back(std::string("bmsk.") + m + ".b32");
    out.push_back(std::string("szext.") + m + ".u32");
    out.push_back(std::string("szext.") + m + ".s32");
  }
  for (const char* t : {"u32", "s32", "u64", "s64"}) {
    std::string ts = t;
    out.push_back("add.cc." + ts + "+addc.cc." + ts + "+addc." + ts);
    out.push_back("sub.cc." + ts + "+subc.cc." + ts + "+subc." + ts);
  }
  for (const char* t : {"b16", "b32", "b64"}) {
    std::string ts = t;
    out.push_back("shl." + ts);
    out.push_back("shr." + ts);
  }
  out.push_back("shr.s32");
  out.push_back("shr.s64");
  for (const char* t : {"b32", "b64"}) {
    std::string ts = t;
    out.push_back("popc." + ts);
    out.push_back("clz." + ts);
    out.push_back("brev." + ts);
  }
  return out;
}

/// The video instructions (interp/test/video_oracle_test.cpp): every form of
/// ptx_isa.def's video QGPU_PTX_FORMS rows, grouped by mnemonic (the oracle runs >= 10^6
/// inputs per mnemonic, spread over its forms and operand selectors).
inline std::vector<std::string> videoMnemonics() {
  return {"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset",
          "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2",
          "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4"};
}
inline std::vector<std::string> videoCases(const std::string& mnemonic) {
  std::vector<std::string> out;
  const std::vector<std::string> t = {"u32", "s32"}, cmp = {"eq", "ne", "lt", "le", "gt", "ge"};
  const std::string& m = mnemonic;
  const bool simd = m.back() == '2' || m.back() == '4';
  if (m == "vset" || m == "vset2" || m == "vset4") {
    for (const auto& a : t)
      for (const auto& b : t)
        for (const auto& c : cmp)
          for (const std::string sec : {"", ".add", ".min", ".max"})
            if (!simd || sec.empty() || sec == ".add") out.push_back(m + "." + a + "." + b + "." + c + sec);
  } else if (m == "vmad") {
    for (const auto& d : t)
      for (const auto& a : t)
        for (const auto& b : t)
          for (const std::string po : {"", ".po"})
            for (const std::string sat : {"", ".sat"})
              for (const std::string sc : {"", ".shr7", ".shr15"}) out.push_back(m + "." + d + "." + a + "." + b + po + sat + sc);
  } else if (m == "vshl" || m == "vshr") {
    for (const auto& d : t)
      for (const auto& a : t)
        for (const std::string sat : {"", ".sat"})
          for (const std::string mode : {".clamp", ".wrap"})
            for (const std::string sec : {"", ".add", ".min", ".max"}) out.push_back(m + "." + d + "." + a + ".u32" + sat + mode + sec);
  } else {
    for (const auto& d : t)
      for (const auto& a : t)
        for (const auto& b : t)
          for (const std::string sat : {"", ".sat"})
            for (const std::string sec : {"", ".add", ".min", ".max"}) {
              if (simd && (sec == ".min" || sec == ".max" || (sec == ".add" && !sat.empty()))) continue;
              out.push_back(m + "." + d + "." + a + "." + b + sat + sec);
            }
  }
  return out;
}
inline std::vector<std::string> videoCases() {
  std::vector<std::string> out;
  for (const auto& m : videoMnemonics())
    for (const auto& f : videoCases(m)) out.push_back(f);
  return out;
}

/// Warp reductions and matches (interp/test/warp_oracle_test.cpp): every lane of 32 against
/// a reference over random membermask partitions of the warp.
inline std::vector<std::string> warpCases() {
  std::vector<std::string> out;
  for (const char* op : {"add", "min", "max"})
    for (const char* t : {"u32", "s32"}) out.push_back(std::string("redux.sync.") + op + "." + t);
  for (const char* op : {"and", "or", "xor"}) out.push_back(std::string("redux.sync.") + op + ".b32");
  for (const char* m : {"any", "all"})
    for (const char* t : {"b32", "b64"}) out.push_back(std::string("match.") + m + ".sync." + t);
  return out;
}

/// mma.sync (interp/test/mma_oracle_test.cpp): random fragments of a 32-lane warp against
/// the ISA's fragment layouts and the accumulation model (docs/semantics.md).
inline std::vector<std::string> mmaCases() {
  std::vector<std::string> out;
  for (const char* shape : {"m16n8k8", "m16n8k16"})
    for (const char* t : {"f16", "bf16"})
      out.push_back(std::string("mma.sync.aligned.") + shape + ".row.col.f32." + t + "." + t + ".f32");
  for (const char* shape : {"m8n8k16", "m16n8k16", "m16n8k32"})
    for (const char* sat : {"", ".satfinite"})
      for (const char* a : {"s8", "u8"})
        for (const char* b : {"s8", "u8"})
          out.push_back(std::string("mma.sync.aligned.") + shape + ".row.col" + sat + ".s32." + a + "." + b + ".s32");
  return out;
}

}  // namespace qgpu::oracle
