// PTX -> machine lowering (docs/machine.md §2). Works on the oracle's decoded program:
// operands are register-file slots, immediates are constant slots, branch targets and
// reconvergence points are already resolved. One PTX instruction becomes one machine
// instruction, except vector ld/st (one LD/ST per element) and instructions the dataflow
// pass proves unnecessary (dropped). Calls are inlined first (inline.h). Anything else is an
// error naming the instruction.
#include "qgpu/machine/lower.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "dataflow.h"
#include "inline.h"
#include "qgpu/machine/units.h"
#include "qgpu/interp/address_space.h"
#include "qgpu/interp/error.h"
#include "qgpu/interp/types.h"

namespace qgpu::machine {
namespace {

struct Text {
  std::string mnemonic;
  std::vector<std::string> mods;
  std::vector<ScalarType> types;
  explicit Text(const std::string& op) {
    size_t start = 0;
    while (true) {
      size_t dot = op.find('.', start);
      std::string part = op.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (start == 0) {
        mnemonic = part;
      } else if (auto t = parseScalarType(part)) {
        types.push_back(*t);
      } else {
        mods.push_back(part);
      }
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
  }
  bool has(const std::string& m) const { return std::find(mods.begin(), mods.end(), m) != mods.end(); }
  /// Rounding-mode field of float ops (0 rn, 1 rz, 2 rm, 3 rp), from .rn/.rz/.rm/.rp or the
  /// round-to-integral .rni/.rzi/.rmi/.rpi; 0 when there is none.
  bool hasRounding() const { return has("rn") || has("rz") || has("rm") || has("rp"); }
  uint8_t rounding() const {
    return has("rz") || has("rzi") ? 1 : has("rm") || has("rmi") ? 2 : has("rp") || has("rpi") ? 3 : 0;
  }
};

const std::set<std::string>& memoryHints() {
  static const std::set<std::string> kHints = {
      "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "volatile", "relaxed", "acquire", "release",
      "acq_rel", "weak", "sc", "cta", "gpu", "sys", "L1::evict_normal", "L1::evict_last",
      "L1::evict_first", "L1::no_allocate", "L2::64B", "L2::128B", "L2::256B", "L2::cache_hint",
      "L1::evict_unchanged", "aligned", "global", "shared", "local", "const", "param",
      "shared::cta", "param::entry", "v2", "v4", "sync", "uni"};
  return kHints;
}

class Lowerer {
 public:
  Lowerer(const Program& p, const FunctionInfo& f) : p_(p), f_(f) {}
  /// A kernel whose calls were inlined (inline.h): instructions are described by the oracle pc
  /// they come from.
  explicit Lowerer(const InlinedKernel& k) : p_(k.program), f_(k.program.functions[k.function]), inlined_(&k) {}

  MachineProgram run() {
    const uint32_t n = f_.endPc - f_.entryPc;
    std::vector<bool> pure(n), copy(n);
    std::set<uint32_t> carrySlots;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t pc = f_.entryPc + i;
      const Instr& in = p_.code[pc];
      Text t(p_.opcodeText[pc]);
      if (in.flow == Flow::Call && in.mode != kMachineCall && in.mode != kCallEnd)
        fail(pc, "internal: a call was not inlined");
      static const std::set<std::string> kSideEffects = {"st", "atom", "red", "membar", "fence",
                                                        "prefetch", "nanosleep", "bar", "barrier"};
      // Carry arithmetic also writes CC.CF, which is not a destination slot.
      bool carry = t.has("cc") || t.mnemonic == "addc" || t.mnemonic == "subc" || t.mnemonic == "madc";
      pure[i] = in.flow == Flow::None && !kSideEffects.count(t.mnemonic) && !carry;
      if (carry) carrySlots.insert(in.s[3]);
      // cvta between generic and global is the identity in the machine's map (global
      // addresses are generic addresses), so it is a copy like mov.
      bool cvtaGlobal = t.mnemonic == "cvta" && std::find(t.mods.begin(), t.mods.end(), "global") != t.mods.end() &&
                        in.typeBytes == 8;
      copy[i] = (t.mnemonic == "mov" || cvtaGlobal) && in.guard == kNoSlot && in.count == 0 &&
                in.imm == 0 && in.d[0] != kNoSlot && copyWidthOk(in);
    }
    // An inlined callee's CC.CF may be zeroed by a mov at the call (inline.cpp); carry
    // arithmetic writes it without naming it as a destination, so it is no copy target.
    for (uint32_t i = 0; i < n; ++i)
      if (copy[i] && carrySlots.count(p_.code[f_.entryPc + i].d[0])) copy[i] = false;
    df_ = analyzeFunction(p_, f_, pure, copy);
    if (inlined_) sharing_.emplace(*inlined_, df_);
    uint64_t next = kGlobalStart;
    for (const GlobalVariable& g : p_.globals) {
      if (g.space != ptx::StateSpace::Global) continue;
      uint64_t align = std::max<uint64_t>(g.align, kGlobalAlign);
      next = (next + align - 1) / align * align;
      globalAddr_.push_back(next);
      next += g.size;
    }
    globalsEnd_ = next;

    MachineProgram mp;
    mp.entry = f_.name;
    std::vector<uint32_t> firstMpc(n + 1, 0);
    std::vector<std::pair<size_t, uint32_t>> branchFix;  // machine pc, oracle pc
    for (uint32_t i = 0; i < n; ++i) {
      firstMpc[i] = static_cast<uint32_t>(code_.size());
      if (df_.dropped[i]) continue;
      size_t before = code_.size();
      lowerOne(f_.entryPc + i);
      for (size_t k = before; k < code_.size(); ++k) {
        ptxPc_.push_back(oraclePc(f_.entryPc + i));
        if (code_[k].op == MOp::Bra || code_[k].op == MOp::Call) branchFix.push_back({k, f_.entryPc + i});
      }
    }
    firstMpc[n] = static_cast<uint32_t>(code_.size());
    if (code_.size() > kMaxCode)
      fail(f_.entryPc, fmt::format("{} machine instructions exceed the 10-bit pc ({} max)",
                                   code_.size(), kMaxCode));
    for (auto [k, pc] : branchFix) {
      const Instr& in = p_.code[pc];
      code_[k].b = static_cast<uint16_t>(firstMpc[in.target - f_.entryPc]);
      code_[k].c = in.reconverge == kExitPc
                       ? static_cast<uint16_t>(kExitTarget)
                       : static_cast<uint16_t>(firstMpc[in.reconverge - f_.entryPc]);
    }
    mp.code = std::move(code_);
    mp.constants = std::move(constants_);
    mp.numRegs = static_cast<uint32_t>(regNames_.size());
    mp.regNames = std::move(regNames_);
    mp.ptxPc = std::move(ptxPc_);
    for (uint32_t pc : mp.ptxPc) mp.ptxText.push_back(p_.describePc(pc));
    for (const KernelParam& kp : f_.kernelParams) {
      mp.paramOffsets.push_back(kp.offset);
      mp.paramSizes.push_back(kp.size);
    }
    mp.paramBytes = f_.kernelParamBytes;
    mp.staticSharedBytes = p_.dynamicSharedOffset;  // every static byte and the padding before the dynamic area
    mp.localBytes = f_.localBytes;
    mp.constBank.assign(p_.constBytes, 0);
    for (const GlobalVariable& g : p_.globals) {
      if (g.space == ptx::StateSpace::Const)
        std::copy(g.init.begin(), g.init.end(), mp.constBank.begin() + static_cast<long>(g.offset));
      if (g.space == ptx::StateSpace::Global) mp.moduleGlobals.push_back(g.init);
    }
    mp.moduleGlobalAddr = globalAddr_;
    mp.globalsEnd = globalsEnd_;
    if (globalsEnd_ > kGlobalLimit) failModule("module .global variables exceed the machine's 16 MiB");
    mp.ptxInstructions = inlined_ ? inlined_->ptxInstructions : n;
    return mp;
  }

 private:
  [[noreturn]] void fail(uint32_t pc, const std::string& why) const {
    throw Error(ErrorKind::Decode,
                fmt::format("not lowerable to the machine: {}: {}", p_.describePc(oraclePc(pc)), why));
  }
  /// The oracle pc an instruction of f_ stands for (itself unless calls were inlined).
  uint32_t oraclePc(uint32_t pc) const {
    return inlined_ && pc >= f_.entryPc && pc < f_.endPc ? inlined_->origin[pc - f_.entryPc] : pc;
  }

  /// A machine register for `name`: in an inlined kernel, the first one whose slots all
  /// belong to instances unrelated to `owner` (inline.h, RegisterSharing); else a new one.
  uint16_t newRegister(uint32_t pc, const std::string& name, uint32_t owner) {
    for (size_t r = 0; r < regOwners_.size() && sharing_; ++r) {
      const auto& owners = regOwners_[r];
      if (std::none_of(owners.begin(), owners.end(), [&](uint32_t o) { return sharing_->related(o, owner); })) {
        regOwners_[r].push_back(owner);
        if (regOwners_[r].size() <= 3) regNames_[r] += " | " + name;  // for token meanings
        else if (regOwners_[r].size() == 4) regNames_[r] += " | ...";
        return static_cast<uint16_t>(r);
      }
    }
    if (regNames_.size() >= kNumRegs) fail(pc, fmt::format("more than {} live registers", kNumRegs));
    regNames_.push_back(name);
    regOwners_.push_back({owner});
    return static_cast<uint16_t>(regNames_.size() - 1);
  }
  [[noreturn]] void failModule(const std::string& why) const {
    throw Error(ErrorKind::Decode,
                fmt::format("not lowerable to the machine: {} ('{}'): {}", p_.module.fileName, f_.name, why));
  }

  bool copyWidthOk(const Instr& in) const {
    uint32_t s = in.s[0];
    if (s == kNoSlot) return false;
    for (const auto& c : f_.constants)
      if (c.first == s) return true;  // constants are already converted to the mov type
    for (const auto& sp : f_.specials)
      if (sp.first == s) return in.typeBytes >= 4 && sp.second != SpecialReg::Clock &&
                                sp.second != SpecialReg::Clock64;
    return in.typeBytes >= f_.slotBytes[s];
  }

  /// Machine operand of an oracle slot (after substitution).
  uint16_t operand(uint32_t pc, uint32_t slot) {
    slot = df_.resolve(slot);
    if (slot == kNoSlot) fail(pc, "internal: missing operand");
    for (const auto& [s, v] : f_.constants)
      if (s == slot) return constant(pc, v);
    for (const auto& [s, r] : f_.specials)
      if (s == slot) return special(pc, r);
    auto it = regOf_.find(slot);
    if (it != regOf_.end()) return it->second;
    uint16_t r = newRegister(pc, f_.slotNames[slot], sharing_ ? sharing_->owner(slot) : 0);
    regOf_[slot] = r;
    return r;
  }
  /// Micro-code temporaries are shared by every use in the kernel: none is live across the
  /// PTX instruction that wrote it.
  uint16_t sharedTemporary(uint32_t pc, uint16_t& slot, const char* name) {
    if (slot == kNoOperand) slot = temporary(pc, name);
    return slot;
  }
  uint16_t divState(uint32_t pc) { return sharedTemporary(pc, divState_, "div.state"); }
  /// A machine register the PTX does not have (micro-code intermediate).
  uint16_t temporary(uint32_t pc, const std::string& name) {
    return newRegister(pc, name, 0);
  }
  uint16_t constant(uint32_t pc, uint64_t v) {
    auto it = std::find(constants_.begin(), constants_.end(), v);
    if (it != constants_.end()) return static_cast<uint16_t>(kConstBase + (it - constants_.begin()));
    if (constants_.size() >= kNumConsts) fail(pc, fmt::format("more than {} ROM constants", kNumConsts));
    constants_.push_back(v);
    return static_cast<uint16_t>(kConstBase + constants_.size() - 1);
  }
  uint16_t special(uint32_t pc, SpecialReg r) {
    MSpecial m;
    switch (r) {
      case SpecialReg::TidX: m = MSpecial::TidX; break;
      case SpecialReg::TidY: m = MSpecial::TidY; break;
      case SpecialReg::TidZ: m = MSpecial::TidZ; break;
      case SpecialReg::NtidX: m = MSpecial::NtidX; break;
      case SpecialReg::NtidY: m = MSpecial::NtidY; break;
      case SpecialReg::NtidZ: m = MSpecial::NtidZ; break;
      case SpecialReg::CtaidX: m = MSpecial::CtaidX; break;
      case SpecialReg::CtaidY: m = MSpecial::CtaidY; break;
      case SpecialReg::CtaidZ: m = MSpecial::CtaidZ; break;
      case SpecialReg::NctaidX: m = MSpecial::NctaidX; break;
      case SpecialReg::NctaidY: m = MSpecial::NctaidY; break;
      case SpecialReg::NctaidZ: m = MSpecial::NctaidZ; break;
      case SpecialReg::LaneId: m = MSpecial::LaneId; break;
      case SpecialReg::WarpId: m = MSpecial::WarpId; break;
      case SpecialReg::NWarpId: m = MSpecial::NWarpId; break;
      case SpecialReg::LanemaskEq: m = MSpecial::LanemaskEq; break;
      case SpecialReg::LanemaskLt: m = MSpecial::LanemaskLt; break;
      case SpecialReg::LanemaskLe: m = MSpecial::LanemaskLe; break;
      case SpecialReg::LanemaskGt: m = MSpecial::LanemaskGt; break;
      case SpecialReg::LanemaskGe: m = MSpecial::LanemaskGe; break;
      case SpecialReg::WarpSize: m = MSpecial::WarpSize; break;
      case SpecialReg::Zero: case SpecialReg::FrameLocalBase: m = MSpecial::Zero; break;
      default: fail(pc, "special register not available on the machine (clock, smid, smem size)");
    }
    return static_cast<uint16_t>(kSpecialBase + static_cast<uint32_t>(m));
  }

  /// An absolute address immediate of the oracle's layout, in the machine's layout.
  uint64_t remapAddress(uint32_t pc, uint64_t v) {
    struct W { uint64_t oracle, machine; };
    for (W w : {W{kSharedWindowBase, kSharedWindow}, W{kLocalWindowBase, kLocalWindow},
                W{kConstWindowBase, kConstWindow}, W{kParamWindowBase, kParamWindow}}) {
      if (v >= w.oracle && v < w.oracle + qgpu::kWindowBytes) {
        if (v - w.oracle >= machine::kWindowBytes) fail(pc, "address beyond the machine's 16 MiB window");
        return w.machine + (v - w.oracle);
      }
    }
    if (v >= kGlobalBase) {
      uint64_t region = (v - kGlobalBase) >> 32, off = v & 0xffffffffu;
      if (region >= globalAddr_.size()) fail(pc, "absolute global address outside the module's variables");
      return globalAddr_[region] + off;
    }
    return v;
  }
  bool isZeroBase(uint32_t slot) const {
    slot = df_.resolve(slot);
    for (const auto& [s, v] : f_.constants)
      if (s == slot) return v == 0;
    for (const auto& [s, r] : f_.specials)
      if (s == slot) return r == SpecialReg::FrameLocalBase || r == SpecialReg::Zero;
    return false;
  }
  /// Offset operand of [base + imm]: none for 0, a remapped constant for absolute addresses.
  uint16_t offsetOperand(uint32_t pc, uint32_t base, int64_t imm) {
    if (imm == 0) return kNoOperand;
    uint64_t v = static_cast<uint64_t>(imm);
    if (isZeroBase(base)) v = remapAddress(pc, v);
    return constant(pc, v);
  }

  MSpace space(uint32_t pc, MemSpace s) {
    switch (s) {
      case MemSpace::Generic: return MSpace::Generic;
      case MemSpace::Global: return MSpace::Global;
      case MemSpace::Shared: return MSpace::Shared;
      case MemSpace::Local: return MSpace::Local;
      case MemSpace::Const: return MSpace::Const;
      case MemSpace::KernelParam: return MSpace::Param;
      default: fail(pc, "call parameters (.param of a .func) are not lowered");
    }
  }

  void only(uint32_t pc, const Text& t, std::initializer_list<const char*> allowed, bool hints = false) {
    for (const std::string& m : t.mods) {
      bool ok = hints && memoryHints().count(m);
      for (const char* a : allowed) ok = ok || m == a;
      if (!ok) fail(pc, fmt::format("modifier .{} of '{}' is not lowered", m, t.mnemonic));
    }
  }

  MInstr base(uint32_t pc, MOp op, const Instr& in) {
    MInstr m;
    m.op = op;
    if (in.guard != kNoSlot) {
      uint16_t g = operand(pc, in.guard);
      if (g >= kConstBase) fail(pc, "guard must be a predicate register");
      m.g = static_cast<uint16_t>(g | (in.guardNegated ? kGuardNegated : 0));
    }
    return m;
  }
  void emit(const MInstr& m) { code_.push_back(m); }
  /// One micro-code step of PTX instruction `in` (its guard included).
  void emitStep(uint32_t pc, const Instr& in, MOp op, uint8_t tyCode, uint8_t fl, uint16_t d, uint16_t a, uint16_t b,
                uint16_t c) {
    MInstr m = base(pc, op, in);
    m.ty = tyCode;
    m.fl = fl;
    m.d = d;
    m.a = a;
    m.b = b;
    m.c = c;
    emit(m);
  }

  ScalarType oneType(uint32_t pc, const Text& t) {
    if (t.types.empty()) fail(pc, "no type");
    return t.types.back();
  }
  uint8_t ty(ScalarType t) { return typeCode(scalarTypeBytes(t), isSigned(t)); }
  void requireF32(uint32_t pc, ScalarType t) {
    if (t == ScalarType::F64) fail(pc, "this f64 operation is not lowered (f64 add sub mul fma div rcp sqrt min max neg abs are)");
    if (t != ScalarType::F32) fail(pc, fmt::format(".{} floating point is not lowered", scalarTypeName(t)));
  }
  uint8_t floatFlags(uint32_t pc, const Text& t, bool allowSat) {
    only(pc, t, {"rn", "rz", "rm", "rp", "ftz", "sat"});
    if (t.has("sat") && !allowSat) fail(pc, ".sat is not lowered here");
    return static_cast<uint8_t>((t.has("ftz") ? kFlFtz : 0) | (t.has("sat") ? kFlSat : 0) | t.rounding() << 2);
  }

  /// div/rcp/sqrt .approx and div.full: their bits are the oracle's model, not a specification.
  void rejectApproximate(uint32_t pc, const Text& t) {
    if (t.has("approx") || t.has("full"))
      fail(pc, fmt::format("'{}' is not lowered (approximate results are modelled by the oracle, not specified)",
                           p_.opcodeText[pc]));
  }

  void alu(uint32_t pc, const Instr& in, MOp op, uint8_t tyCode, uint8_t fl, int nsrc) {
    MInstr m = base(pc, op, in);
    m.ty = tyCode;
    m.fl = fl;
    m.d = operand(pc, in.d[0]);
    if (nsrc > 0) m.a = operand(pc, in.s[0]);
    if (nsrc > 1) m.b = operand(pc, in.s[1]);
    if (nsrc > 2) m.c = operand(pc, in.s[2]);
    emit(m);
  }

  void lowerOne(uint32_t pc) {
    const Instr& in = p_.code[pc];
    Text t(p_.opcodeText[pc]);
    const std::string& mn = t.mnemonic;
    for (uint32_t d : in.d)
      if (d != kNoSlot && df_.resolve(d) != d) fail(pc, "internal: write to a substituted register");

    if (mn == "addc" || mn == "subc" || mn == "madc" || (t.has("cc") && (mn == "add" || mn == "sub" || mn == "mad")))
      return lowerCarry(pc, in, t);
    if (mn == "add" || mn == "sub") {
      ScalarType ty0 = oneType(pc, t);
      if (ty0 == ScalarType::F64) {  // one step: a 64-bit FADD (docs/machine.md §5.1)
        only(pc, t, {"rn", "rz", "rm", "rp"});
        return alu(pc, in, mn == "add" ? MOp::FAdd : MOp::FSub, typeCode(8, false), floatFlags(pc, t, false), 2);
      }
      if (isFloat(ty0)) {
        requireF32(pc, ty0);
        return alu(pc, in, mn == "add" ? MOp::FAdd : MOp::FSub, ty(ty0), floatFlags(pc, t, true), 2);
      }
      only(pc, t, {});
      return alu(pc, in, mn == "add" ? MOp::Add : MOp::Sub, ty(ty0), 0, 2);
    }
    if (mn == "mul" || mn == "mad" || mn == "fma") {
      ScalarType ty0 = oneType(pc, t);
      int nsrc = mn == "mul" ? 2 : 3;
      if (ty0 == ScalarType::F64 && mn == "mul") return lowerDMul(pc, in, t);
      if (ty0 == ScalarType::F64 && (mn == "fma" || (mn == "mad" && t.hasRounding())))
        return lowerDFma(pc, in, t);
      if (isFloat(ty0)) {
        requireF32(pc, ty0);
        if (mn == "mad" && !t.hasRounding()) fail(pc, "mad.f32 without rounding (the sm_1x form) is not lowered");
        return alu(pc, in, mn == "mul" ? MOp::FMul : MOp::FFma, ty(ty0), floatFlags(pc, t, true), nsrc);
      }
      if (mn == "fma") fail(pc, "integer fma does not exist");
      if (t.has("lo")) {
        only(pc, t, {"lo"});
        if (scalarTypeBytes(ty0) == 8)
          return mul64(pc, in, false, isSigned(ty0), operand(pc, in.s[0]), operand(pc, in.s[1]),
                       nsrc == 3 ? operand(pc, in.s[2]) : kNoOperand, operand(pc, in.d[0]));
        return alu(pc, in, nsrc == 2 ? MOp::MulLo : MOp::MadLo, ty(ty0), 0, nsrc);
      }
      if (t.has("wide")) {
        only(pc, t, {"wide"});
        return alu(pc, in, nsrc == 2 ? MOp::MulWide : MOp::MadWide, ty(ty0), 0, nsrc);
      }
      if (t.has("hi") && mn == "mul") {
        only(pc, t, {"hi"});
        if (scalarTypeBytes(ty0) == 8)
          return mul64(pc, in, true, isSigned(ty0), operand(pc, in.s[0]), operand(pc, in.s[1]), kNoOperand,
                       operand(pc, in.d[0]));
        return alu(pc, in, MOp::MulHi, ty(ty0), 0, 2);
      }
      fail(pc, fmt::format("'{}' form is not lowered", p_.opcodeText[pc]));
    }
    if (mn == "and" || mn == "or" || mn == "xor" || mn == "not") {
      only(pc, t, {});
      ScalarType ty0 = oneType(pc, t);
      MOp op = mn == "and" ? MOp::And : mn == "or" ? MOp::Or : mn == "xor" ? MOp::Xor : MOp::Not;
      if (ty0 == ScalarType::Pred && op == MOp::Not) {  // !p == p ^ 1 on 0/1 values
        MInstr m = base(pc, MOp::Xor, in);
        m.ty = typeCode(1, false);
        m.d = operand(pc, in.d[0]);
        m.a = operand(pc, in.s[0]);
        m.b = constant(pc, 1);
        return emit(m);
      }
      return alu(pc, in, op, ty(ty0), 0, op == MOp::Not ? 1 : 2);
    }
    if (mn == "shl" || mn == "shr") {
      only(pc, t, {});
      return alu(pc, in, mn == "shl" ? MOp::Shl : MOp::Shr, ty(oneType(pc, t)), 0, 2);
    }
    if (mn == "min" || mn == "max" || mn == "neg" || mn == "abs") {
      ScalarType ty0 = oneType(pc, t);
      bool unary = mn == "neg" || mn == "abs";
      if (ty0 == ScalarType::F64) {
        only(pc, t, {});
        if (!unary) return alu(pc, in, mn == "min" ? MOp::FMin : MOp::FMax, typeCode(8, false), 0, 2);
        // abs.f64 / neg.f64 are bit operations on the sign, NaNs included (docs/semantics.md).
        MInstr m = base(pc, mn == "abs" ? MOp::And : MOp::Xor, in);
        m.ty = typeCode(8, false);
        m.d = operand(pc, in.d[0]);
        m.a = operand(pc, in.s[0]);
        m.b = constant(pc, mn == "abs" ? 0x7fffffffffffffffull : 0x8000000000000000ull);
        return emit(m);
      }
      if (isFloat(ty0)) {
        requireF32(pc, ty0);
        only(pc, t, {"ftz"});
        MOp op = mn == "min" ? MOp::FMin : mn == "max" ? MOp::FMax : mn == "neg" ? MOp::FNeg : MOp::FAbs;
        return alu(pc, in, op, ty(ty0), t.has("ftz") ? kFlFtz : 0, unary ? 1 : 2);
      }
      only(pc, t, {});
      MOp op = mn == "min" ? MOp::Min : mn == "max" ? MOp::Max : mn == "neg" ? MOp::Neg : MOp::Abs;
      return alu(pc, in, op, ty(ty0), 0, unary ? 1 : 2);
    }
    if (mn == "setp") {
      ScalarType ty0 = oneType(pc, t);
      if (in.count != 0) fail(pc, "setp with a boolean combination (.and/.or/.xor) is not lowered");
      if (df_.live(in.d[1])) fail(pc, "setp with two destinations (p|q) is not lowered");
      MInstr m = base(pc, isFloat(ty0) ? MOp::FSetp : MOp::Setp, in);
      m.d = operand(pc, in.d[0]);
      m.a = operand(pc, in.s[0]);
      m.b = operand(pc, in.s[1]);
      if (isFloat(ty0)) {
        requireF32(pc, ty0);
        // 4-bit float compare code: eq..ge 0-5, equ..geu 6-11, num 12, nan 13; ftz in ty bit 2.
        uint8_t c = in.mode;
        m.fl = static_cast<uint8_t>(c <= 5 ? c : c - 4);
        m.ty = static_cast<uint8_t>(2 | (in.ftz ? 4 : 0));
      } else {
        if (ty0 == ScalarType::Pred) fail(pc, "setp on .pred is not lowered");
        m.fl = in.mode;
        m.ty = ty(ty0);
      }
      return emit(m);
    }
    if (mn == "selp") {
      only(pc, t, {});
      return alu(pc, in, MOp::Selp, ty(oneType(pc, t)), 0, 3);
    }
    if (mn == "mov") {
      only(pc, t, {});
      if (in.count != 0) fail(pc, "mov pack/unpack ({a,b}) is not lowered");
      if (in.imm != 0) {  // address of a variable: base + address
        MInstr m = base(pc, MOp::Add, in);
        m.ty = typeCode(8, false);
        m.d = operand(pc, in.d[0]);
        m.a = operand(pc, in.s[0]);
        m.b = constant(pc, isZeroBase(in.s[0]) ? remapAddress(pc, static_cast<uint64_t>(in.imm))
                                              : static_cast<uint64_t>(in.imm));
        return emit(m);
      }
      return alu(pc, in, MOp::Mov, typeCode(in.typeBytes, false), 0, 1);
    }
    if (mn == "cvta") {
      only(pc, t, {"to", "global", "shared", "local", "const", "param"});
      if (isZeroBase(in.s[0])) {  // cvta of a variable name: its generic address
        MInstr m = base(pc, MOp::Add, in);
        m.ty = typeCode(8, false);
        m.d = operand(pc, in.d[0]);
        m.a = operand(pc, in.s[0]);
        m.b = constant(pc, remapAddress(pc, static_cast<uint64_t>(in.imm)));
        return emit(m);
      }
      MSpace s = t.has("global") ? MSpace::Global : t.has("shared") ? MSpace::Shared
               : t.has("local") ? MSpace::Local : t.has("const") ? MSpace::Const : MSpace::Param;
      MInstr m = base(pc, MOp::Cvta, in);
      m.ty = typeCode(in.typeBytes, false);
      m.fl = static_cast<uint8_t>(static_cast<uint8_t>(s) | (in.mode ? kFlCvtaTo : 0));
      m.d = operand(pc, in.d[0]);
      m.a = operand(pc, in.s[0]);
      return emit(m);
    }
    if (mn == "cvt") {
      return lowerCvt(pc, in, t);
    }
    if (mn == "ld" || mn == "ldu") {
      only(pc, t, {}, true);
      MSpace s = space(pc, in.space);
      // One LD per element; an element overwriting the base register goes last.
      std::vector<uint32_t> order;
      for (uint32_t i = 0; i < in.count; ++i)
        if (in.d[i] != kNoSlot && df_.live(in.d[i]) && df_.resolve(in.d[i]) != df_.resolve(in.s[0]))
          order.push_back(i);
      for (uint32_t i = 0; i < in.count; ++i)
        if (in.d[i] != kNoSlot && df_.live(in.d[i]) && df_.resolve(in.d[i]) == df_.resolve(in.s[0]))
          order.push_back(i);
      for (uint32_t i : order) {
        MInstr m = base(pc, MOp::Ld, in);
        m.ty = typeCode(in.typeBytes, in.sat);
        m.fl = static_cast<uint8_t>(s);
        m.d = operand(pc, in.d[i]);
        m.a = operand(pc, in.s[0]);
        m.b = offsetOperand(pc, in.s[0], in.imm + int64_t{i} * in.typeBytes);
        m.c = typeCode(in.dstBytes, false);
        emit(m);
      }
      return;
    }
    if (mn == "st") {
      only(pc, t, {}, true);
      MSpace s = space(pc, in.space);
      for (uint32_t i = 0; i < in.count; ++i) {
        MInstr m = base(pc, MOp::St, in);
        m.ty = typeCode(in.typeBytes, false);
        m.fl = static_cast<uint8_t>(s);
        m.a = operand(pc, in.s[4]);
        m.b = offsetOperand(pc, in.s[4], in.imm + int64_t{i} * in.typeBytes);
        m.c = operand(pc, in.s[i]);
        emit(m);
      }
      return;
    }
    if (mn == "shfl") {
      only(pc, t, {"sync", "up", "down", "bfly", "idx"});
      if (df_.live(in.d[1])) fail(pc, "shfl's predicate output is not lowered");
      MInstr m = base(pc, MOp::Shfl, in);
      m.ty = typeCode(4, false);
      m.fl = in.mode;
      m.d = operand(pc, in.d[0]);
      m.a = operand(pc, in.s[0]);
      m.b = operand(pc, in.s[1]);
      m.c = operand(pc, in.s[2]);
      // The membermask only decides whether the shuffle is defined (every member must take
      // part); the machine takes the executing lanes as the members and does not read it.
      return emit(m);
    }
    if (mn == "vote") {
      only(pc, t, {"sync", "all", "any", "uni", "ballot"});
      MInstr m = base(pc, MOp::Vote, in);
      m.ty = typeCode(in.mode == 3 ? 4 : 1, false);
      m.fl = static_cast<uint8_t>(in.mode | ((in.imm & 1) ? 4 : 0));
      m.d = operand(pc, in.d[0]);
      m.a = operand(pc, in.s[0]);
      m.b = operand(pc, in.s[1]);
      return emit(m);
    }
    if (mn == "div" || mn == "rem") {
      ScalarType ty0 = oneType(pc, t);
      if (isFloat(ty0)) return lowerFDivSqrt(pc, in, t);
      only(pc, t, {});
      if (scalarTypeBytes(ty0) == 8) return lowerDiv64(pc, in, ty0, mn == "rem");
      if (scalarTypeBytes(ty0) != 4) fail(pc, "integer division is lowered for 32- and 64-bit types only");
      // Micro-code: DIVINIT, 8 x DIVSTEP (4 quotient bits each), DIVFIN (signs, division by zero).
      const uint16_t state = divState(pc), dividend = operand(pc, in.s[0]), divisor = operand(pc, in.s[1]);
      emitStep(pc, in, MOp::DivInit, ty(ty0), 0, state, dividend, kNoOperand, kNoOperand);
      for (int i = 0; i < 8; ++i) emitStep(pc, in, MOp::DivStep, ty(ty0), 0, state, state, divisor, kNoOperand);
      return emitStep(pc, in, MOp::DivFin, ty(ty0), mn == "rem" ? 1 : 0, operand(pc, in.d[0]), state, dividend, divisor);
    }
    if (mn == "rcp" || mn == "sqrt") return lowerFDivSqrt(pc, in, t);
    if (mn == "mul24" || mn == "mad24") {
      only(pc, t, {"lo", "hi"});
      return alu(pc, in, MOp::Mul24, ty(oneType(pc, t)), t.has("hi") ? 1 : 0, mn == "mad24" ? 3 : 2);
    }
    if (mn == "sad") {
      only(pc, t, {});
      return alu(pc, in, MOp::Sad, ty(oneType(pc, t)), 0, 3);
    }
    if (mn == "dp4a" || mn == "dp2a") {
      only(pc, t, {"lo", "hi"});
      uint8_t fl = static_cast<uint8_t>(in.mode | (mn == "dp2a" ? 8 : 0));  // signedness, hi
      return alu(pc, in, MOp::Dp, typeCode(4, false), fl, 3);
    }
    if (mn == "popc" || mn == "clz" || mn == "brev" || mn == "bfind") {
      only(pc, t, {"shiftamt"});
      MOp op = mn == "popc" ? MOp::Popc : mn == "clz" ? MOp::Clz : mn == "brev" ? MOp::Brev : MOp::Bfind;
      return alu(pc, in, op, ty(oneType(pc, t)), t.has("shiftamt") ? 1 : 0, 1);
    }
    if (mn == "bfe") {
      only(pc, t, {});
      return alu(pc, in, MOp::Bfe, ty(oneType(pc, t)), 0, 3);
    }
    if (mn == "bfi") {
      only(pc, t, {});
      // Position and length travel as one ROM constant pos | len << 8.
      auto value = [&](uint32_t slot) -> std::optional<uint64_t> {
        slot = df_.resolve(slot);
        for (const auto& [cs, v] : f_.constants)
          if (cs == slot) return v;
        return std::nullopt;
      };
      auto pos = value(in.s[2]), len = value(in.s[3]);
      MInstr m = base(pc, MOp::Bfi, in);
      m.ty = ty(oneType(pc, t));
      m.d = operand(pc, in.d[0]);
      m.a = operand(pc, in.s[0]);
      m.b = operand(pc, in.s[1]);
      if (pos && len) {
        m.c = constant(pc, (*pos & 0xff) | (*len & 0xff) << 8);
      } else {
        // Micro-code: a PRMT packs the low bytes of pos and len into a temporary first.
        MInstr pack = base(pc, MOp::Prmt, in);
        pack.ty = typeCode(4, false);
        pack.d = sharedTemporary(pc, bfiPack_, "bfi.pos_len");
        pack.a = operand(pc, in.s[2]);
        pack.b = operand(pc, in.s[3]);
        pack.c = constant(pc, 0x0040);  // byte 0 <- pos.b0, byte 1 <- len.b0
        emit(pack);
        m.c = pack.d;
      }
      return emit(m);
    }
    if (mn == "shf") {
      only(pc, t, {"l", "r", "wrap", "clamp"});
      return alu(pc, in, MOp::Shf, typeCode(4, false), in.mode, 3);
    }
    if (mn == "prmt") {
      only(pc, t, {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"});
      return alu(pc, in, MOp::Prmt, typeCode(4, false), in.mode, 3);
    }
    if (mn == "atom" || mn == "red") {
      only(pc, t, {"and", "or", "xor", "cas", "exch", "add", "inc", "dec", "min", "max"}, true);
      ScalarType ty0 = oneType(pc, t);
      if (isFloat(ty0)) fail(pc, "floating-point atomics are not lowered");
      if (in.imm != 0) fail(pc, "atomics with an address offset are not lowered");
      if (in.space != MemSpace::Generic && in.space != MemSpace::Global && in.space != MemSpace::Shared)
        fail(pc, "atomics outside global/shared memory");
      MInstr m = base(pc, in.space == MemSpace::Shared ? MOp::AtomS : MOp::Atom, in);
      m.ty = ty(ty0);
      m.fl = in.mode;
      if (in.d[0] != kNoSlot && df_.live(in.d[0])) m.d = operand(pc, in.d[0]);
      m.a = operand(pc, in.s[0]);
      m.b = operand(pc, in.s[1]);
      if (in.s[2] != kNoSlot) m.c = operand(pc, in.s[2]);
      return emit(m);
    }
    if (mn == "membar" || mn == "fence") return;  // the machine is sequentially consistent
    if (in.flow == Flow::Barrier) {
      if (in.s[1] != kNoSlot) fail(pc, "bar.sync with a thread count is not lowered");
      MInstr m = base(pc, MOp::Bar, in);
      m.a = operand(pc, in.s[0]);
      return emit(m);
    }
    if (in.flow == Flow::Branch) return emit(base(pc, MOp::Bra, in));
    if (in.flow == Flow::Call && in.mode == kCallEnd) return;  // END: the pc after the body
    if (in.flow == Flow::Call && in.mode == kMachineCall) {  // b, c (entry, END) are set with the branches
      MInstr m = base(pc, MOp::Call, in);
      m.a = operand(pc, in.s[0]);
      m.d = operand(pc, in.s[1]);
      return emit(m);
    }
    if (in.flow == Flow::Return || in.flow == Flow::Exit) return emit(base(pc, MOp::Exit, in));
    fail(pc, fmt::format("'{}' is not lowered", p_.opcodeText[pc]));
  }

  // Extended precision: CC.CF is a machine register. The new carry is computed into a
  // temporary before d is written, then copied to CC.CF, so no step reads a half-updated
  // pair; mad forms first put the product half into a temporary.
  void lowerCarry(uint32_t pc, const Instr& in, const Text& t) {
    only(pc, t, {"cc", "lo", "hi"});
    ScalarType ty0 = oneType(pc, t);
    const bool mad = t.mnemonic == "mad" || t.mnemonic == "madc";
    const bool sub = t.mnemonic == "sub" || t.mnemonic == "subc";
    const bool readCf = t.mnemonic == "addc" || t.mnemonic == "subc" || t.mnemonic == "madc";
    const bool writeCf = t.has("cc");
    uint16_t cf = operand(pc, in.s[3]);
    uint16_t a = operand(pc, in.s[0]), b = operand(pc, in.s[1]);
    if (mad) {
      uint16_t product = sharedTemporary(pc, carryProduct_, "carry.product");
      if (scalarTypeBytes(ty0) == 8) {
        mul64(pc, in, t.has("hi"), isSigned(ty0), a, b, kNoOperand, product);
      } else {
        MInstr prod = base(pc, t.has("hi") ? MOp::MulHi : MOp::MulLo, in);
        prod.ty = ty(ty0);
        prod.d = product;
        prod.a = a;
        prod.b = b;
        emit(prod);
      }
      a = product;
      b = operand(pc, in.s[2]);
    }
    uint8_t fl = static_cast<uint8_t>((readCf ? 1 : 0) | (sub ? 4 : 0));
    MInstr next;
    if (writeCf) {
      next = base(pc, MOp::Carry, in);
      next.ty = ty(ty0);
      next.fl = fl;
      next.d = sharedTemporary(pc, carryNext_, "carry.next");
      next.a = a;
      next.b = b;
      next.c = cf;
      emit(next);
    }
    MInstr sum = base(pc, MOp::CAdd, in);
    sum.ty = ty(ty0);
    sum.fl = fl;
    sum.d = operand(pc, in.d[0]);
    sum.a = a;
    sum.b = b;
    sum.c = cf;
    emit(sum);
    if (writeCf) {
      MInstr copyCf = base(pc, MOp::Mov, in);
      copyCf.ty = typeCode(1, false);
      copyCf.d = cf;
      copyCf.a = next.d;
      emit(copyCf);
    }
  }

  // 64-bit mul.lo / mad.lo / mul.hi as micro-code on the 32x32 multiplier: one product of
  // 32-bit halves per step (docs/machine.md §2.1), partial sums in temporaries, d written by
  // the last step only. With aL, aH the halves of a (aH signed for signed types):
  //   lo:  t = c + (aL*bH << 32); t += aH*bL << 32; d = t + aL*bL   (a product whose high
  //        half is known to be zero is skipped)
  //   hi:  t = aL*bL >> 32; t += aL*bH; u = lo32(t) + aH*bL; u = hi32(u) + aH*bH;
  //        d = u + hi32(t)*1
  bool highHalfZero(uint16_t operand) const {
    if (operand >= kSpecialBase) return true;  // specials are 32-bit values
    return operand >= kConstBase && (constants_[operand - kConstBase] >> 32) == 0;
  }
  void mul64(uint32_t pc, const Instr& in, bool hi, bool isSigned, uint16_t a, uint16_t b, uint16_t addend, uint16_t d) {
    auto step = [&](MOp op, uint8_t fl, uint16_t dst, uint16_t x, uint16_t y, uint16_t c) {
      emitStep(pc, in, op, typeCode(8, isSigned), fl, dst, x, y, c);
    };
    uint16_t t = sharedTemporary(pc, mulT_, "mul64.t");
    if (!hi) {
      uint16_t acc = addend;
      if (!highHalfZero(b)) {
        step(MOp::MulP, kFlMulBHigh | kFlMulShl32, t, a, b, acc);
        acc = t;
      }
      if (!highHalfZero(a)) {
        step(MOp::MulP, kFlMulAHigh | kFlMulShl32, t, a, b, acc);
        acc = t;
      }
      return step(MOp::MulP, 0, d, a, b, acc);
    }
    uint16_t u = sharedTemporary(pc, mulU_, "mul64.u");
    step(MOp::MulP, kFlMulShr32, t, a, b, kNoOperand);
    step(MOp::MulP, kFlMulBHigh, t, a, b, t);
    step(MOp::MulPC, kFlMulAHigh, u, a, b, t);
    step(MOp::MulPC, kFlMulAHigh | kFlMulBHigh | kFlMulCHigh, u, a, b, u);
    step(MOp::MulP, kFlMulAHigh, d, t, constant(pc, 1), u);
  }

  /// DSIG of an f64 operand into a temporary, or a ROM constant when the operand is one.
  uint16_t significand(uint32_t pc, const Instr& in, uint16_t x, uint16_t& slot, const char* name, uint8_t fl = 0) {
    MInstr m = base(pc, MOp::DSig, in);
    m.ty = typeCode(8, false);
    m.fl = fl;
    m.a = x;
    if (x >= kConstBase && x < kSpecialBase) return constant(pc, computeLane(m, constants_[x - kConstBase], 0, 0));
    m.d = sharedTemporary(pc, slot, name);
    emit(m);
    return m.d;
  }

  // div/rcp/sqrt.f64 as radix-16 restoring recurrences over two registers (a 55-bit remainder
  // and a 60-bit quotient or root do not share one 64-bit register), 15 groups of 4 bits:
  //   div:  DSIG a, DSIG b, 15 x DDIVQ (new Q from old R, Q) + 14 x DDIVR (R in place), DDIVFIN
  //   sqrt: DSQRTN (radicand), 14 x DSQRTR (into the other of two R registers) + 15 x DSQRTQ,
  //         DSQRTFIN
  // The first group reads no R/Q, the last folds the remainder's sticky bit into Q.
  void lowerDDivSqrt(uint32_t pc, const Instr& in, const Text& t) {
    rejectApproximate(pc, t);
    only(pc, t, {"rn", "rz", "rm", "rp"});
    if (!t.hasRounding()) fail(pc, "needs a rounding modifier");
    const uint8_t rounding = static_cast<uint8_t>(t.rounding() << 2);
    auto step = [&](MOp op, uint8_t fl, uint16_t d, uint16_t a, uint16_t b, uint16_t c) {
      emitStep(pc, in, op, typeCode(8, false), fl, d, a, b, c);
    };
    auto groupFlags = [](int g) {
      return static_cast<uint8_t>((g == 0 ? kFlFirstGroup : 0) | (g == 14 ? kFlLastGroup : 0));
    };
    const uint16_t q = sharedTemporary(pc, dq_, "f64.q");
    if (t.mnemonic == "sqrt") {
      const uint16_t x = operand(pc, in.s[0]);
      const uint16_t n = sharedTemporary(pc, dn_, "f64.radicand");
      step(MOp::DSqrtN, 0, n, x, kNoOperand, kNoOperand);
      const uint16_t r[2] = {sharedTemporary(pc, dr0_, "f64.r0"), sharedTemporary(pc, dr1_, "f64.r1")};
      for (int g = 0; g < 15; ++g) {
        const uint16_t rOld = g == 0 ? kNoOperand : r[g % 2], qOld = g == 0 ? kNoOperand : q;
        if (g < 14) step(MOp::DSqrtR, groupFlags(g), r[(g + 1) % 2], rOld, qOld, n);
        step(MOp::DSqrtQ, groupFlags(g), q, rOld, qOld, n);
      }
      return step(MOp::DSqrtFin, rounding, operand(pc, in.d[0]), q, x, kNoOperand);
    }
    const bool rcp = t.mnemonic == "rcp";
    const uint16_t num = rcp ? constant(pc, 0x3ff0000000000000ull) : operand(pc, in.s[0]);
    const uint16_t den = rcp ? operand(pc, in.s[0]) : operand(pc, in.s[1]);
    const uint16_t sa = significand(pc, in, num, dsigA_, "f64.sig_a"), sb = significand(pc, in, den, dsigB_, "f64.sig_b");
    const uint16_t r = sharedTemporary(pc, dr0_, "f64.r0");
    for (int g = 0; g < 15; ++g) {
      step(MOp::DDivQ, groupFlags(g), q, g == 0 ? sa : r, g == 0 ? kNoOperand : q, sb);
      if (g < 14) step(MOp::DDivR, groupFlags(g), r, g == 0 ? sa : r, kNoOperand, sb);
    }
    step(MOp::DDivFin, rounding, operand(pc, in.d[0]), q, num, den);
  }

  // fma.f64 as micro-code: the exact 106-bit product of the 53-bit significands (DSIG with
  // kFlSig53, then the unsigned mul.hi and mul.lo sequences), DFMAPACK (sign, exponent and
  // class of the product above its high half), DFMALO (a NaN operand's payload in place of the
  // low half), DFMASUM (exact sum with c: top 54 bits + sticky, packed), DFMAFIN (rounding).
  void lowerDFma(uint32_t pc, const Instr& in, const Text& t) {
    only(pc, t, {"rn", "rz", "rm", "rp"});
    const uint8_t rounding = static_cast<uint8_t>(t.rounding() << 2);
    const uint16_t a = operand(pc, in.s[0]), b = operand(pc, in.s[1]), c = operand(pc, in.s[2]);
    const uint16_t ma = significand(pc, in, a, dsigA_, "f64.sig_a", kFlSig53);
    const uint16_t mb = significand(pc, in, b, dsigB_, "f64.sig_b", kFlSig53);
    const uint16_t hi = sharedTemporary(pc, dmulHi_, "dmul.hi"), lo = sharedTemporary(pc, dq_, "f64.q");
    mul64(pc, in, true, false, ma, mb, kNoOperand, hi);
    mul64(pc, in, false, false, ma, mb, kNoOperand, lo);
    auto step = [&](MOp op, uint8_t fl, uint16_t d, uint16_t x, uint16_t y, uint16_t z) {
      emitStep(pc, in, op, typeCode(8, false), fl, d, x, y, z);
    };
    step(MOp::DFmaPack, 0, hi, hi, a, b);
    step(MOp::DFmaLo, 0, lo, lo, a, b);
    step(MOp::DFmaSum, rounding, lo, hi, lo, c);
    step(MOp::DFmaFin, rounding, operand(pc, in.d[0]), lo, hi, c);
  }

  // mul.f64 as micro-code: the significands normalised to bit 63 (DSIG; folded into a ROM
  // constant for an immediate operand), the high half of their 128-bit product (the unsigned
  // mul.hi micro-code above), the low half's sticky bit (DSTICKY), then DMULFIN (exponent,
  // rounding, special values) from the original operands. d is written last.
  void lowerDMul(uint32_t pc, const Instr& in, const Text& t) {
    only(pc, t, {"rn", "rz", "rm", "rp"});
    const uint8_t rounding = t.rounding();
    const uint16_t a = operand(pc, in.s[0]), b = operand(pc, in.s[1]);
    const uint16_t ma = significand(pc, in, a, dsigA_, "f64.sig_a"), mb = significand(pc, in, b, dsigB_, "f64.sig_b");
    const uint16_t hi = sharedTemporary(pc, dmulHi_, "dmul.hi");
    mul64(pc, in, true, false, ma, mb, kNoOperand, hi);
    emitStep(pc, in, MOp::DSticky, typeCode(8, false), 0, hi, hi, ma, mb);
    emitStep(pc, in, MOp::DMulFin, typeCode(8, false), static_cast<uint8_t>(rounding << 2), operand(pc, in.d[0]), hi, a, b);
  }

  // f32 div / rcp / sqrt, correctly rounded in every mode, as digit-recurrence micro-code on
  // the significands (4 result bits per step): INIT, 7 STEPs (28 bits: 24 + guard bits),
  // FIN (exponent, rounding, special values, ftz). State in one 64-bit temporary.
  void lowerFDivSqrt(uint32_t pc, const Instr& in, const Text& t) {
    ScalarType ty0 = oneType(pc, t);
    if (ty0 == ScalarType::F64) return lowerDDivSqrt(pc, in, t);
    requireF32(pc, ty0);
    rejectApproximate(pc, t);
    if (!t.hasRounding()) fail(pc, "needs a rounding modifier");
    uint8_t fl = floatFlags(pc, t, false);
    const bool sqrt = t.mnemonic == "sqrt";
    uint16_t state = sharedTemporary(pc, fstate_, "fdiv.state");
    uint16_t num = t.mnemonic == "rcp" ? constant(pc, 0x3f800000) : operand(pc, in.s[0]);
    uint16_t den = t.mnemonic == "div" ? operand(pc, in.s[1]) : t.mnemonic == "rcp" ? operand(pc, in.s[0]) : num;
    if (sqrt) emitStep(pc, in, MOp::Mov, typeCode(8, false), 0, state, constant(pc, 0), kNoOperand, kNoOperand);
    else emitStep(pc, in, MOp::FDivInit, typeCode(8, false), fl, state, num, den, kNoOperand);
    for (int i = 0; i < 7; ++i)
      emitStep(pc, in, sqrt ? MOp::FSqrtStep : MOp::FDivStep, typeCode(8, false), fl, state, state, den, kNoOperand);
    emitStep(pc, in, sqrt ? MOp::FSqrtFin : MOp::FDivFin, typeCode(4, false), fl, operand(pc, in.d[0]), state, num,
             sqrt ? kNoOperand : den);
  }

  // 64-bit div/rem: quotient Q and remainder R need a register each, and a step writes one
  // register, so each group of four quotient bits takes two steps (DIV64R into the other
  // remainder register, then DIV64Q in place, both from the old R and Q): 2 + 32 + 1 steps.
  void lowerDiv64(uint32_t pc, const Instr& in, ScalarType ty0, bool rem) {
    uint16_t q = sharedTemporary(pc, div64Q_, "div64.q");
    uint16_t r[2] = {sharedTemporary(pc, div64R0_, "div64.r0"), sharedTemporary(pc, div64R1_, "div64.r1")};
    uint16_t dividend = operand(pc, in.s[0]), divisor = operand(pc, in.s[1]);
    emitStep(pc, in, MOp::DivInit, ty(ty0), 0, q, dividend, kNoOperand, kNoOperand);
    emitStep(pc, in, MOp::Mov, typeCode(8, false), 0, r[0], constant(pc, 0), kNoOperand, kNoOperand);
    for (int i = 0; i < 16; ++i) {
      emitStep(pc, in, MOp::Div64R, ty(ty0), 0, r[(i + 1) % 2], r[i % 2], q, divisor);
      emitStep(pc, in, MOp::Div64Q, ty(ty0), 0, q, r[i % 2], q, divisor);
    }
    emitStep(pc, in, MOp::Div64Fin, ty(ty0), rem ? 1 : 0, operand(pc, in.d[0]), rem ? r[0] : q, dividend, divisor);
  }

  void lowerCvt(uint32_t pc, const Instr& in, const Text& t) {
    ScalarType dt = static_cast<ScalarType>(in.mode), st = static_cast<ScalarType>(in.count);
    bool fd = isFloat(dt), fs = isFloat(st);
    MInstr m = base(pc, MOp::CvtI, in);
    m.d = operand(pc, in.d[0]);
    m.a = operand(pc, in.s[0]);
    if (!fd && !fs) {
      only(pc, t, {"sat"});
      m.ty = ty(dt);
      m.fl = static_cast<uint8_t>(ty(st) | (in.sat ? 8 : 0));
      m.c = typeCode(in.dstBytes, false);
      return emit(m);
    }
    if (fd && !fs && (dt == ScalarType::F32 || dt == ScalarType::F64)) {
      only(pc, t, {"rn", "rz", "rm", "rp"});
      m.op = MOp::I2F;
      m.ty = ty(st);
      m.fl = static_cast<uint8_t>(t.rounding() |
                                  (dt == ScalarType::F64 ? kFlI2FDest64 : 0));
      return emit(m);
    }
    if (!fd && fs && (st == ScalarType::F32 || st == ScalarType::F64)) {
      only(pc, t, {"rni", "rzi", "rmi", "rpi", "ftz"});
      if (st == ScalarType::F64 && in.ftz) fail(pc, ".ftz on an f64 source");
      m.op = MOp::F2I;
      m.ty = ty(dt);
      uint8_t r = t.has("rni") ? 0 : t.has("rzi") ? 1 : t.has("rmi") ? 2 : 3;
      m.fl = static_cast<uint8_t>(r | (in.ftz ? 4 : 0) | (st == ScalarType::F64 ? kFlF2ISource64 : 0));
      m.c = typeCode(in.dstBytes, false);
      return emit(m);
    }
    if (fd && fs) {  // float -> float: small conversion units
      const bool integral = t.has("rni") || t.has("rzi") || t.has("rmi") || t.has("rpi");
      uint8_t flags = static_cast<uint8_t>((in.ftz ? kFlFtz : 0) | (in.sat ? kFlSat : 0) | t.rounding() << 2);
      if (dt == ScalarType::F32 && st == ScalarType::F32) {
        only(pc, t, {"rni", "rzi", "rmi", "rpi", "ftz", "sat"});
        if (integral) {
          m.op = MOp::FRndI;
        } else {  // ftz/sat/NaN canonicalisation only: x + (-0) is exact for every x
          m.op = MOp::FAdd;
          m.b = constant(pc, 0x80000000u);
        }
        m.ty = typeCode(4, false);
        m.fl = flags;
        return emit(m);
      }
      if (dt == ScalarType::F16 && st == ScalarType::F32 && in.dstBytes == 2) {
        only(pc, t, {"rn", "rz", "rm", "rp", "ftz", "sat"});
        m.op = MOp::F2H;
        m.ty = typeCode(2, false);
        m.fl = flags;
        return emit(m);
      }
      if (dt == ScalarType::F32 && st == ScalarType::F16) {
        only(pc, t, {"ftz", "sat"});
        m.op = MOp::H2F;
        m.ty = typeCode(2, false);
        m.fl = flags;
        return emit(m);
      }
      if (dt == ScalarType::F32 && st == ScalarType::F64) {
        only(pc, t, {"rn", "rz", "rm", "rp", "ftz", "sat"});
        m.op = MOp::D2F;
        m.ty = typeCode(8, false);
        m.fl = flags;
        return emit(m);
      }
      if (dt == ScalarType::F64 && st == ScalarType::F32) {
        only(pc, t, {"ftz"});
        m.op = MOp::F2D;
        m.ty = typeCode(4, false);
        m.fl = flags;
        return emit(m);
      }
    }
    fail(pc, fmt::format("'{}' is not lowered (the machine converts between integers, integer->f32/f64, "
                         "f32/f64->integer, f32<->f16, f32->f32 and f32<->f64)", p_.opcodeText[pc]));
  }

  const Program& p_;
  const FunctionInfo& f_;
  const InlinedKernel* inlined_ = nullptr;  // a kernel whose calls were inlined
  std::optional<RegisterSharing> sharing_;       // inlined kernels only
  std::vector<std::vector<uint32_t>> regOwners_;  // per machine register: the instances of its slots
  Dataflow df_;
  std::vector<MInstr> code_;
  std::vector<uint64_t> constants_;
  std::vector<std::string> regNames_;
  std::map<uint32_t, uint16_t> regOf_;
  std::vector<uint32_t> ptxPc_;
  std::vector<uint64_t> globalAddr_;
  uint16_t mulT_ = kNoOperand, mulU_ = kNoOperand, dsigA_ = kNoOperand, dsigB_ = kNoOperand, dmulHi_ = kNoOperand,
           dq_ = kNoOperand, dr0_ = kNoOperand, dr1_ = kNoOperand, dn_ = kNoOperand;
  uint16_t div64Q_ = kNoOperand, div64R0_ = kNoOperand, div64R1_ = kNoOperand;
  uint16_t fstate_ = kNoOperand, divState_ = kNoOperand, carryProduct_ = kNoOperand, carryNext_ = kNoOperand, bfiPack_ = kNoOperand;
  uint64_t globalsEnd_ = kGlobalStart;
};

}  // namespace

MachineProgram lowerKernel(const Program& program, const std::string& entry) {
  const uint32_t index = program.findEntry(entry);
  if (hasCalls(program, index)) {
    const InlinedKernel flat = inlineCalls(program, index);
    return Lowerer(flat).run();
  }
  return Lowerer(program, program.functions[index]).run();
}

}  // namespace qgpu::machine
