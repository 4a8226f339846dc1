// PTX -> machine lowering (docs/machine.md §2). Works on the oracle's decoded program:
// operands are register-file slots, immediates are constant slots, branch targets and
// reconvergence points are already resolved. One PTX instruction becomes one machine
// instruction, except vector ld/st (one LD/ST per element) and instructions the dataflow
// pass proves unnecessary (dropped). Calls are inlined first (inline.h). Anything else is an
// error naming the instruction. The lowering of an instruction is chosen by its opcode
// (Instr::opcode, from interp's ptx_isa.def) in lowerings(); it reads the typed form
// (Instr::types, Instr::mods, the public encodings of Instr::mode), never the opcode text.
#include "qgpu/machine/lower.h"

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "dataflow.h"
#include "inline.h"
#include "register_allocation.h"
#include "qgpu/machine/units.h"
#include "qgpu/interp/address_space.h"
#include "qgpu/interp/error.h"
#include "qgpu/interp/isa.h"
#include "qgpu/interp/types.h"

namespace qgpu::machine {
namespace {

/// Thrown where a kernel's micro-code inlined does not fit the ROM: lowerKernel lowers it
/// again with shared routines (LowerOptions::shareMicroCode).
struct RomOverflow {};

bool has(const Instr& in, Mod m) { return in.mods.has(m); }
/// An explicit .rn/.rz/.rm/.rp.
bool hasRounding(const Instr& in) { return in.mods.hasAny({Mod::Rn, Mod::Rz, Mod::Rm, Mod::Rp}); }
/// Rounding-mode field of float ops (0 rn, 1 rz, 2 rm, 3 rp), from .rn/.rz/.rm/.rp or the
/// round-to-integral .rni/.rzi/.rmi/.rpi; 0 when there is none.
uint8_t roundingField(const Instr& in) {
  return has(in, Mod::Rz) || has(in, Mod::Rzi) ? 1 : has(in, Mod::Rm) || has(in, Mod::Rmi) ? 2
       : has(in, Mod::Rp) || has(in, Mod::Rpi) ? 3 : 0;
}

/// Modifiers of ld/st/atom that do not change what the machine does: caching, ordering and
/// scope hints, state spaces (Instr::space has them), vector width (Instr::count).
const ModSet& memoryHints() {
  static const ModSet kHints = memoryHintMods() | ModSet{Mod::Global, Mod::Shared, Mod::Local, Mod::Const,
                                                         Mod::Param, Mod::SharedCta, Mod::ParamEntry, Mod::V2,
                                                         Mod::V4, Mod::Sync, Mod::Uni};
  return kHints;
}

// Machine encodings of the oracle's public ones (program.h): SETP's compare code (MCmp),
// FSETP's 4-bit code (eq..ge 0-5, equ..geu 6-11, num 12, nan 13), ATOM's operation (MAtom),
// SHFL's mode (fl: 0 up, 1 down, 2 bfly, 3 idx) and VOTE's (fl: 0 all, 1 any, 2 uni,
// 3 ballot; core.cpp).
MCmp machineCmp(CmpOp c) {
  constexpr MCmp kCmp[] = {MCmp::Eq,  MCmp::Ne,  MCmp::Lt,  MCmp::Le,  MCmp::Gt,  MCmp::Ge,
                           MCmp::Lo,  MCmp::Ls,  MCmp::Hi,  MCmp::Hs,  MCmp::Equ, MCmp::Neu,
                           MCmp::Ltu, MCmp::Leu, MCmp::Gtu, MCmp::Geu, MCmp::Num, MCmp::Nan};
  static_assert(std::size(kCmp) == static_cast<size_t>(CmpOp::Nan) + 1);
  return kCmp[static_cast<size_t>(c)];
}
uint8_t floatCompareCode(CmpOp c) {
  const uint8_t code = static_cast<uint8_t>(machineCmp(c));
  return c <= CmpOp::Ge ? code : static_cast<uint8_t>(code - 4);  // no lo/ls/hi/hs for floats
}
MAtom machineAtom(AtomOp op) {
  constexpr MAtom kAtom[] = {MAtom::And, MAtom::Or,  MAtom::Xor, MAtom::Cas, MAtom::Exch,
                             MAtom::Add, MAtom::Inc, MAtom::Dec, MAtom::Min, MAtom::Max};
  static_assert(std::size(kAtom) == static_cast<size_t>(AtomOp::Max) + 1);
  return kAtom[static_cast<size_t>(op)];
}
uint8_t shflCode(ShflMode m) {
  switch (m) {
    case ShflMode::Up: return 0;
    case ShflMode::Down: return 1;
    case ShflMode::Bfly: return 2;
    case ShflMode::Idx: return 3;
  }
  return 3;
}
uint8_t voteCode(VoteMode m) {
  switch (m) {
    case VoteMode::All: return 0;
    case VoteMode::Any: return 1;
    case VoteMode::Uni: return 2;
    case VoteMode::Ballot: return 3;
  }
  return 3;
}

class Lowerer {
 public:
  Lowerer(const Program& p, const FunctionInfo& f, const LowerOptions& options) : p_(p), f_(f), options_(options) {}
  /// A kernel whose calls were inlined (inline.h): instructions are described by the oracle pc
  /// they come from.
  Lowerer(const InlinedKernel& k, const LowerOptions& options)
      : p_(k.program), f_(k.program.functions[k.function]), options_(options), inlined_(&k) {}

  MachineProgram run() {
    const uint32_t n = f_.endPc - f_.entryPc;
    std::vector<bool> pure(n), copy(n);
    std::set<uint32_t> carrySlots;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t pc = f_.entryPc + i;
      const Instr& in = p_.code[pc];
      if (in.flow == Flow::Call && in.mode != kMachineCall && in.mode != kCallEnd)
        fail(pc, "internal: a call was not inlined");
      const Opcode op = in.opcode;
      const bool sideEffects = op == Opcode::St || op == Opcode::Atom || op == Opcode::Red || op == Opcode::Membar ||
                               op == Opcode::Fence || op == Opcode::Prefetch || op == Opcode::Nanosleep ||
                               op == Opcode::Bar || op == Opcode::Barrier;
      // Carry arithmetic also writes CC.CF, which is not a destination slot.
      bool carry = has(in, Mod::Cc) || op == Opcode::Addc || op == Opcode::Subc || op == Opcode::Madc;
      pure[i] = in.flow == Flow::None && !sideEffects && !carry;
      if (carry) carrySlots.insert(in.s[3]);
      // cvta between generic and global is the identity in the machine's map (global
      // addresses are generic addresses), so it is a copy like mov.
      bool cvtaGlobal = op == Opcode::Cvta && has(in, Mod::Global) && in.typeBytes == 8;
      copy[i] = (in.opcode == Opcode::Mov || cvtaGlobal) && in.guard == kNoSlot && in.count == 0 &&
                in.imm == 0 && in.d[0] != kNoSlot && copyWidthOk(in);
    }
    // An inlined callee's CC.CF may be zeroed by a mov at the call (inline.cpp); carry
    // arithmetic writes it without naming it as a destination, so it is no copy target.
    for (uint32_t i = 0; i < n; ++i)
      if (copy[i] && carrySlots.count(p_.code[f_.entryPc + i].d[0])) copy[i] = false;
    df_ = analyzeFunction(p_, f_, pure, copy);
    if (inlined_) sharing_.emplace(*inlined_, df_);
    windows_ = windowLayout(f_.kernelParamBytes, p_.constBytes, f_.localBytes,
                            uint64_t{p_.dynamicSharedOffset} + options_.dynamicSharedBytes);
    uint64_t next = windows_.globalStart;
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
    if (options_.launch) {
      lowerLaunchSpecials(*options_.launch);
      ptxPc_.assign(code_.size(), oraclePc(f_.entryPc));
    }
    for (uint32_t i = 0; i < n; ++i) {
      firstMpc[i] = static_cast<uint32_t>(code_.size());
      if (df_.dropped[i]) continue;
      size_t before = code_.size();
      lowerOne(f_.entryPc + i);
      for (size_t k = before; k < code_.size(); ++k) {
        ptxPc_.push_back(oraclePc(f_.entryPc + i));
        if ((code_[k].op == MOp::Bra || code_[k].op == MOp::Call) && !microBranches_.count(k))
          branchFix.push_back({k, f_.entryPc + i});
      }
    }
    firstMpc[n] = static_cast<uint32_t>(code_.size());
    emitRoutines();
    if (code_.size() > kMaxCode && sharable_ && !options_.shareMicroCode) throw RomOverflow{};
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
    mp.unallocatedRegs = mp.numRegs;
    if (options_.allocateRegisters) allocateRegisters(mp);
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
    mp.windows = windows_;
    mp.dynamicSharedBytes = options_.dynamicSharedBytes;
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
        addSharedName(regNames_[r], regOwners_[r].size(), name);
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
  /// The i-th scratch register of the ALU micro-codes (mul24, sad, dp, bfi, prmt, mul.hi.64,
  /// f64 min/max, division, atomics, f32 div/sqrt, mul.f64, conversions): shared like the
  /// temporaries above.
  uint16_t scratch(uint32_t pc, uint32_t i) {
    if (i >= scratch_.size()) fail(pc, "internal: micro-code scratch register out of range");
    return sharedTemporary(pc, scratch_[i], fmt::format("micro.t{}", i).c_str());
  }
  /// The value of a ROM-constant operand.
  std::optional<uint64_t> constantOf(uint16_t operand) const {
    if (operand < kConstBase || operand >= kSpecialBase) return std::nullopt;
    return constants_[operand - kConstBase];
  }
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
    if (auto it = launchSpecial_.find(r); it != launchSpecial_.end()) return it->second;
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
    return specialOperand(m);
  }

  // For a known launch shape (LowerOptions::launch): the sizes become ROM constants, and each
  // %tid/%ctaid component the kernel reads is computed once at its start from the linear index
  // (x < the count of threads or blocks: a bound up to which every step below is exact).
  struct Bounded {
    uint16_t operand;
    uint64_t bound;  // the value lies in [0, bound)
  };
  uint16_t prologueStep(MOp op, const std::string& name, uint16_t a, uint16_t b, uint16_t c = kNoOperand) {
    MInstr m;
    m.op = op;
    m.ty = typeCode(4, false);
    m.d = temporary(f_.entryPc, name);
    m.a = a;
    m.b = b;
    m.c = c;
    emit(m);
    return m.d;
  }
  Bounded quotient(Bounded x, uint64_t d, const std::string& name) {
    if (d == 1) return x;
    if (x.bound <= d) return {specialOperand(MSpecial::Zero), 1};
    const uint64_t bound = (x.bound + d - 1) / d;
    if (std::has_single_bit(d))
      return {prologueStep(MOp::Shr, name, x.operand, constant(f_.entryPc, std::countr_zero(d))), bound};
    // floor(x * ceil(2^32 / d) / 2^32) = floor(x / d) while x * (ceil(2^32 / d) * d - 2^32) < 2^32.
    const uint64_t m = ((uint64_t{1} << 32) + d - 1) / d;
    if ((x.bound - 1) * (m * d - (uint64_t{1} << 32)) >= (uint64_t{1} << 32))
      failModule(fmt::format("{} / {} by a reciprocal is not exact below {}", name, d, x.bound));
    return {prologueStep(MOp::MulHi, name, x.operand, constant(f_.entryPc, m)), bound};
  }
  Bounded remainder(Bounded x, uint64_t d, const std::string& name) {
    if (x.bound <= d) return x;
    if (d == 1) return {specialOperand(MSpecial::Zero), 1};
    if (std::has_single_bit(d)) return {prologueStep(MOp::And, name, x.operand, constant(f_.entryPc, d - 1)), d};
    Bounded q = quotient(x, d, name + ".quotient");
    // x - q * d as q * (2^32 - d) + x, modulo 2^32.
    return {prologueStep(MOp::MadLo, name, q.operand, constant(f_.entryPc, (uint64_t{1} << 32) - d), x.operand), d};
  }
  // Component `axis` of the linear index x over sizes `dims`.
  Bounded component(Bounded x, const std::array<uint32_t, 3>& dims, int axis, const std::string& name) {
    if (axis == 0) return remainder(x, dims[0], name);
    if (axis == 1) return remainder(quotient(x, dims[0], name + ".row"), dims[1], name);
    return quotient(x, uint64_t{dims[0]} * dims[1], name);
  }
  void lowerLaunchSpecials(const LaunchShape& shape) {
    const std::array<uint32_t, 3> grid{shape.grid.x, shape.grid.y, shape.grid.z};
    const std::array<uint32_t, 3> blockDims{shape.block.x, shape.block.y, shape.block.z};
    const uint64_t threads = shape.block.count(), blocks = shape.grid.count();
    const Bounded thread{specialOperand(MSpecial::ThreadIndex), threads};
    const Bounded block{specialOperand(MSpecial::BlockIndex), blocks};
    for (const auto& [slot, r] : f_.specials) {
      if (launchSpecial_.count(r)) continue;
      uint16_t o;
      switch (r) {
        case SpecialReg::TidX: o = component(thread, blockDims, 0, "%tid.x").operand; break;
        case SpecialReg::TidY: o = component(thread, blockDims, 1, "%tid.y").operand; break;
        case SpecialReg::TidZ: o = component(thread, blockDims, 2, "%tid.z").operand; break;
        case SpecialReg::CtaidX: o = component(block, grid, 0, "%ctaid.x").operand; break;
        case SpecialReg::CtaidY: o = component(block, grid, 1, "%ctaid.y").operand; break;
        case SpecialReg::CtaidZ: o = component(block, grid, 2, "%ctaid.z").operand; break;
        case SpecialReg::NtidX: o = constant(f_.entryPc, shape.block.x); break;
        case SpecialReg::NtidY: o = constant(f_.entryPc, shape.block.y); break;
        case SpecialReg::NtidZ: o = constant(f_.entryPc, shape.block.z); break;
        case SpecialReg::NctaidX: o = constant(f_.entryPc, shape.grid.x); break;
        case SpecialReg::NctaidY: o = constant(f_.entryPc, shape.grid.y); break;
        case SpecialReg::NctaidZ: o = constant(f_.entryPc, shape.grid.z); break;
        case SpecialReg::NWarpId: o = constant(f_.entryPc, (threads + kLanes - 1) / kLanes); break;
        default: continue;  // the lane's and warp's own (laneid, warpid, lanemasks, WARP_SZ, zero)
      }
      launchSpecial_[r] = o;
    }
  }

  /// An absolute address immediate of the oracle's layout, in the machine's layout.
  uint64_t remapAddress(uint32_t pc, uint64_t v) {
    struct W { uint64_t oracle, machine; };
    for (W w : {W{kSharedWindowBase, kSharedWindow + windows_.shared}, W{kLocalWindowBase, kLocalWindow + windows_.local},
                W{kConstWindowBase, kConstWindow + windows_.konst}, W{kParamWindowBase, kParamWindow + windows_.param}}) {
      if (v >= w.oracle && v < w.oracle + qgpu::kWindowBytes) {
        if (v - w.oracle + (w.machine % machine::kWindowBytes) >= machine::kWindowBytes)
          fail(pc, "address beyond the machine's 16 MiB window");
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
  /// The b operand of an access of space s at [base + imm]: the space's window base
  /// (windowLayout) plus imm, remapped where it is an absolute address (a zero base), so that
  /// a + b is the flat address; none for 0.
  uint16_t offsetOperand(uint32_t pc, MSpace s, uint32_t base, int64_t imm) {
    uint64_t v = static_cast<uint64_t>(imm);
    if (imm != 0 && isZeroBase(base)) v = remapAddress(pc, v);
    v += windowBase(windows_, s);
    return v == 0 ? kNoOperand : constant(pc, v);
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

  void only(uint32_t pc, const Instr& in, ModSet allowed, bool hints = false) {
    const ModSet extra = in.mods.without(hints ? allowed | memoryHints() : allowed);
    if (!extra.empty())
      fail(pc, fmt::format("modifier .{} of '{}' is not lowered", modName(extra.first()), opcodeName(in.opcode)));
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

  ScalarType oneType(uint32_t pc, const Instr& in) {
    if (in.typeCount == 0) fail(pc, "no type");
    return in.type();
  }
  uint8_t ty(ScalarType t) { return typeCode(scalarTypeBytes(t), isSigned(t)); }
  void requireF32(uint32_t pc, ScalarType t) {
    if (t == ScalarType::F64) fail(pc, "this f64 operation is not lowered (f64 add sub mul fma div rcp sqrt min max neg abs are)");
    if (t != ScalarType::F32) fail(pc, fmt::format(".{} floating point is not lowered", scalarTypeName(t)));
  }
  uint8_t floatFlags(uint32_t pc, const Instr& in, bool allowSat) {
    only(pc, in, {Mod::Rn, Mod::Rz, Mod::Rm, Mod::Rp, Mod::Ftz, Mod::Sat});
    if (has(in, Mod::Sat) && !allowSat) fail(pc, ".sat is not lowered here");
    return static_cast<uint8_t>((has(in, Mod::Ftz) ? kFlFtz : 0) | (has(in, Mod::Sat) ? kFlSat : 0) | roundingField(in) << 2);
  }

  /// div/rcp/sqrt .approx and div.full: their bits are the oracle's model, not a specification.
  void rejectApproximate(uint32_t pc, const Instr& in) {
    if (has(in, Mod::Approx) || has(in, Mod::Full))
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

  using Lowering = void (Lowerer::*)(uint32_t pc, const Instr& in);
  /// The lowering of each opcode (Instr::opcode); none: the instruction is not lowered.
  static const std::array<Lowering, static_cast<size_t>(Opcode::Count)>& lowerings() {
    static const auto table = [] {
      std::array<Lowering, static_cast<size_t>(Opcode::Count)> t{};
      auto set = [&t](std::initializer_list<Opcode> ops, Lowering f) {
        for (Opcode op : ops) t[static_cast<size_t>(op)] = f;
      };
      set({Opcode::Add, Opcode::Sub}, &Lowerer::lowerAddSub);
      set({Opcode::Mul, Opcode::Mad, Opcode::Fma}, &Lowerer::lowerMulMad);
      set({Opcode::And, Opcode::Or, Opcode::Xor, Opcode::Not}, &Lowerer::lowerLogic);
      set({Opcode::Shl, Opcode::Shr}, &Lowerer::lowerShift);
      set({Opcode::Min, Opcode::Max, Opcode::Neg, Opcode::Abs}, &Lowerer::lowerMinMaxNegAbs);
      set({Opcode::Setp}, &Lowerer::lowerSetp);
      set({Opcode::Selp}, &Lowerer::lowerSelp);
      set({Opcode::Mov}, &Lowerer::lowerMov);
      set({Opcode::Cvta}, &Lowerer::lowerCvta);
      set({Opcode::Cvt}, &Lowerer::lowerCvt);
      set({Opcode::Ld, Opcode::Ldu}, &Lowerer::lowerLd);
      set({Opcode::St}, &Lowerer::lowerSt);
      set({Opcode::Shfl}, &Lowerer::lowerShfl);
      set({Opcode::Vote}, &Lowerer::lowerVote);
      set({Opcode::Div, Opcode::Rem}, &Lowerer::lowerDivRem);
      set({Opcode::Mul24, Opcode::Mad24}, &Lowerer::lowerMul24);
      set({Opcode::Sad}, &Lowerer::lowerSad);
      set({Opcode::Dp4a, Opcode::Dp2a}, &Lowerer::lowerDp);
      set({Opcode::Popc, Opcode::Clz, Opcode::Brev, Opcode::Bfind}, &Lowerer::lowerBitCount);
      set({Opcode::Bfe}, &Lowerer::lowerBfe);
      set({Opcode::Bfi}, &Lowerer::lowerBfi);
      set({Opcode::Shf}, &Lowerer::lowerShf);
      set({Opcode::Prmt}, &Lowerer::lowerPrmt);
      set({Opcode::Bmsk}, &Lowerer::lowerBmsk);
      set({Opcode::Atom, Opcode::Red}, &Lowerer::lowerAtom);
      set({Opcode::Addc, Opcode::Subc, Opcode::Madc}, &Lowerer::lowerCarry);
      set({Opcode::Rcp, Opcode::Sqrt}, &Lowerer::lowerFDivSqrt);
      set({Opcode::Membar, Opcode::Fence}, &Lowerer::lowerFence);
      set({Opcode::Bar, Opcode::Barrier}, &Lowerer::lowerBarrier);
      set({Opcode::Bra}, &Lowerer::lowerBranch);
      set({Opcode::Call}, &Lowerer::lowerCall);
      set({Opcode::Ret, Opcode::Exit}, &Lowerer::lowerExit);
      return t;
    }();
    return table;
  }

  void lowerOne(uint32_t pc) {
    const Instr& in = p_.code[pc];
    for (uint32_t d : in.d)
      if (d != kNoSlot && df_.resolve(d) != d) fail(pc, "internal: write to a substituted register");
    const Lowering f = lowerings()[static_cast<size_t>(in.opcode)];
    if (!f) fail(pc, fmt::format("'{}' is not lowered", p_.opcodeText[pc]));
    (this->*f)(pc, in);
  }

  void lowerAddSub(uint32_t pc, const Instr& in) {
    if (has(in, Mod::Cc)) return lowerCarry(pc, in);
    ScalarType ty0 = oneType(pc, in);
    if (ty0 == ScalarType::F64) return lowerDAdd(pc, in);
    if (isFloat(ty0)) {
      requireF32(pc, ty0);
      return alu(pc, in, in.opcode == Opcode::Add ? MOp::FAdd : MOp::FSub, ty(ty0), floatFlags(pc, in, true), 2);
    }
    only(pc, in, {});
    return alu(pc, in, in.opcode == Opcode::Add ? MOp::Add : MOp::Sub, ty(ty0), 0, 2);
  }

  void lowerMulMad(uint32_t pc, const Instr& in) {
    if (in.opcode == Opcode::Mad && has(in, Mod::Cc)) return lowerCarry(pc, in);
    ScalarType ty0 = oneType(pc, in);
    int nsrc = in.opcode == Opcode::Mul ? 2 : 3;
    if (ty0 == ScalarType::F64 && in.opcode == Opcode::Mul) return lowerDMul(pc, in);
    if (ty0 == ScalarType::F64 && (in.opcode == Opcode::Fma || (in.opcode == Opcode::Mad && hasRounding(in))))
      return lowerDFma(pc, in);
    if (isFloat(ty0)) {
      requireF32(pc, ty0);
      if (in.opcode == Opcode::Mad && !hasRounding(in)) fail(pc, "mad.f32 without rounding (the sm_1x form) is not lowered");
      return alu(pc, in, in.opcode == Opcode::Mul ? MOp::FMul : MOp::FFma, ty(ty0), floatFlags(pc, in, true), nsrc);
    }
    if (in.opcode == Opcode::Fma) fail(pc, "integer fma does not exist");
    if (has(in, Mod::Lo)) {
      only(pc, in, {Mod::Lo});
      if (scalarTypeBytes(ty0) == 8)
        return mul64(pc, in, operand(pc, in.s[0]), operand(pc, in.s[1]),
                     nsrc == 3 ? operand(pc, in.s[2]) : kNoOperand, operand(pc, in.d[0]));
      return alu(pc, in, nsrc == 2 ? MOp::MulLo : MOp::MadLo, ty(ty0), 0, nsrc);
    }
    if (has(in, Mod::Wide)) {
      only(pc, in, {Mod::Wide});
      return alu(pc, in, nsrc == 2 ? MOp::MulWide : MOp::MadWide, ty(ty0), 0, nsrc);
    }
    if (has(in, Mod::Hi) && in.opcode == Opcode::Mul) {
      only(pc, in, {Mod::Hi});
      if (scalarTypeBytes(ty0) == 8)
        return mulHigh64(pc, in, isSigned(ty0), operand(pc, in.s[0]), operand(pc, in.s[1]), operand(pc, in.d[0]));
      return alu(pc, in, MOp::MulHi, ty(ty0), 0, 2);
    }
    fail(pc, fmt::format("'{}' form is not lowered", p_.opcodeText[pc]));
  }

  void lowerLogic(uint32_t pc, const Instr& in) {
    only(pc, in, {});
    ScalarType ty0 = oneType(pc, in);
    MOp op = in.opcode == Opcode::And ? MOp::And : in.opcode == Opcode::Or ? MOp::Or : in.opcode == Opcode::Xor ? MOp::Xor : MOp::Not;
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

  void lowerShift(uint32_t pc, const Instr& in) {
    only(pc, in, {});
    return alu(pc, in, in.opcode == Opcode::Shl ? MOp::Shl : MOp::Shr, ty(oneType(pc, in)), 0, 2);
  }

  void lowerMinMaxNegAbs(uint32_t pc, const Instr& in) {
    ScalarType ty0 = oneType(pc, in);
    bool unary = in.opcode == Opcode::Neg || in.opcode == Opcode::Abs;
    if (ty0 == ScalarType::F64) {
      only(pc, in, {});
      if (!unary) return f64MinMax(pc, in, in.opcode == Opcode::Max);
      // abs.f64 / neg.f64 are bit operations on the sign, NaNs included (docs/semantics.md).
      MInstr m = base(pc, in.opcode == Opcode::Abs ? MOp::And : MOp::Xor, in);
      m.ty = typeCode(8, false);
      m.d = operand(pc, in.d[0]);
      m.a = operand(pc, in.s[0]);
      m.b = constant(pc, in.opcode == Opcode::Abs ? 0x7fffffffffffffffull : 0x8000000000000000ull);
      return emit(m);
    }
    if (isFloat(ty0)) {
      requireF32(pc, ty0);
      only(pc, in, {Mod::Ftz});
      MOp op = in.opcode == Opcode::Min ? MOp::FMin : in.opcode == Opcode::Max ? MOp::FMax : in.opcode == Opcode::Neg ? MOp::FNeg : MOp::FAbs;
      return alu(pc, in, op, ty(ty0), has(in, Mod::Ftz) ? kFlFtz : 0, unary ? 1 : 2);
    }
    only(pc, in, {});
    if (!unary && scalarTypeBytes(ty0) == 8) {
      // 8-byte MIN and MAX: a compare and a select (SETP, SELP), both ALU steps of every
      // width; the lane-serial MIN/MAX's result is 32 bits wide (docs/machine.md §5.1).
      const uint16_t p = sharedTemporary(pc, minMaxPick_, "minmax.pick_a");
      const uint16_t a = operand(pc, in.s[0]), b = operand(pc, in.s[1]);
      const MCmp keepA = in.opcode == Opcode::Min ? MCmp::Le : MCmp::Ge;  // by the type's signedness
      emitStep(pc, in, MOp::Setp, ty(ty0), static_cast<uint8_t>(keepA), p, a, b, kNoOperand);
      return emitStep(pc, in, MOp::Selp, ty(ty0), 0, operand(pc, in.d[0]), a, b, p);
    }
    MOp op = in.opcode == Opcode::Min ? MOp::Min : in.opcode == Opcode::Max ? MOp::Max : in.opcode == Opcode::Neg ? MOp::Neg : MOp::Abs;
    return alu(pc, in, op, ty(ty0), 0, unary ? 1 : 2);
  }

  // min.f64 / max.f64 as integer micro-code (the lane-serial FMIN/FMAX result is 32 bits,
  // docs/machine.md §2.1): the order of keys x ^ ((x >>s 63) >>u 1) as signed integers is
  // the floats' order with -0 below +0; then a NaN operand gives the other one, two the
  // canonical NaN (as the executor's FMIN).
  void f64MinMax(uint32_t pc, const Instr& in, bool isMax) {
    const uint8_t u64 = typeCode(8, false), s64 = typeCode(8, true), u8 = typeCode(1, false);
    const uint16_t a = operand(pc, in.s[0]), b = operand(pc, in.s[1]);
    const uint16_t x = scratch(pc, 0), y = scratch(pc, 1), p = scratch(pc, 2), q = scratch(pc, 3);
    const uint16_t magnitude = constant(pc, 0x7fffffffffffffffull), infinity = constant(pc, 0x7ff0000000000000ull);
    auto key = [&](uint16_t v, uint16_t to) {
      emitStep(pc, in, MOp::Shr, s64, 0, to, v, constant(pc, 63), kNoOperand);
      emitStep(pc, in, MOp::Shr, u64, 0, to, to, constant(pc, 1), kNoOperand);
      emitStep(pc, in, MOp::Xor, u64, 0, to, to, v, kNoOperand);
    };
    key(a, x);
    key(b, y);
    emitStep(pc, in, MOp::Setp, s64, static_cast<uint8_t>(isMax ? MCmp::Ge : MCmp::Le), p, x, y, kNoOperand);
    emitStep(pc, in, MOp::Selp, u64, 0, x, a, b, p);
    emitStep(pc, in, MOp::And, u64, 0, y, a, magnitude, kNoOperand);  // a is a NaN: take b
    emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Hi), q, y, infinity, kNoOperand);
    emitStep(pc, in, MOp::Selp, u64, 0, x, b, x, q);
    emitStep(pc, in, MOp::And, u64, 0, y, b, magnitude, kNoOperand);  // b is a NaN: take a
    emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Hi), p, y, infinity, kNoOperand);
    emitStep(pc, in, MOp::Selp, u64, 0, x, a, x, p);
    emitStep(pc, in, MOp::And, u8, 0, q, q, p, kNoOperand);  // both: the canonical NaN
    return emitStep(pc, in, MOp::Selp, u64, 0, operand(pc, in.d[0]), magnitude, x, q);
  }

  void lowerSetp(uint32_t pc, const Instr& in) {
    ScalarType ty0 = oneType(pc, in);
    if (in.count != 0) fail(pc, "setp with a boolean combination (.and/.or/.xor) is not lowered");
    if (df_.live(in.d[1])) fail(pc, "setp with two destinations (p|q) is not lowered");
    MInstr m = base(pc, isFloat(ty0) ? MOp::FSetp : MOp::Setp, in);
    m.d = operand(pc, in.d[0]);
    m.a = operand(pc, in.s[0]);
    m.b = operand(pc, in.s[1]);
    if (isFloat(ty0)) {
      requireF32(pc, ty0);
      m.fl = floatCompareCode(in.cmp());  // ftz in ty bit 2
      m.ty = static_cast<uint8_t>(2 | (in.ftz ? 4 : 0));
    } else {
      if (ty0 == ScalarType::Pred) fail(pc, "setp on .pred is not lowered");
      m.fl = static_cast<uint8_t>(machineCmp(in.cmp()));
      m.ty = ty(ty0);
    }
    return emit(m);
  }

  void lowerSelp(uint32_t pc, const Instr& in) {
    only(pc, in, {});
    return alu(pc, in, MOp::Selp, ty(oneType(pc, in)), 0, 3);
  }

  void lowerMov(uint32_t pc, const Instr& in) {
    only(pc, in, {});
    if (in.count != 0) return in.s[1] != kNoSlot ? lowerMovPack(pc, in) : lowerMovUnpack(pc, in);
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

  // mov pack (mov.b64 d, {a, b}; .b32 of two .b16 or four .b8; .b64 of four .b16; .b16 of two
  // .b8): d = s0 | s1 << p | s2 << 2p | s3 << 3p, p the part's bits, as the interpreter's
  // packHandler. A register holds its value zero-extended to its width (docs/machine.md §1.1)
  // and the decoder takes only registers of the part's width, so only immediates (masked
  // here) and special registers in parts under 32 bits (a MOV of the part's width) need
  // masking. Two parts join as hi * 2^p + lo on the multiplier (MADLO at 2 or 4 bytes) for
  // p = 8 and 16, as SHL.u64 hi, 32 and OR for p = 32; four parts join pairwise into scratch
  // registers, then the halves. d is written last, so it may be any of the sources.
  void lowerMovPack(uint32_t pc, const Instr& in) {
    const uint32_t n = in.count, part = in.typeBytes / n;
    if ((n != 2 && n != 4) || part * n != in.typeBytes) fail(pc, "internal: a mov pack of an unexpected shape");
    const uint64_t mask = widthMask(part);
    std::array<uint16_t, 4> e{};
    for (uint32_t i = 0; i < n; ++i) {
      e[i] = operand(pc, in.s[i]);
      if (const auto k = constantOf(e[i])) {
        e[i] = constant(pc, *k & mask);
      } else if (e[i] >= kSpecialBase && part < 4) {
        const uint16_t t = scratch(pc, 3 + i);
        emitStep(pc, in, MOp::Mov, typeCode(part, false), 0, t, e[i], kNoOperand, kNoOperand);
        e[i] = t;
      }
    }
    const uint16_t d = operand(pc, in.d[0]);
    uint16_t v = n == 2 ? joinParts(pc, in, e[0], e[1], 8 * part, d)
                        : joinParts(pc, in, joinParts(pc, in, e[0], e[1], 8 * part, scratch(pc, 0)),
                                    joinParts(pc, in, e[2], e[3], 8 * part, scratch(pc, 1)), 16 * part, d);
    if (v != d) emitStep(pc, in, MOp::Mov, typeCode(in.typeBytes, false), 0, d, v, kNoOperand, kNoOperand);
  }
  /// lo | hi << bits (both below 2^bits, bits 8, 16 or 32) into `to`: one step, two for bits
  /// 32 with an unknown hi (the shift goes to a scratch register, so `to` may be lo or hi);
  /// a ROM constant (no step) when both are known.
  uint16_t joinParts(uint32_t pc, const Instr& in, uint16_t lo, uint16_t hi, uint32_t bits, uint16_t to) {
    const std::optional<uint64_t> klo = constantOf(lo), khi = constantOf(hi);
    if (klo && khi) return constant(pc, *klo | *khi << bits);
    const uint8_t wide = typeCode(2 * bits / 8, false);
    if (khi) {
      emitStep(pc, in, MOp::Or, wide, 0, to, lo, constant(pc, *khi << bits), kNoOperand);
    } else if (bits < 32) {
      emitStep(pc, in, MOp::MadLo, wide, 0, to, hi, constant(pc, uint64_t{1} << bits), lo);
    } else if (klo && *klo == 0) {
      emitStep(pc, in, MOp::Shl, wide, 0, to, hi, constant(pc, 32), kNoOperand);
    } else {
      const uint16_t shifted = scratch(pc, 2);
      emitStep(pc, in, MOp::Shl, wide, 0, shifted, hi, constant(pc, 32), kNoOperand);
      emitStep(pc, in, MOp::Or, wide, 0, to, shifted, lo, kNoOperand);
    }
    return to;
  }
  // mov unpack (mov.b64 {a, b}, d and the other pack shapes; `_` elements and dead ones are not
  // written): element i = (s >> i * p) & (2^p - 1), as the interpreter's unpackHandler, from a
  // register or an immediate (a MOV of the known part). One step each: the lowest a MOV of
  // the part's width, the highest an SHR of the packed width, an element that is the top of
  // the low 2 or 4 bytes an SHR of that width (SHR masks its operand to its width first);
  // the others (byte 2 of .b32, half 2 of .b64) an SHR and a MOV. An element whose register
  // is the source's is written last.
  void lowerMovUnpack(uint32_t pc, const Instr& in) {
    const uint32_t n = in.count, part = in.typeBytes / n, bits = 8 * part;
    if ((n != 2 && n != 4) || part * n != in.typeBytes) fail(pc, "internal: a mov unpack of an unexpected shape");
    const uint16_t v = operand(pc, in.s[0]);
    const std::optional<uint64_t> known = constantOf(v);
    const uint8_t partTy = typeCode(part, false), packedTy = typeCode(in.typeBytes, false);
    std::vector<uint32_t> order;
    for (int last = 0; last < 2; ++last)
      for (uint32_t i = 0; i < n; ++i)
        if (df_.live(in.d[i]) && (operand(pc, in.d[i]) == v) == (last == 1)) order.push_back(i);
    for (uint32_t i : order) {
      const uint16_t d = operand(pc, in.d[i]);
      const uint32_t at = bits * i;
      if (known) {
        emitStep(pc, in, MOp::Mov, partTy, 0, d, constant(pc, (*known >> at) & widthMask(part)), kNoOperand, kNoOperand);
      } else if (i == 0) {
        emitStep(pc, in, MOp::Mov, partTy, 0, d, v, kNoOperand, kNoOperand);
      } else if (i == n - 1) {
        emitStep(pc, in, MOp::Shr, packedTy, 0, d, v, constant(pc, at), kNoOperand);
      } else if (at + bits == 16 || at + bits == 32) {
        emitStep(pc, in, MOp::Shr, typeCode((at + bits) / 8, false), 0, d, v, constant(pc, at), kNoOperand);
      } else {
        const uint16_t t = scratch(pc, 0);
        emitStep(pc, in, MOp::Shr, packedTy, 0, t, v, constant(pc, at), kNoOperand);
        emitStep(pc, in, MOp::Mov, partTy, 0, d, t, kNoOperand, kNoOperand);
      }
    }
  }

  void lowerCvta(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::To, Mod::Global, Mod::Shared, Mod::Local, Mod::Const, Mod::Param});
    if (isZeroBase(in.s[0])) {  // cvta of a variable name: its generic address
      MInstr m = base(pc, MOp::Add, in);
      m.ty = typeCode(8, false);
      m.d = operand(pc, in.d[0]);
      m.a = operand(pc, in.s[0]);
      m.b = constant(pc, remapAddress(pc, static_cast<uint64_t>(in.imm)));
      return emit(m);
    }
    MSpace s = has(in, Mod::Global) ? MSpace::Global : has(in, Mod::Shared) ? MSpace::Shared
             : has(in, Mod::Local) ? MSpace::Local : has(in, Mod::Const) ? MSpace::Const : MSpace::Param;
    MInstr m = base(pc, MOp::Cvta, in);
    m.ty = typeCode(in.typeBytes, false);
    m.fl = static_cast<uint8_t>(static_cast<uint8_t>(s) | (has(in, Mod::To) ? kFlCvtaTo : 0));
    m.d = operand(pc, in.d[0]);
    m.a = operand(pc, in.s[0]);
    if (const uint64_t base = windowBase(windows_, s)) m.b = constant(pc, base);
    return emit(m);
  }

  void lowerLd(uint32_t pc, const Instr& in) {
    only(pc, in, {}, true);
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
      m.b = offsetOperand(pc, s, in.s[0], in.imm + int64_t{i} * in.typeBytes);
      m.c = typeCode(in.dstBytes, false);
      emit(m);
    }
    return;
  }

  void lowerSt(uint32_t pc, const Instr& in) {
    only(pc, in, {}, true);
    MSpace s = space(pc, in.space);
    for (uint32_t i = 0; i < in.count; ++i) {
      MInstr m = base(pc, MOp::St, in);
      m.ty = typeCode(in.typeBytes, false);
      m.fl = static_cast<uint8_t>(s);
      m.a = operand(pc, in.s[4]);
      m.b = offsetOperand(pc, s, in.s[4], in.imm + int64_t{i} * in.typeBytes);
      m.c = operand(pc, in.s[i]);
      emit(m);
    }
    return;
  }

  void lowerShfl(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::Sync, Mod::Up, Mod::Down, Mod::Bfly, Mod::Idx});
    if (df_.live(in.d[1])) fail(pc, "shfl's predicate output is not lowered");
    MInstr m = base(pc, MOp::Shfl, in);
    m.ty = typeCode(4, false);
    m.fl = shflCode(in.shflMode());
    m.d = operand(pc, in.d[0]);
    m.a = operand(pc, in.s[0]);
    m.b = operand(pc, in.s[1]);
    m.c = operand(pc, in.s[2]);
    // The membermask only decides whether the shuffle is defined (every member must take
    // part); the machine takes the executing lanes as the members and does not read it.
    return emit(m);
  }

  void lowerVote(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::Sync, Mod::All, Mod::Any, Mod::Uni, Mod::Ballot});
    MInstr m = base(pc, MOp::Vote, in);
    m.ty = typeCode(in.voteMode() == VoteMode::Ballot ? 4 : 1, false);
    m.fl = static_cast<uint8_t>(voteCode(in.voteMode()) | ((in.imm & 1) ? 4 : 0));  // bit 2: predicate negated
    m.d = operand(pc, in.d[0]);
    m.a = operand(pc, in.s[0]);
    m.b = operand(pc, in.s[1]);
    return emit(m);
  }

  void lowerDivRem(uint32_t pc, const Instr& in) {
    ScalarType ty0 = oneType(pc, in);
    if (isFloat(ty0)) return lowerFDivSqrt(pc, in);
    only(pc, in, {});
    if (scalarTypeBytes(ty0) == 8) return lowerDiv64(pc, in, ty0, in.opcode == Opcode::Rem);
    if (scalarTypeBytes(ty0) != 4) fail(pc, "integer division is lowered for 32- and 64-bit types only");
    return lowerDivRem32(pc, in, isSigned(ty0), in.opcode == Opcode::Rem);
  }

  /// One micro-code step with a guard of its own (a micro-code predicate): it writes only
  /// scratch registers, so lanes that the PTX instruction's guard turns off may run it on
  /// stale values; d is written by steps under the instruction's guard.
  void emitGuardedBy(uint16_t guard, MOp op, uint8_t tyCode, uint16_t d, uint16_t a, uint16_t b, uint8_t fl = 0,
                     uint16_t c = kNoOperand) {
    MInstr m;
    m.op = op;
    m.ty = tyCode;
    m.fl = fl;
    m.d = d;
    m.a = a;
    m.b = b;
    m.c = c;
    m.g = guard;
    emit(m);
  }

  /// `count` repetitions of body() as a loop of `perPass` a pass (count a multiple of it): a
  /// counter and a BRA back, unguarded, so every running lane takes the same path and the
  /// branch never diverges (a lane the instruction's guard turns off runs the loop on stale
  /// scratch values). The ROM holds one pass; a pass costs three more steps.
  template <class Body>
  void microLoop(uint32_t pc, uint32_t count, uint32_t perPass, uint16_t counter, uint16_t p, Body body) {
    if (count % perPass) fail(pc, "internal: a micro-code loop's count is not a multiple of its pass");
    const uint8_t u32 = typeCode(4, false);
    emitGuardedBy(kNoGuard, MOp::Mov, u32, counter, constant(pc, 0), kNoOperand);
    const uint16_t start = static_cast<uint16_t>(code_.size());
    for (uint32_t i = 0; i < perPass; ++i) body();
    emitGuardedBy(kNoGuard, MOp::Add, u32, counter, counter, constant(pc, 1));
    emitGuardedBy(kNoGuard, MOp::Setp, u32, p, counter, constant(pc, count / perPass), static_cast<uint8_t>(MCmp::Lo));
    microBranches_.insert(code_.size());
    const uint16_t after = static_cast<uint16_t>(code_.size() + 1);
    emitGuardedBy(p, MOp::Bra, 0, kNoOperand, kNoOperand, start, 0, after);  // join: the loop's exit
  }

  // 32-bit div and rem are restoring division on T = R:Q (R, the partial remainder, in bits
  // 32-63; Q in bits 0-31: the dividend's bits not yet shifted out, then the quotient's), one
  // quotient bit in three ALU steps the compiled step runs (docs/machine.md §2.1):
  //   SETP.hs.u64 p, T, D      D = |b| << 31: "2R + Q's top bit >= |b|", asked before the shift
  //   SHL.u64     T, T, 1      (R never exceeds the number the dividend's bits shifted out so
  //                            far spell, below 2^k after k bits: the shift never wraps)
  //   @p SUB.u64  T, T, X      X = (|b| << 32) - 1: R - |b| and the quotient bit 1 at once
  // A 4-stage DIVSTEP unit is ~20 levels (no room in the step); this costs 96 steps a division.
  void lowerDivRem32(uint32_t pc, const Instr& in, bool sgn, bool rem) {
    const uint8_t u32 = typeCode(4, false), s32 = typeCode(4, true), u64 = typeCode(8, false);
    const uint16_t t = scratch(pc, 0), dd = scratch(pc, 1), x = scratch(pc, 2), p = scratch(pc, 3);
    const uint16_t signA = scratch(pc, 4), signB = scratch(pc, 5), d = operand(pc, in.d[0]);
    const uint16_t a = operand(pc, in.s[0]), b = operand(pc, in.s[1]);
    const std::optional<uint64_t> ka = constantOf(a), kb = constantOf(b);
    auto magnitude = [&](uint64_t v) {
      v &= 0xffffffffu;
      return sgn && (v >> 31) ? (0 - v) & 0xffffffffu : v;
    };
    if (kb && magnitude(*kb) == 0) return emitStep(pc, in, MOp::Mov, u32, 0, d, constant(pc, 0xffffffffu), kNoOperand, kNoOperand);
    // |a| into T (zero-extended: a 32-bit write keeps the register's high half 0), the sign
    // masks (all ones where negative) for the result's sign.
    if (ka) {
      emitStep(pc, in, MOp::Mov, u64, 0, t, constant(pc, magnitude(*ka)), kNoOperand, kNoOperand);
    } else if (sgn) {
      emitStep(pc, in, MOp::Shr, s32, 0, signA, a, constant(pc, 31), kNoOperand);
      emitStep(pc, in, MOp::Xor, u32, 0, t, a, signA, kNoOperand);
      emitStep(pc, in, MOp::Sub, u32, 0, t, t, signA, kNoOperand);
    } else {
      emitStep(pc, in, MOp::MulWide, u32, 0, t, a, constant(pc, 1), kNoOperand);
    }
    if (sgn && ka) emitStep(pc, in, MOp::Mov, u32, 0, signA, constant(pc, (*ka >> 31) & 1 ? 0xffffffffu : 0), kNoOperand, kNoOperand);
    uint16_t shifted = kNoOperand, minusBit = kNoOperand;
    if (kb) {
      shifted = constant(pc, magnitude(*kb) << 31);
      minusBit = constant(pc, (magnitude(*kb) << 32) - 1);
    } else {
      if (sgn) {
        emitStep(pc, in, MOp::Shr, s32, 0, signB, b, constant(pc, 31), kNoOperand);
        emitStep(pc, in, MOp::Xor, u32, 0, x, b, signB, kNoOperand);
        emitStep(pc, in, MOp::Sub, u32, 0, x, x, signB, kNoOperand);
      } else {
        emitStep(pc, in, MOp::MulWide, u32, 0, x, b, constant(pc, 1), kNoOperand);
      }
      emitStep(pc, in, MOp::Shl, u64, 0, dd, x, constant(pc, 31), kNoOperand);
      emitStep(pc, in, MOp::Shl, u64, 0, x, x, constant(pc, 32), kNoOperand);
      emitStep(pc, in, MOp::Sub, u64, 0, x, x, constant(pc, 1), kNoOperand);
      shifted = dd;
      minusBit = x;
    }
    if (sgn && kb) emitStep(pc, in, MOp::Mov, u32, 0, signB, constant(pc, (*kb >> 31) & 1 ? 0xffffffffu : 0), kNoOperand, kNoOperand);
    microLoop(pc, 32, 8, scratch(pc, 6), p, [&] {
      emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Hs), p, t, shifted, kNoOperand);
      emitStep(pc, in, MOp::Shl, u64, 0, t, t, constant(pc, 1), kNoOperand);
      emitGuardedBy(p, MOp::Sub, u64, t, t, minusBit);
    });
    if (rem) emitStep(pc, in, MOp::Shr, u64, 0, t, t, constant(pc, 32), kNoOperand);  // R
    return finishDivision(pc, in, 4, sgn, rem, t, signA, signB, kb ? kNoOperand : b, p);
  }

  /// The last steps of div/rem of `bytes` bytes: v (Q or R) negated where its sign says (the
  /// quotient's: the operands' signs differ; the remainder's: the dividend's), then all ones
  /// where the register divisor b is 0 (the interpreter's choice; kNoOperand: a known non-zero
  /// divisor); d written last.
  void finishDivision(uint32_t pc, const Instr& in, uint32_t bytes, bool sgn, bool rem, uint16_t v, uint16_t signA,
                      uint16_t signB, uint16_t b, uint16_t p) {
    const uint8_t w = typeCode(bytes, false);
    const uint16_t d = operand(pc, in.d[0]);
    const bool zeroCheck = b != kNoOperand;
    const uint16_t last = zeroCheck ? v : d;
    if (sgn) {
      uint16_t negate = signA;
      if (!rem) {
        emitStep(pc, in, MOp::Xor, w, 0, signB, signA, signB, kNoOperand);
        negate = signB;
      }
      emitStep(pc, in, MOp::Xor, w, 0, v, v, negate, kNoOperand);
      emitStep(pc, in, MOp::Sub, w, 0, last, v, negate, kNoOperand);
    } else if (!zeroCheck) {
      emitStep(pc, in, MOp::Mov, w, 0, d, v, kNoOperand, kNoOperand);
    }
    if (!zeroCheck) return;
    emitStep(pc, in, MOp::Setp, w, static_cast<uint8_t>(MCmp::Eq), p, b, constant(pc, 0), kNoOperand);
    return emitStep(pc, in, MOp::Selp, w, 0, d, constant(pc, widthMask(bytes)), v, p);
  }

  // mul24, mad24, sad, dp4a and dp2a are micro-code of shifts, masks, compares and 32-bit
  // products: the compiled step has ALU units for those, and no room at its widest layers
  // for a MUL24, SAD or DP unit (docs/machine.md §2.1; tools/machine_tables.py has the
  // token costs). A constant operand is extended at lowering instead of by steps.

  /// The low `bits` bits of `v` at bit `at`, sign- or zero-extended to 32 bits, in `t`
  /// (or a ROM constant when v is one). At most two steps.
  uint16_t field32(uint32_t pc, const Instr& in, uint16_t v, uint32_t at, uint32_t bits, bool sgn, uint16_t t) {
    const uint8_t u32 = typeCode(4, false), s32 = typeCode(4, true);
    if (auto k = constantOf(v)) {
      uint64_t x = (*k >> at) & ((uint64_t{1} << bits) - 1);
      if (sgn && (x >> (bits - 1))) x |= ~((uint64_t{1} << bits) - 1);
      return constant(pc, x & 0xffffffffu);
    }
    if (sgn) {
      const uint32_t up = 32 - bits - at;  // the field's top bit to bit 31, then back down
      if (up) emitStep(pc, in, MOp::Shl, u32, 0, t, v, constant(pc, up), kNoOperand);
      emitStep(pc, in, MOp::Shr, s32, 0, t, up ? t : v, constant(pc, 32 - bits), kNoOperand);
      return t;
    }
    if (at + bits == 32) {
      emitStep(pc, in, MOp::Shr, u32, 0, t, v, constant(pc, at), kNoOperand);
      return t;
    }
    if (at) emitStep(pc, in, MOp::Shr, u32, 0, t, v, constant(pc, at), kNoOperand);
    emitStep(pc, in, MOp::And, u32, 0, t, at ? t : v, constant(pc, (uint64_t{1} << bits) - 1), kNoOperand);
    return t;
  }

  void lowerMul24(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::Lo, Mod::Hi});
    const ScalarType ty0 = oneType(pc, in);
    const bool sgn = isSigned(ty0), high = has(in, Mod::Hi), mad = in.opcode == Opcode::Mad24;
    const uint8_t u32 = typeCode(4, false);
    // d = (a24 * b24 [>> 16]) + c, a24 and b24 the operands' low 24 bits extended.
    const uint16_t a = field32(pc, in, operand(pc, in.s[0]), 0, 24, sgn, scratch(pc, 0));
    const uint16_t b = field32(pc, in, operand(pc, in.s[1]), 0, 24, sgn, scratch(pc, 1));
    const uint16_t d = operand(pc, in.d[0]), c = mad ? operand(pc, in.s[2]) : kNoOperand;
    if (!high) return emitStep(pc, in, mad ? MOp::MadLo : MOp::MulLo, u32, 0, d, a, b, c);
    const uint16_t p = scratch(pc, 0);  // the 48-bit product (two's complement in 64 bits)
    emitStep(pc, in, MOp::MulWide, typeCode(4, sgn), 0, p, a, b, kNoOperand);
    emitStep(pc, in, MOp::Shr, typeCode(8, false), 0, p, p, constant(pc, 16), kNoOperand);
    if (!mad) return emitStep(pc, in, MOp::Mov, u32, 0, d, p, kNoOperand, kNoOperand);  // bits 16-47
    return emitStep(pc, in, MOp::Add, u32, 0, d, p, c, kNoOperand);
  }

  void lowerSad(uint32_t pc, const Instr& in) {
    only(pc, in, {});
    const ScalarType ty0 = oneType(pc, in);
    const uint8_t t = ty(ty0);
    const uint16_t a = operand(pc, in.s[0]), b = operand(pc, in.s[1]), c = operand(pc, in.s[2]);
    const uint16_t x = scratch(pc, 0), y = scratch(pc, 1), less = scratch(pc, 2);
    // d = c + (a < b ? b - a : a - b), the compare by the type's signedness, the rest modulo 2^width.
    emitStep(pc, in, MOp::Sub, t, 0, x, a, b, kNoOperand);
    emitStep(pc, in, MOp::Sub, t, 0, y, b, a, kNoOperand);
    emitStep(pc, in, MOp::Setp, t, static_cast<uint8_t>(MCmp::Lt), less, a, b, kNoOperand);
    emitStep(pc, in, MOp::Selp, t, 0, x, y, x, less);
    return emitStep(pc, in, MOp::Add, t, 0, operand(pc, in.d[0]), c, x, kNoOperand);
  }

  void lowerDp(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::Lo, Mod::Hi});
    const bool sa = isSigned(in.types[0]), sb = isSigned(in.types[1]), two = in.opcode == Opcode::Dp2a;
    // d = c + sum of products of a's bytes (dp2a: halves) by b's bytes (dp2a: bytes 0-1, or 2-3
    // for .hi), each extended by its operand's signedness; the sum modulo 2^32 (MADLO).
    const uint32_t parts = two ? 2 : 4, aBits = two ? 16 : 8, bFirst = two && has(in, Mod::Hi) ? 2 : 0;
    const uint16_t a = operand(pc, in.s[0]), b = operand(pc, in.s[1]), d = operand(pc, in.d[0]);
    uint16_t acc = operand(pc, in.s[2]);
    for (uint32_t i = 0; i < parts; ++i) {
      const uint16_t x = field32(pc, in, a, aBits * i, aBits, sa, scratch(pc, 0));
      const uint16_t y = field32(pc, in, b, 8 * (bFirst + i), 8, sb, scratch(pc, 1));
      const uint16_t to = i + 1 == parts ? d : scratch(pc, 2);
      emitStep(pc, in, MOp::MadLo, typeCode(4, false), 0, to, x, y, acc);
      acc = to;
    }
  }

  void lowerBitCount(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::Shiftamt});
    MOp op = in.opcode == Opcode::Popc ? MOp::Popc : in.opcode == Opcode::Clz ? MOp::Clz : in.opcode == Opcode::Brev ? MOp::Brev : MOp::Bfind;
    if (op != MOp::Bfind && scalarTypeBytes(oneType(pc, in)) == 8) return lowerBitCount64(pc, in, op);
    return alu(pc, in, op, ty(oneType(pc, in)), has(in, Mod::Shiftamt) ? 1 : 0, 1);
  }

  // popc, clz and brev of 64 bits run the 32-bit op (the compiled step's) on each half.
  void lowerBitCount64(uint32_t pc, const Instr& in, MOp op) {
    const uint8_t u32 = typeCode(4, false), u64 = typeCode(8, false);
    const uint16_t a = operand(pc, in.s[0]), d = operand(pc, in.d[0]);
    const uint16_t lo = scratch(pc, 0), hi = scratch(pc, 1), x = scratch(pc, 2), y = scratch(pc, 3);
    emitStep(pc, in, MOp::And, u64, 0, lo, a, constant(pc, 0xffffffffu), kNoOperand);
    emitStep(pc, in, MOp::Shr, u64, 0, hi, a, constant(pc, 32), kNoOperand);
    emitStep(pc, in, op, u32, 0, x, lo, kNoOperand, kNoOperand);
    emitStep(pc, in, op, u32, 0, y, hi, kNoOperand, kNoOperand);
    if (op == MOp::Popc) return emitStep(pc, in, MOp::Add, u32, 0, d, x, y, kNoOperand);
    if (op == MOp::Brev) {  // the low half reversed is the high half
      emitStep(pc, in, MOp::Shl, u64, 0, x, x, constant(pc, 32), kNoOperand);
      return emitStep(pc, in, MOp::Or, u64, 0, d, x, y, kNoOperand);
    }
    // clz: the high half's count, or 32 + the low half's where the high half is 0
    emitStep(pc, in, MOp::Add, u32, 0, x, x, constant(pc, 32), kNoOperand);
    emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Eq), lo, hi, constant(pc, 0), kNoOperand);
    return emitStep(pc, in, MOp::Selp, u32, 0, d, x, y, lo);
  }

  void lowerBfe(uint32_t pc, const Instr& in) {
    only(pc, in, {});
    return alu(pc, in, MOp::Bfe, ty(oneType(pc, in)), 0, 3);
  }

  void lowerBfi(uint32_t pc, const Instr& in) {
    only(pc, in, {});
    auto value = [&](uint32_t slot) -> std::optional<uint64_t> {
      slot = df_.resolve(slot);
      for (const auto& [cs, v] : f_.constants)
        if (cs == slot) return v;
      return std::nullopt;
    };
    const auto pos = value(in.s[2]), len = value(in.s[3]);
    const ScalarType ty0 = oneType(pc, in);
    const uint8_t t = ty(ty0), u32 = typeCode(4, false);
    const uint32_t bytes = scalarTypeBytes(ty0);
    const uint16_t d = operand(pc, in.d[0]), a = operand(pc, in.s[0]), b = operand(pc, in.s[1]);
    // Micro-code on units the compiled step has (a BFI unit took the step's widest layer past
    // 2,048 channels, docs/machine.md §5.1): d = b ^ (((a << pos) ^ b) & mask), mask the
    // field's bits within the width — a ROM constant for a known field, else built from the
    // operands' low bytes: a shift by the width or more gives 0, so len >= width gives ones
    // everywhere (~(~0 << len)) and pos >= width an empty mask (d = b).
    uint16_t p = 0, mask = 0, field = 0;
    if (pos && len) {
      const uint32_t from = static_cast<uint32_t>(*pos & 0xff), n = static_cast<uint32_t>(*len & 0xff);
      uint64_t bits = 0;
      for (uint32_t i = from; i < from + n && i < 8 * bytes; ++i) bits |= uint64_t{1} << i;
      field = scratch(pc, 2);
      p = constant(pc, from);
      mask = constant(pc, bits);
    } else {
      const uint16_t posReg = scratch(pc, 0);
      mask = scratch(pc, 1);
      field = scratch(pc, 2);
      p = pos ? constant(pc, *pos & 0xff) : posReg;
      if (!pos) emitStep(pc, in, MOp::And, u32, 0, posReg, operand(pc, in.s[2]), constant(pc, 0xff), kNoOperand);
      const uint16_t n = len ? constant(pc, *len & 0xff) : mask;
      if (!len) emitStep(pc, in, MOp::And, u32, 0, mask, operand(pc, in.s[3]), constant(pc, 0xff), kNoOperand);
      emitStep(pc, in, MOp::Shl, t, 0, mask, constant(pc, widthMask(bytes)), n, kNoOperand);
      emitStep(pc, in, MOp::Not, t, 0, mask, mask, kNoOperand, kNoOperand);
      emitStep(pc, in, MOp::Shl, t, 0, mask, mask, p, kNoOperand);
    }
    emitStep(pc, in, MOp::Shl, t, 0, field, a, p, kNoOperand);
    emitStep(pc, in, MOp::Xor, t, 0, field, field, b, kNoOperand);
    emitStep(pc, in, MOp::And, t, 0, field, field, mask, kNoOperand);
    return emitStep(pc, in, MOp::Xor, t, 0, d, b, field, kNoOperand);
  }

  void lowerShf(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::L, Mod::R, Mod::Wrap, Mod::Clamp});
    const uint8_t fl = static_cast<uint8_t>((has(in, Mod::R) ? 1 : 0) | (has(in, Mod::Clamp) ? 2 : 0));  // right, clamp
    return alu(pc, in, MOp::Shf, typeCode(4, false), fl, 3);
  }

  void lowerPrmt(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::F4e, Mod::B4e, Mod::Rc8, Mod::Ecl, Mod::Ecr, Mod::Rc16});
    // fl: 0 the generic permute, 1..6 f4e b4e rc8 ecl ecr rc16.
    uint8_t fl = 0;
    const Mod modes[] = {Mod::F4e, Mod::B4e, Mod::Rc8, Mod::Ecl, Mod::Ecr, Mod::Rc16};
    for (uint8_t i = 0; i < 6; ++i)
      if (has(in, modes[i])) fl = static_cast<uint8_t>(i + 1);
    if (fl != 0) return alu(pc, in, MOp::Prmt, typeCode(4, false), fl, 3);  // the named modes: one PRMT step
    // The generic permute is micro-code of shifts and masks (no PRMT unit fits the compiled
    // step, docs/machine.md §2.1): result byte k is byte (sel_k & 7) of b:a, or that byte's
    // sign bit replicated when sel_k & 8, sel_k the selector's k-th nibble.
    const uint8_t u32 = typeCode(4, false), s32 = typeCode(4, true), u64 = typeCode(8, false);
    const uint16_t a = operand(pc, in.s[0]), b = operand(pc, in.s[1]), sel = operand(pc, in.s[2]), d = operand(pc, in.d[0]);
    const uint16_t v = scratch(pc, 0), t = scratch(pc, 1), acc = scratch(pc, 2);
    auto merge = [&](uint32_t k, uint16_t byte) {  // byte k of the result, in place and masked
      if (k == 0) return;
      emitStep(pc, in, MOp::Or, u32, 0, k == 3 ? d : acc, acc, byte, kNoOperand);
    };
    if (auto known = constantOf(sel)) {
      for (uint32_t k = 0; k < 4; ++k) {
        const uint32_t nib = static_cast<uint32_t>(*known >> (4 * k)) & 0xf, from = 8 * (nib & 3);
        const uint16_t src = (nib & 7) < 4 ? a : b, to = k == 0 ? acc : v;
        uint16_t moved = src;
        if (nib & 8) {  // the byte's bit 7 to bit 31, replicated down
          emitStep(pc, in, MOp::Shl, u32, 0, to, src, constant(pc, 24 - from), kNoOperand);
          emitStep(pc, in, MOp::Shr, s32, 0, to, to, constant(pc, 31), kNoOperand);
          moved = to;
        } else if (from != 8 * k) {  // the byte to byte k
          const bool down = from > 8 * k;
          emitStep(pc, in, down ? MOp::Shr : MOp::Shl, u32, 0, to, src, constant(pc, down ? from - 8 * k : 8 * k - from), kNoOperand);
          moved = to;
        }
        emitStep(pc, in, MOp::And, u32, 0, to, moved, constant(pc, uint64_t{0xff} << (8 * k)), kNoOperand);
        merge(k, to);
      }
      return;
    }
    // b:a as one 64-bit value (each half through a 32-bit product by 1, which zero-extends).
    const uint16_t both = scratch(pc, 3), sign = scratch(pc, 4), replicate = scratch(pc, 5);
    emitStep(pc, in, MOp::MulWide, u32, 0, both, b, constant(pc, 1), kNoOperand);
    emitStep(pc, in, MOp::Shl, u64, 0, both, both, constant(pc, 32), kNoOperand);
    emitStep(pc, in, MOp::MulWide, u32, 0, t, a, constant(pc, 1), kNoOperand);
    emitStep(pc, in, MOp::Or, u64, 0, both, both, t, kNoOperand);
    for (uint32_t k = 0; k < 4; ++k) {
      const uint16_t to = k == 0 ? acc : v;
      // the shift 8 * (sel_k & 7): the nibble's low three bits moved to bits 3-5
      if (k == 0) emitStep(pc, in, MOp::Shl, u32, 0, t, sel, constant(pc, 3), kNoOperand);
      else emitStep(pc, in, MOp::Shr, u32, 0, t, sel, constant(pc, 4 * k - 3), kNoOperand);
      emitStep(pc, in, MOp::And, u32, 0, t, t, constant(pc, 0x38), kNoOperand);
      emitStep(pc, in, MOp::Shr, u64, 0, to, both, t, kNoOperand);  // the byte at bits 0-7
      // to = the byte's bit 7 replicated (moved to bit 31 and shifted down) where the nibble's
      // bit 3 is set
      emitStep(pc, in, MOp::And, u32, 0, t, sel, constant(pc, uint64_t{8} << (4 * k)), kNoOperand);
      emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Ne), replicate, t, constant(pc, 0), kNoOperand);
      emitStep(pc, in, MOp::Shl, u32, 0, sign, to, constant(pc, 24), kNoOperand);
      emitStep(pc, in, MOp::Shr, s32, 0, sign, sign, constant(pc, 31), kNoOperand);
      emitStep(pc, in, MOp::Selp, u32, 0, to, sign, to, replicate);
      if (k == 0) {
        emitStep(pc, in, MOp::And, u32, 0, to, to, constant(pc, 0xff), kNoOperand);
      } else {  // masked and moved to byte k
        emitStep(pc, in, MOp::Shl, u32, 0, to, to, constant(pc, 24), kNoOperand);
        emitStep(pc, in, MOp::Shr, u32, 0, to, to, constant(pc, 24 - 8 * k), kNoOperand);
      }
      merge(k, to);
    }
  }

  void lowerBmsk(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::Clamp, Mod::Wrap});
    return alu(pc, in, MOp::Bmsk, typeCode(4, false), has(in, Mod::Clamp) ? 1 : 0, 2);  // fl bit 0: clamp
  }
  void lowerAtom(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::And, Mod::Or, Mod::Xor, Mod::Cas, Mod::Exch, Mod::Add, Mod::Inc, Mod::Dec, Mod::Min, Mod::Max}, true);
    ScalarType ty0 = oneType(pc, in);
    if (in.imm != 0) fail(pc, "atomics with an address offset are not lowered");
    if (in.space != MemSpace::Generic && in.space != MemSpace::Global && in.space != MemSpace::Shared)
      fail(pc, "atomics outside global/shared memory");
    if (isFloat(ty0) || in.atomOp() != AtomOp::Add) return lowerAtomMicro(pc, in, ty0);
    MInstr m = base(pc, in.space == MemSpace::Shared ? MOp::AtomS : MOp::Atom, in);
    m.ty = ty(ty0);
    m.fl = static_cast<uint8_t>(machineAtom(in.atomOp()));
    // d and, but for CAS, c are registers the step writes lane by lane (docs/machine.md §5.3):
    // d each lane's old value, c its new memory value — where the compiled machine's ALU and
    // store path find them. A dead d still gets one (a shared temporary); register allocation
    // keeps both apart from the sources (atomicWritesEarly).
    m.d = in.d[0] != kNoSlot && df_.live(in.d[0]) ? operand(pc, in.d[0]) : sharedTemporary(pc, atomOld_, "atom.old");
    m.a = operand(pc, in.s[0]);
    m.b = operand(pc, in.s[1]);
    if (in.s[2] != kNoSlot) m.c = operand(pc, in.s[2]);
    else m.c = sharedTemporary(pc, atomNew_, "atom.new");
    return emit(m);
  }

  // Atomics other than an integer add (the compiled atomic step's op, §5.3) are lane-serial
  // micro-code: lane by lane in lane order, under a guard that holds in that lane alone, LD
  // the old value, compute the new one with ALU steps (FADD for f32), ST it and copy the old
  // value to d. Atomic because a warp runs until it exits or reaches BAR and blocks run one
  // after another (§1.2): no other thread's step comes between a lane's LD and its ST.
  void lowerAtomMicro(uint32_t pc, const Instr& in, ScalarType ty0) {
    const AtomOp op = in.atomOp();
    const MSpace s = space(pc, in.space);
    const uint32_t bytes = scalarTypeBytes(ty0);
    const uint8_t u32 = typeCode(4, false), raw = typeCode(bytes, false), typed = ty(ty0);
    uint8_t addFlags = 0;
    if (isFloat(ty0)) {
      if (op != AtomOp::Add && op != AtomOp::Exch) fail(pc, "floating-point atomics other than add and exch are not lowered");
      // global f32 adds flush subnormal inputs and results, shared ones do not (the
      // interpreter's model); a generic address's space is known only when it runs
      if (op == AtomOp::Add && ty0 == ScalarType::F32) {
        if (s == MSpace::Generic) fail(pc, "a generic-address f32 atom.add is not lowered (global flushes subnormals, shared does not)");
        if (s == MSpace::Global) addFlags = kFlFtz;
      }
    }
    const uint16_t address = operand(pc, in.s[0]), b = operand(pc, in.s[1]);
    const uint16_t c = op == AtomOp::Cas ? operand(pc, in.s[2]) : kNoOperand;
    const uint16_t d = in.d[0] != kNoSlot && df_.live(in.d[0]) ? operand(pc, in.d[0]) : kNoOperand;
    const uint16_t offset = offsetOperand(pc, s, in.s[0], 0);
    const uint16_t lane = scratch(pc, 0), mine = scratch(pc, 1), old = scratch(pc, 2), next = scratch(pc, 3),
                   p = scratch(pc, 4);
    // `lane`: the lane id where the instruction's guard holds, else 4 (no lane's)
    uint16_t laneId = special(pc, SpecialReg::LaneId);
    if (in.guard != kNoSlot) {
      emitGuardedBy(kNoGuard, MOp::Mov, u32, lane, constant(pc, kLanes), kNoOperand);
      emitStep(pc, in, MOp::Mov, u32, 0, lane, laneId, kNoOperand, kNoOperand);
      laneId = lane;
    }
    for (uint32_t k = 0; k < kLanes; ++k) {
      emitGuardedBy(kNoGuard, MOp::Setp, u32, mine, laneId, constant(pc, k), static_cast<uint8_t>(MCmp::Eq));
      emitGuardedBy(mine, MOp::Ld, raw, old, address, offset, static_cast<uint8_t>(s), raw);
      uint16_t value = next;
      switch (op) {
        case AtomOp::And: emitGuardedBy(mine, MOp::And, raw, next, old, b); break;
        case AtomOp::Or: emitGuardedBy(mine, MOp::Or, raw, next, old, b); break;
        case AtomOp::Xor: emitGuardedBy(mine, MOp::Xor, raw, next, old, b); break;
        case AtomOp::Exch: value = b; break;
        case AtomOp::Add: emitGuardedBy(mine, MOp::FAdd, raw, next, old, b, addFlags); break;
        case AtomOp::Min: case AtomOp::Max:  // by the type's signedness
          emitGuardedBy(mine, MOp::Setp, typed, p, old, b, static_cast<uint8_t>(op == AtomOp::Min ? MCmp::Le : MCmp::Ge));
          emitGuardedBy(mine, MOp::Selp, raw, next, old, b, 0, p);
          break;
        case AtomOp::Inc:  // old >= b ? 0 : old + 1
          emitGuardedBy(mine, MOp::Add, raw, next, old, constant(pc, 1));
          emitGuardedBy(mine, MOp::Setp, raw, p, old, b, static_cast<uint8_t>(MCmp::Hs));
          emitGuardedBy(mine, MOp::Selp, raw, next, constant(pc, 0), next, 0, p);
          break;
        case AtomOp::Dec:  // old == 0 || old > b ? b : old - 1, that is old - 1 >= b (unsigned)
          emitGuardedBy(mine, MOp::Sub, raw, next, old, constant(pc, 1));
          emitGuardedBy(mine, MOp::Setp, raw, p, next, b, static_cast<uint8_t>(MCmp::Hs));
          emitGuardedBy(mine, MOp::Selp, raw, next, b, next, 0, p);
          break;
        case AtomOp::Cas:  // old == b ? c : old
          emitGuardedBy(mine, MOp::Setp, raw, p, old, b, static_cast<uint8_t>(MCmp::Eq));
          emitGuardedBy(mine, MOp::Selp, raw, next, c, old, 0, p);
          break;
      }
      emitGuardedBy(mine, MOp::St, raw, kNoOperand, address, offset, static_cast<uint8_t>(s), value);
      if (d != kNoOperand) emitGuardedBy(mine, MOp::Mov, raw, d, old, kNoOperand);
    }
  }

  void lowerFence(uint32_t, const Instr&) {}  // the machine is sequentially consistent
  void lowerBarrier(uint32_t pc, const Instr& in) {
    if (in.mode != static_cast<uint8_t>(BarRed::None)) fail(pc, "bar.red (a block-wide reduction) is not lowered");
    if (in.imm & 2) fail(pc, "bar.arrive (arrival without waiting) is not lowered");
    if (in.s[1] != kNoSlot) fail(pc, "bar.sync with a thread count is not lowered");
    MInstr m = base(pc, MOp::Bar, in);
    m.a = operand(pc, in.s[0]);
    emit(m);
  }
  void lowerBranch(uint32_t pc, const Instr& in) { emit(base(pc, MOp::Bra, in)); }
  void lowerCall(uint32_t pc, const Instr& in) {
    if (in.mode == kCallEnd) return;  // END: the pc after the body
    if (in.mode != kMachineCall) fail(pc, fmt::format("'{}' is not lowered", p_.opcodeText[pc]));
    MInstr m = base(pc, MOp::Call, in);  // b, c (entry, END) are set with the branches
    m.a = operand(pc, in.s[0]);
    m.d = operand(pc, in.s[1]);
    emit(m);
  }
  void lowerExit(uint32_t pc, const Instr& in) { emit(base(pc, MOp::Exit, in)); }

  // Extended precision: CC.CF is a machine register. The new carry is computed into a
  // temporary before d is written, then copied to CC.CF, so no step reads a half-updated
  // pair; mad forms first put the product half into a temporary.
  void lowerCarry(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::Cc, Mod::Lo, Mod::Hi});
    ScalarType ty0 = oneType(pc, in);
    const bool mad = in.opcode == Opcode::Mad || in.opcode == Opcode::Madc;
    const bool sub = in.opcode == Opcode::Sub || in.opcode == Opcode::Subc;
    const bool readCf = in.opcode == Opcode::Addc || in.opcode == Opcode::Subc || in.opcode == Opcode::Madc;
    const bool writeCf = has(in, Mod::Cc);
    uint16_t cf = operand(pc, in.s[3]);
    uint16_t a = operand(pc, in.s[0]), b = operand(pc, in.s[1]);
    if (mad) {
      uint16_t product = sharedTemporary(pc, carryProduct_, "carry.product");
      if (scalarTypeBytes(ty0) == 8) {
        if (has(in, Mod::Hi)) mulHigh64(pc, in, isSigned(ty0), a, b, product);
        else mul64(pc, in, a, b, kNoOperand, product);
      } else {
        MInstr prod = base(pc, has(in, Mod::Hi) ? MOp::MulHi : MOp::MulLo, in);
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

  // 64-bit mul.lo / mad.lo as micro-code on the 32x32 multiplier (docs/machine.md §2.1),
  // partial sums in temporaries, d written by the last step only. With aL, aH the halves of
  // a, on the 32-bit ops the compiled step has units for (MULP would need its operands'
  // halves muxed where the step's layers are full): t = lo32(aH*bL) (SHR, MULLO);
  // t = lo32(aL*bH + t) (SHR, MADLO); t <<= 32; u = aL*bL (MULWIDE); d = u + t (+ c),
  // whatever the signedness (the low 64 bits are the same); a cross product whose high half
  // is known to be zero is skipped. (mul.hi.64 is mulHigh64 below.)
  bool highHalfZero(uint16_t operand) const {
    if (operand >= kSpecialBase) return true;  // specials are 32-bit values
    return operand >= kConstBase && (constants_[operand - kConstBase] >> 32) == 0;
  }
  // PTX mul.hi.64 (and mad.hi.cc.64): the high half of the 128-bit product from four 32x32
  // MULWIDE products on the compiled ALU (MULP's half-selected operands do not fit the step,
  // docs/machine.md §2.1). Unsigned, with x = aH, y = bH:
  //   t = aL*bL >> 32; t += aL*bH; y = aH*bH; u = aH*bL + lo32(t);
  //   d = y + hi32(t) + hi32(u)
  // (no sum overflows 64 bits: each is below (2^32 - 1)^2 + 2 (2^32 - 1) < 2^64, the last is
  // the product's high half). Signed: minus b where a < 0 and minus a where b < 0 (mod 2^64).
  void mulHigh64(uint32_t pc, const Instr& in, bool isSigned, uint16_t a, uint16_t b, uint16_t d) {
    const uint8_t u32 = typeCode(4, false), u64 = typeCode(8, false), s64 = typeCode(8, true);
    const uint16_t t = sharedTemporary(pc, mulT_, "mul64.t"), u = sharedTemporary(pc, mulU_, "mul64.u");
    const uint16_t x = scratch(pc, 0), y = scratch(pc, 1), half = constant(pc, 32);
    auto step = [&](MOp op, uint8_t tyCode, uint16_t dst, uint16_t p, uint16_t q) {
      emitStep(pc, in, op, tyCode, 0, dst, p, q, kNoOperand);
    };
    step(MOp::Shr, u64, x, a, half);
    step(MOp::Shr, u64, y, b, half);
    step(MOp::MulWide, u32, t, a, b);
    step(MOp::Shr, u64, t, t, half);
    step(MOp::MulWide, u32, u, a, y);
    step(MOp::Add, u64, t, t, u);
    step(MOp::MulWide, u32, y, x, y);
    step(MOp::MulWide, u32, u, x, b);
    step(MOp::And, u64, x, t, constant(pc, 0xffffffffull));
    step(MOp::Add, u64, u, u, x);
    step(MOp::Shr, u64, t, t, half);
    step(MOp::Add, u64, y, y, t);
    step(MOp::Shr, u64, u, u, half);
    if (!isSigned) return step(MOp::Add, u64, d, y, u);
    step(MOp::Add, u64, y, y, u);
    step(MOp::Shr, s64, x, a, constant(pc, 63));  // all ones where a < 0
    step(MOp::And, u64, x, x, b);
    step(MOp::Sub, u64, y, y, x);
    step(MOp::Shr, s64, x, b, constant(pc, 63));
    step(MOp::And, u64, x, x, a);
    return step(MOp::Sub, u64, d, y, x);
  }

  void mul64(uint32_t pc, const Instr& in, uint16_t a, uint16_t b, uint16_t addend, uint16_t d) {
    const uint16_t t = sharedTemporary(pc, mulT_, "mul64.t"), u = sharedTemporary(pc, mulU_, "mul64.u");
    const uint8_t u32 = typeCode(4, false), u64 = typeCode(8, false);
    const uint16_t half = constant(pc, 32);
    const bool aHigh = !highHalfZero(a), bHigh = !highHalfZero(b);
    if (aHigh) {
      emitStep(pc, in, MOp::Shr, u64, 0, t, a, half, kNoOperand);
      emitStep(pc, in, MOp::MulLo, u32, 0, t, t, b, kNoOperand);
    }
    if (bHigh) {
      emitStep(pc, in, MOp::Shr, u64, 0, u, b, half, kNoOperand);
      if (aHigh) emitStep(pc, in, MOp::MadLo, u32, 0, t, a, u, t);
      else emitStep(pc, in, MOp::MulLo, u32, 0, t, a, u, kNoOperand);
    }
    const bool cross = aHigh || bHigh;
    if (cross) emitStep(pc, in, MOp::Shl, u64, 0, t, t, half, kNoOperand);
    if (!cross && addend == kNoOperand) return emitStep(pc, in, MOp::MulWide, u32, 0, d, a, b, kNoOperand);
    emitStep(pc, in, MOp::MulWide, u32, 0, u, a, b, kNoOperand);
    if (cross && addend != kNoOperand) emitStep(pc, in, MOp::Add, u64, 0, u, u, t, kNoOperand);
    return emitStep(pc, in, MOp::Add, u64, 0, d, u, addend != kNoOperand ? addend : t, kNoOperand);
  }


  // ---- f64 arithmetic as ALU micro-code (docs/machine.md §2.1) ----
  // add/sub, mul, div/rcp, sqrt, fma and cvt.f32.f64: unpacked significands, exact integer
  // steps with a sticky bit for what falls out, one rounding by roundFloat, then the special
  // operands by selects (the oracle's NaN rule: the first NaN operand quietened, a generated
  // NaN canonical). Each is inline, or — where a kernel's micro-code inlined would not fit
  // the ROM — one shared routine per form that every use calls (microCode below).

  /// The form `key` of f64 micro-code at PTX instruction `in`, on operands ops (kNoOperand
  /// where unused), result into in's destination (resultBytes wide). Inline: body(in, ops, d).
  /// Shared: the operands copied into the routine's argument registers, `CALL routine, END`
  /// (§1.2: the routine's lanes pop back when they reach END), the result copied out under
  /// in's guard; the routine's body is emitted once after the kernel's code (emitRoutines).
  /// Why: f64_arith inlined is 1,299 machine instructions; the ROM holds 1,023 (a 10-bit pc).
  using MicroBody = std::function<void(const Instr& in, const std::array<uint16_t, 3>& ops, uint16_t d)>;
  void microCode(uint32_t pc, const Instr& in, const std::string& key, const std::array<uint16_t, 3>& ops,
                 uint32_t resultBytes, MicroBody body) {
    sharable_ = true;
    const uint16_t d = operand(pc, in.d[0]);
    if (!options_.shareMicroCode) return body(in, ops, d);
    MicroRoutine& r = routines_[key];
    if (!r.body) {
      r.body = std::move(body);
      r.pc = pc;
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i] == kNoOperand) continue;
      r.args[i] = sharedTemporary(pc, routineArgs_[i], fmt::format("micro.arg{}", i).c_str());
      emitGuardedBy(kNoGuard, MOp::Mov, typeCode(8, false), r.args[i], ops[i], kNoOperand);
    }
    r.calls.push_back(code_.size());
    microBranches_.insert(code_.size());
    // CALL a = 0 (no stack pointer), d = 0 (its limit): no memory frame, only the SIMT entry
    emitGuardedBy(kNoGuard, MOp::Call, 0, constant(pc, 0), kNoOperand, kNoOperand);  // b, c: emitRoutines
    emitStep(pc, in, MOp::Mov, typeCode(resultBytes, false), 0, d, routineResult(pc), kNoOperand, kNoOperand);
  }
  uint16_t routineResult(uint32_t pc) { return sharedTemporary(pc, routineResult_, "micro.result"); }

  /// The shared routines' bodies after the kernel's code (an EXIT first, so no lane falls
  /// into them), each followed by its END; every CALL of a routine gets its entry and END.
  void emitRoutines() {
    if (routines_.empty()) return;
    const uint32_t last = ptxPc_.back();
    emitGuardedBy(kNoGuard, MOp::Exit, 0, kNoOperand, kNoOperand, kNoOperand);
    ptxPc_.push_back(last);
    for (auto& [key, r] : routines_) {
      const uint16_t entry = static_cast<uint16_t>(code_.size());
      Instr plain = p_.code[r.pc];  // the first use, without its guard: the steps write scratch only
      plain.guard = kNoSlot;
      r.body(plain, r.args, routineResult(r.pc));
      const uint16_t end = static_cast<uint16_t>(code_.size());
      for (size_t k = entry; k < end; ++k) ptxPc_.push_back(oraclePc(r.pc));
      for (size_t call : r.calls) {
        code_[call].b = entry;
        code_[call].c = end;
      }
    }
  }

  void lowerDMul(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::Rn, Mod::Rz, Mod::Rm, Mod::Rp});
    const uint32_t mode = roundingField(in);
    microCode(pc, in, fmt::format("mul.f64.{}", mode), {operand(pc, in.s[0]), operand(pc, in.s[1]), kNoOperand}, 8,
              [this, pc, mode](const Instr& i, const std::array<uint16_t, 3>& o, uint16_t d) {
                lowerDMulMicro(pc, i, o[0], o[1], d, mode);
              });
  }

  void lowerDAdd(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::Rn, Mod::Rz, Mod::Rm, Mod::Rp});
    const uint32_t mode = roundingField(in);
    const bool sub = in.opcode == Opcode::Sub;
    microCode(pc, in, fmt::format("{}.f64.{}", sub ? "sub" : "add", mode),
              {operand(pc, in.s[0]), operand(pc, in.s[1]), kNoOperand}, 8,
              [this, pc, mode, sub](const Instr& i, const std::array<uint16_t, 3>& o, uint16_t d) {
                dAddMicro(pc, i, o[0], o[1], d, mode, sub);
              });
  }

  // div/rcp/sqrt.f64 (rcp is a division of 1.0: the same routine when shared)
  void lowerDDivSqrt(uint32_t pc, const Instr& in) {
    rejectApproximate(pc, in);
    only(pc, in, {Mod::Rn, Mod::Rz, Mod::Rm, Mod::Rp});
    if (!hasRounding(in)) fail(pc, "needs a rounding modifier");
    const uint32_t mode = roundingField(in);
    if (in.opcode == Opcode::Sqrt)
      return microCode(pc, in, fmt::format("sqrt.f64.{}", mode), {operand(pc, in.s[0]), kNoOperand, kNoOperand}, 8,
                       [this, pc, mode](const Instr& i, const std::array<uint16_t, 3>& o, uint16_t d) {
                         dSqrtMicro(pc, i, o[0], d, mode);
                       });
    const bool rcp = in.opcode == Opcode::Rcp;
    const uint16_t num = rcp ? constant(pc, 0x3ff0000000000000ull) : operand(pc, in.s[0]);
    const uint16_t den = rcp ? operand(pc, in.s[0]) : operand(pc, in.s[1]);
    microCode(pc, in, fmt::format("div.f64.{}", mode), {num, den, kNoOperand}, 8,
              [this, pc, mode](const Instr& i, const std::array<uint16_t, 3>& o, uint16_t d) {
                dDivMicro(pc, i, o[0], o[1], d, mode);
              });
  }

  void lowerDFma(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::Rn, Mod::Rz, Mod::Rm, Mod::Rp});
    const uint32_t mode = roundingField(in);
    microCode(pc, in, fmt::format("fma.f64.{}", mode),
              {operand(pc, in.s[0]), operand(pc, in.s[1]), operand(pc, in.s[2])}, 8,
              [this, pc, mode](const Instr& i, const std::array<uint16_t, 3>& o, uint16_t d) {
                dFmaMicro(pc, i, o[0], o[1], o[2], d, mode);
              });
  }

  void lowerD2F(uint32_t pc, const Instr& in) {
    only(pc, in, {Mod::Rn, Mod::Rz, Mod::Rm, Mod::Rp, Mod::Ftz, Mod::Sat});
    const uint32_t mode = roundingField(in);
    const bool ftz = in.ftz, sat = in.sat;
    microCode(pc, in, fmt::format("cvt.f32.f64.{}{}{}", mode, ftz ? ".ftz" : "", sat ? ".sat" : ""),
              {operand(pc, in.s[0]), kNoOperand, kNoOperand}, 4,
              [this, pc, mode, ftz, sat](const Instr& i, const std::array<uint16_t, 3>& o, uint16_t d) {
                d2fMicro(pc, i, o[0], d, mode, ftz, sat);
              });
  }

  /// Steps of f64 micro-code, shorter to read: d = op(a, b, c) at width code t; a compare
  /// into the 0/1 register p; a select.
  struct Steps {
    Lowerer& l;
    uint32_t pc;
    const Instr& in;
    void operator()(MOp op, uint8_t t, uint16_t d, uint16_t a, uint16_t b = kNoOperand, uint16_t c = kNoOperand,
                    uint8_t fl = 0) const {
      l.emitStep(pc, in, op, t, fl, d, a, b, c);
    }
    void test(uint16_t p, MCmp cmp, uint8_t t, uint16_t a, uint16_t b) const {
      l.emitStep(pc, in, MOp::Setp, t, static_cast<uint8_t>(cmp), p, a, b, kNoOperand);
    }
    void pick(uint8_t t, uint16_t d, uint16_t p, uint16_t ifTrue, uint16_t ifFalse) const {
      l.emitStep(pc, in, MOp::Selp, t, 0, d, ifTrue, ifFalse, p);
    }
    uint16_t k(uint64_t v) const { return l.constant(pc, v); }
  };
  static constexpr uint64_t kSign64 = 1ull << 63, kAbs64 = ~kSign64, kInf64 = 0x7ff0000000000000ull,
                            kQuiet64 = 1ull << 51, kNaN64 = 0x7fffffffffffffffull;

  /// The oracle's f64 NaN rule as the last selects: d = the first NaN among `operands` (each
  /// a value and a register holding its magnitude), quietened, else r. p and v are scratch.
  void firstNaNQuietened(const Steps& S, std::initializer_list<std::pair<uint16_t, uint16_t>> operands, uint16_t p,
                         uint16_t v, uint16_t r, uint16_t d) {
    const uint8_t u64 = typeCode(8, false);
    for (auto it = std::rbegin(operands); it != std::rend(operands); ++it) {
      S.test(p, MCmp::Hi, u64, it->second, S.k(kInf64));
      S(MOp::Or, u64, v, it->first, S.k(kQuiet64));
      S.pick(u64, std::next(it) == std::rend(operands) ? d : r, p, v, r);
    }
  }

  // add/sub.f64: x the operand of larger magnitude (b's sign flipped for sub), A = mx << 10
  // (top bit 62: the sum's carry fits), B = my << 10 >> k (k = ex - ey, at most 63) with the
  // bits shifted out jammed into bit 0 (A's low bits are zero, so A +- B is odd whenever bits
  // fell out and no rounding boundary lies between it and the exact sum); R normalised to bit
  // 63, S = its top 58 bits with a sticky bit, rounded. R = 0: an exact cancellation, +0 (-0
  // in rm). Then: both zero (the signs' AND, OR in rm), infinities (opposite: NaN), NaNs.
  void dAddMicro(uint32_t pc, const Instr& in, uint16_t a, uint16_t b, uint16_t d, uint32_t mode, bool sub) {
    const Steps S{*this, pc, in};
    const uint8_t u32 = typeCode(4, false), u64 = typeCode(8, false), s64 = typeCode(8, true);
    uint16_t t[10];
    for (uint32_t i = 0; i < 10; ++i) t[i] = scratch(pc, i);
    auto negatedB = [&]() -> uint16_t {  // b with its sign flipped for sub (a NaN b is used as b below)
      if (!sub) return b;
      if (auto kb = constantOf(b)) return S.k(*kb ^ kSign64);
      S(MOp::Xor, u64, t[9], b, S.k(kSign64));
      return t[9];
    };
    uint16_t bn = negatedB();
    S(MOp::And, u64, t[0], a, S.k(kAbs64));
    S(MOp::And, u64, t[1], bn, S.k(kAbs64));
    S.test(t[2], MCmp::Lo, u64, t[0], t[1]);
    S.pick(u64, t[8], t[2], bn, a);  // x
    S.pick(u64, t[4], t[2], a, bn);  // y
    S(MOp::Xor, u64, t[9], t[8], t[4]);  // bit 63: the magnitudes subtract
    const auto [mx, ex] = unpackF64(pc, in, t[8], t[0], t[1], t[5], t[6], t[7], t[3]);
    const auto [my, ey] = unpackF64(pc, in, t[4], t[2], t[3], t[4], t[5], t[6], t[7]);
    S(MOp::Shl, u64, t[0], mx, S.k(10));  // A
    S(MOp::Sub, u32, t[4], ex, ey);
    S.test(t[5], MCmp::Hi, u32, t[4], S.k(63));
    S.pick(u32, t[4], t[5], S.k(63), t[4]);  // k
    S(MOp::Shl, u64, t[2], my, S.k(10));
    S(MOp::Shr, u64, t[5], t[2], t[4]);
    S(MOp::Shl, u64, t[6], t[5], t[4]);
    S.test(t[7], MCmp::Ne, u64, t[6], t[2]);
    S(MOp::Or, u64, t[5], t[5], t[7]);  // B, the lost bits jammed
    S.test(t[6], MCmp::Lt, s64, t[9], S.k(0));
    S(MOp::Sub, u64, t[2], t[0], t[5]);
    S(MOp::Add, u64, t[7], t[0], t[5]);
    S.pick(u64, t[0], t[6], t[2], t[7]);  // R
    S.test(t[9], MCmp::Eq, u64, t[0], S.k(0));
    clz64(pc, in, t[0], t[4], t[2], t[3], t[5]);
    S(MOp::Shl, u64, t[0], t[0], t[4]);
    S(MOp::And, u64, t[2], t[0], S.k(63));
    S.test(t[3], MCmp::Ne, u64, t[2], S.k(0));
    S(MOp::Shr, u64, t[0], t[0], S.k(6));
    S(MOp::Or, u64, t[0], t[0], t[3]);  // S, top bit 57
    S(MOp::Add, u32, t[1], ex, S.k(1));
    S(MOp::Sub, u32, t[1], t[1], t[4]);  // its exponent: ex + 1 - lz
    S(MOp::And, u64, t[8], t[8], S.k(kSign64));
    roundFloat(pc, in, t[0], t[1], t[8], mode, false, t[2], t[3], t[4], t[5], true);
    S.pick(u64, t[0], t[9], S.k(mode == 2 ? kSign64 : 0), t[0]);
    bn = negatedB();
    S(MOp::And, u64, t[1], a, S.k(kAbs64));
    S(MOp::And, u64, t[2], bn, S.k(kAbs64));
    S(MOp::Or, u64, t[3], t[1], t[2]);
    S.test(t[4], MCmp::Eq, u64, t[3], S.k(0));
    S(mode == 2 ? MOp::Or : MOp::And, u64, t[5], a, bn);
    S(MOp::And, u64, t[5], t[5], S.k(kSign64));
    S.pick(u64, t[0], t[4], t[5], t[0]);  // both zero
    S.test(t[4], MCmp::Eq, u64, t[2], S.k(kInf64));
    S.pick(u64, t[0], t[4], bn, t[0]);
    S.test(t[5], MCmp::Eq, u64, t[1], S.k(kInf64));
    S.pick(u64, t[0], t[5], a, t[0]);
    S(MOp::Xor, u64, t[6], a, bn);
    S.test(t[7], MCmp::Lt, s64, t[6], S.k(0));
    S(MOp::And, u32, t[7], t[7], t[4]);
    S(MOp::And, u32, t[7], t[7], t[5]);
    S.pick(u64, t[0], t[7], S.k(kNaN64), t[0]);  // inf - inf
    firstNaNQuietened(S, {{a, t[1]}, {b, t[2]}}, t[4], t[5], t[0], d);
  }

  // div.f64 (rcp: a = 1.0): R = ma (doubled where smaller than mb, so R / mb is in [1, 2)),
  // 57 quotient bits by restoring division on R and Q in two registers (four steps a bit:
  // R and Q do not share one 64-bit register), S = 2Q + sticky (top bit 57), rounded; then
  // the specials as f32's (lowerFDiv) and the NaN rule.
  void dDivMicro(uint32_t pc, const Instr& in, uint16_t a, uint16_t b, uint16_t d, uint32_t mode) {
    const Steps S{*this, pc, in};
    const uint8_t u32 = typeCode(4, false), u64 = typeCode(8, false);
    uint16_t t[10];
    for (uint32_t i = 0; i < 10; ++i) t[i] = scratch(pc, i);
    const auto [ma, ea] = unpackF64(pc, in, a, t[0], t[1], t[2], t[3], t[4], t[5]);
    const auto [mb, eb] = unpackF64(pc, in, b, t[6], t[7], t[2], t[3], t[4], t[5]);
    S.test(t[5], MCmp::Lo, u64, ma, mb);
    S(MOp::Shl, u64, t[2], ma, t[5]);  // R
    S(MOp::Sub, u32, t[1], ea, eb);
    S(MOp::Sub, u32, t[1], t[1], t[5]);
    S(MOp::Add, u32, t[1], t[1], S.k(1023));  // the quotient's exponent field
    S(MOp::Mov, u64, t[3], S.k(0));  // Q
    microLoop(pc, 57, 3, t[8], t[5], [&] {
      S.test(t[5], MCmp::Hs, u64, t[2], mb);
      emitGuardedBy(t[5], MOp::Sub, u64, t[2], t[2], mb);
      S(MOp::CAdd, u64, t[3], t[3], t[3], t[5], 1);
      S(MOp::Shl, u64, t[2], t[2], S.k(1));
    });
    S.test(t[5], MCmp::Ne, u64, t[2], S.k(0));
    S(MOp::CAdd, u64, t[3], t[3], t[3], t[5], 1);  // S = 2Q + sticky
    S(MOp::Xor, u64, t[4], a, b);
    S(MOp::And, u64, t[4], t[4], S.k(kSign64));
    roundFloat(pc, in, t[3], t[1], t[4], mode, false, t[0], t[2], t[7], t[5], true);
    S(MOp::And, u64, t[0], a, S.k(kAbs64));
    S(MOp::And, u64, t[2], b, S.k(kAbs64));
    S.test(t[5], MCmp::Eq, u64, t[0], S.k(0));
    S.test(t[7], MCmp::Eq, u64, t[2], S.k(kInf64));
    S(MOp::Or, u32, t[5], t[5], t[7]);
    S.pick(u64, t[3], t[5], t[4], t[3]);  // 0 / x, x / inf: the signed zero
    S.test(t[5], MCmp::Eq, u64, t[0], S.k(kInf64));
    S.test(t[7], MCmp::Eq, u64, t[2], S.k(0));
    S(MOp::Or, u32, t[5], t[5], t[7]);
    S(MOp::Or, u64, t[1], t[4], S.k(kInf64));
    S.pick(u64, t[3], t[5], t[1], t[3]);  // inf / x, x / 0: the signed infinity
    S(MOp::And, u64, t[1], t[0], t[2]);
    S.test(t[5], MCmp::Hs, u64, t[1], S.k(kInf64));  // both infinite (or a NaN)
    S(MOp::Or, u64, t[1], t[0], t[2]);
    S.test(t[7], MCmp::Eq, u64, t[1], S.k(0));  // both zero
    S(MOp::Or, u32, t[5], t[5], t[7]);
    S.pick(u64, t[3], t[5], S.k(kNaN64), t[3]);
    firstNaNQuietened(S, {{a, t[0]}, {b, t[2]}}, t[5], t[1], t[3], d);
  }

  // sqrt.f64: a = m * 2^E (m the 53-bit significand), M = m doubled where E is odd; 57 root
  // bits of N = M * 2^60 (< 2^114) by the digit recurrence of lowerFSqrt on 64-bit registers
  // (r = 4r + N's next two bits, pulled from M << 10; trial 4q + 1; nine steps a bit), S =
  // 2q + sticky (top bit 57), exponent field (E - odd) / 2 + 1049; then NaN, +-0 (itself),
  // negative (NaN), +inf.
  void dSqrtMicro(uint32_t pc, const Instr& in, uint16_t a, uint16_t d, uint32_t mode) {
    const Steps S{*this, pc, in};
    const uint8_t u32 = typeCode(4, false), s32 = typeCode(4, true), u64 = typeCode(8, false),
                  s64 = typeCode(8, true);
    uint16_t t[10];
    for (uint32_t i = 0; i < 10; ++i) t[i] = scratch(pc, i);
    const auto [m, e] = unpackF64(pc, in, a, t[0], t[1], t[2], t[3], t[4], t[5]);
    S(MOp::And, u32, t[5], e, S.k(1));
    S(MOp::Xor, u32, t[5], t[5], S.k(1));  // E = e - 1075 is odd where e is even
    S(MOp::Shl, u64, t[0], m, t[5]);  // M
    S(MOp::Sub, u32, t[1], e, S.k(1075));
    S(MOp::Sub, u32, t[1], t[1], t[5]);
    S(MOp::Shr, s32, t[1], t[1], S.k(1));
    S(MOp::Add, u32, t[1], t[1], S.k(1049));  // the root's exponent field
    S(MOp::Shl, u64, t[2], t[0], S.k(10));  // N's bits, two by two from bit 63
    S(MOp::Mov, u64, t[3], S.k(0));  // r
    S(MOp::Mov, u64, t[4], S.k(0));  // q
    microLoop(pc, 57, 3, t[8], t[5], [&] {
      S(MOp::Shl, u64, t[3], t[3], S.k(2));
      S(MOp::Shr, u64, t[7], t[2], S.k(62));
      S(MOp::Or, u64, t[3], t[3], t[7]);
      S(MOp::Shl, u64, t[2], t[2], S.k(2));
      S(MOp::Shl, u64, t[6], t[4], S.k(2));
      S(MOp::Or, u64, t[6], t[6], S.k(1));
      S.test(t[5], MCmp::Hs, u64, t[3], t[6]);
      emitGuardedBy(t[5], MOp::Sub, u64, t[3], t[3], t[6]);
      S(MOp::CAdd, u64, t[4], t[4], t[4], t[5], 1);
    });
    S.test(t[5], MCmp::Ne, u64, t[3], S.k(0));
    S(MOp::CAdd, u64, t[4], t[4], t[4], t[5], 1);  // S
    roundFloat(pc, in, t[4], t[1], kNoOperand, mode, false, t[0], t[2], t[3], t[5], true);
    S(MOp::And, u64, t[0], a, S.k(kAbs64));
    S.test(t[5], MCmp::Eq, u64, t[0], S.k(kInf64));
    S.pick(u64, t[4], t[5], a, t[4]);
    S.test(t[5], MCmp::Lt, s64, a, S.k(0));
    S.pick(u64, t[4], t[5], S.k(kNaN64), t[4]);  // negative (-inf too)
    S.test(t[5], MCmp::Eq, u64, t[0], S.k(0));
    S.pick(u64, t[4], t[5], a, t[4]);  // +-0
    firstNaNQuietened(S, {{a, t[0]}}, t[5], t[1], t[4], d);
  }

  // fma.f64: the exact product X = ma * mb * 2^20 (< 2^126: mul.hi and mul.lo of the
  // significands at bit 62) and Y = mc * 2^73 (top bit 125) as 128-bit pairs; the one of the
  // lower frame exponent shifted right by k = the difference (at most 127)
  // with the bits shifted out jammed into bit 0 (bits fall out only where k > 20, and then
  // no cancellation reaches them), added or subtracted with carries, negated where negative
  // (only for k <= 1: exact; or where a zero c is the larger frame: then the sign flips to
  // the product's, as it must), normalised by the 128-bit count of leading zeros, S = the top
  // 58 bits with a sticky bit, rounded. Then the specials in fmaParts's order
  // (machine/src/units_f64.cpp): a NaN, b NaN, c NaN, 0 * inf and inf - inf, inf, c inf,
  // both zero, product zero, exact cancellation.
  void dFmaMicro(uint32_t pc, const Instr& in, uint16_t a, uint16_t b, uint16_t c, uint16_t d, uint32_t mode) {
    const Steps S{*this, pc, in};
    const uint8_t u32 = typeCode(4, false), s32 = typeCode(4, true), u64 = typeCode(8, false),
                  s64 = typeCode(8, true);
    uint16_t t[10];
    for (uint32_t i = 0; i < 10; ++i) t[i] = scratch(pc, i);
    const auto [ma, ea] = unpackF64(pc, in, a, t[2], t[3], t[0], t[1], t[4], t[5]);
    const auto [mb, eb] = unpackF64(pc, in, b, t[6], t[7], t[0], t[1], t[4], t[5]);
    S(MOp::Add, u32, t[3], ea, eb);
    const uint16_t xa = shiftedLeft(pc, in, ma, 10, t[2]), xb = shiftedLeft(pc, in, mb, 10, t[6]);
    mulHigh64(pc, in, false, xa, xb, t[4]);  // uses scratch 0 and 1
    mul64(pc, in, xa, xb, kNoOperand, t[7]);  // X = (t4, t7)
    const auto [mc, ec] = unpackF64(pc, in, c, t[2], t[6], t[0], t[1], t[5], t[8]);
    S(MOp::Shl, u64, t[2], mc, S.k(9));  // Y = (t2, 0)
    S(MOp::Sub, u32, t[3], t[3], S.k(2170));  // X's frame exponent (of its bit 0)
    S(MOp::Sub, u32, t[6], ec, S.k(1148));    // Y's
    S(MOp::Sub, u32, t[0], t[3], t[6]);
    S.test(t[1], MCmp::Lt, s32, t[0], S.k(0));  // Y is the larger frame
    S.pick(u32, t[3], t[1], t[6], t[3]);  // the frame exponent
    S(MOp::Sub, u32, t[5], S.k(0), t[0]);
    S.pick(u32, t[0], t[1], t[5], t[0]);
    S.test(t[5], MCmp::Gt, s32, t[0], S.k(127));
    S.pick(u32, t[0], t[5], S.k(127), t[0]);  // k
    S.pick(u64, t[5], t[1], t[2], t[4]);  // big (t5, t6), small (t8, t9)
    S.pick(u64, t[6], t[1], S.k(0), t[7]);
    S.pick(u64, t[8], t[1], t[4], t[2]);
    S.pick(u64, t[9], t[1], t[7], S.k(0));
    // small >> k: lo = lo >> k | hi << (64 - k) | hi >> (k - 64) (shifts of 64 or more, and
    // negative ones, give 0); the bits lost: lo << (64 - min(k, 64)) and hi << (128 - k)
    S(MOp::Shr, u64, t[2], t[9], t[0]);
    S(MOp::Sub, u32, t[4], S.k(64), t[0]);
    S(MOp::Shl, u64, t[7], t[8], t[4]);
    S(MOp::Or, u64, t[2], t[2], t[7]);
    S(MOp::Sub, u32, t[4], t[0], S.k(64));
    S(MOp::Shr, u64, t[7], t[8], t[4]);
    S(MOp::Or, u64, t[2], t[2], t[7]);
    S.test(t[4], MCmp::Hi, u32, t[0], S.k(64));
    S.pick(u32, t[4], t[4], S.k(64), t[0]);
    S(MOp::Sub, u32, t[4], S.k(64), t[4]);
    S(MOp::Shl, u64, t[7], t[9], t[4]);
    S(MOp::Sub, u32, t[4], S.k(128), t[0]);
    S(MOp::Shl, u64, t[9], t[8], t[4]);
    S(MOp::Or, u64, t[7], t[7], t[9]);
    S.test(t[7], MCmp::Ne, u64, t[7], S.k(0));
    S(MOp::Or, u64, t[2], t[2], t[7]);
    S(MOp::Shr, u64, t[8], t[8], t[0]);  // small = (t8, t2)
    // big +- small: subtract where the product's and c's signs differ
    S(MOp::Xor, u64, t[4], a, b);
    S(MOp::Xor, u64, t[4], t[4], c);
    S.test(t[4], MCmp::Lt, s64, t[4], S.k(0));
    S(MOp::Carry, u64, t[0], t[6], t[2]);
    S(MOp::Add, u64, t[7], t[6], t[2]);
    S(MOp::CAdd, u64, t[9], t[5], t[8], t[0], 1);  // the sum (t9, t7)
    S(MOp::Carry, u64, t[0], t[6], t[2], kNoOperand, 4);
    S(MOp::Sub, u64, t[6], t[6], t[2]);
    S(MOp::CAdd, u64, t[5], t[5], t[8], t[0], 5);  // the difference (t5, t6)
    S.pick(u64, t[6], t[4], t[6], t[7]);
    S.pick(u64, t[5], t[4], t[5], t[9]);  // R = (t5, t6)
    S.test(t[4], MCmp::Lt, s64, t[5], S.k(0));
    S(MOp::Carry, u64, t[0], S.k(0), t[6], kNoOperand, 4);
    S(MOp::Sub, u64, t[7], S.k(0), t[6]);
    S(MOp::CAdd, u64, t[8], S.k(0), t[5], t[0], 5);
    S.pick(u64, t[6], t[4], t[7], t[6]);
    S.pick(u64, t[5], t[4], t[8], t[5]);  // |R|
    S(MOp::Xor, u64, t[0], a, b);
    S.pick(u64, t[0], t[1], c, t[0]);
    S(MOp::And, u64, t[0], t[0], S.k(kSign64));
    S(MOp::Shl, u64, t[4], t[4], S.k(63));
    S(MOp::Xor, u64, t[0], t[0], t[4]);  // the sign: the larger term's, flipped where R < 0
    S(MOp::Or, u64, t[9], t[5], t[6]);
    S.test(t[9], MCmp::Eq, u64, t[9], S.k(0));  // exact cancellation
    clz64(pc, in, t[5], t[1], t[2], t[7], t[8]);
    clz64(pc, in, t[6], t[4], t[2], t[7], t[8]);
    S(MOp::Add, u32, t[4], t[4], S.k(64));
    S.test(t[8], MCmp::Eq, u64, t[5], S.k(0));
    S.pick(u32, t[1], t[8], t[4], t[1]);  // lz
    S(MOp::Shl, u64, t[5], t[5], t[1]);
    S(MOp::Sub, u32, t[2], S.k(64), t[1]);
    S(MOp::Shr, u64, t[7], t[6], t[2]);
    S(MOp::Or, u64, t[5], t[5], t[7]);
    S(MOp::Sub, u32, t[2], t[1], S.k(64));
    S(MOp::Shl, u64, t[7], t[6], t[2]);
    S(MOp::Or, u64, t[5], t[5], t[7]);
    S(MOp::Shl, u64, t[6], t[6], t[1]);  // R << lz
    S(MOp::And, u64, t[7], t[5], S.k(63));
    S(MOp::Or, u64, t[7], t[7], t[6]);
    S.test(t[7], MCmp::Ne, u64, t[7], S.k(0));
    S(MOp::Shr, u64, t[5], t[5], S.k(6));
    S(MOp::Or, u64, t[5], t[5], t[7]);  // S, top bit 57
    S(MOp::Sub, u32, t[3], t[3], t[1]);
    S(MOp::Add, u32, t[3], t[3], S.k(1150));  // its exponent field: frame + 127 - lz + 1023
    roundFloat(pc, in, t[5], t[3], t[0], mode, false, t[1], t[2], t[4], t[7], true);
    S.pick(u64, t[5], t[9], S.k(mode == 2 ? kSign64 : 0), t[5]);
    S(MOp::And, u64, t[1], a, S.k(kAbs64));
    S(MOp::And, u64, t[2], b, S.k(kAbs64));
    S(MOp::And, u64, t[3], c, S.k(kAbs64));
    S.test(t[4], MCmp::Eq, u64, t[1], S.k(0));
    S.test(t[7], MCmp::Eq, u64, t[2], S.k(0));
    S(MOp::Or, u32, t[4], t[4], t[7]);  // the product is zero
    S.pick(u64, t[5], t[4], c, t[5]);
    S.test(t[6], MCmp::Eq, u64, t[3], S.k(0));
    S(MOp::And, u32, t[6], t[6], t[4]);
    S(MOp::Xor, u64, t[7], a, b);
    S(mode == 2 ? MOp::Or : MOp::And, u64, t[7], t[7], c);
    S(MOp::And, u64, t[7], t[7], S.k(kSign64));
    S.pick(u64, t[5], t[6], t[7], t[5]);  // both zero
    S.test(t[6], MCmp::Eq, u64, t[3], S.k(kInf64));
    S.pick(u64, t[5], t[6], c, t[5]);  // c infinite
    S.test(t[8], MCmp::Eq, u64, t[1], S.k(kInf64));
    S.test(t[9], MCmp::Eq, u64, t[2], S.k(kInf64));
    S(MOp::Or, u32, t[8], t[8], t[9]);  // the product is infinite
    S(MOp::Xor, u64, t[9], a, b);
    S(MOp::And, u64, t[9], t[9], S.k(kSign64));
    S(MOp::Or, u64, t[9], t[9], S.k(kInf64));
    S.pick(u64, t[5], t[8], t[9], t[5]);
    S(MOp::And, u32, t[4], t[4], t[8]);  // 0 * inf
    S(MOp::Xor, u64, t[9], a, b);
    S(MOp::Xor, u64, t[9], t[9], c);
    S.test(t[9], MCmp::Lt, s64, t[9], S.k(0));
    S(MOp::And, u32, t[9], t[9], t[6]);
    S(MOp::And, u32, t[9], t[9], t[8]);  // inf - inf
    S(MOp::Or, u32, t[4], t[4], t[9]);
    S.pick(u64, t[5], t[4], S.k(kNaN64), t[5]);
    firstNaNQuietened(S, {{a, t[1]}, {b, t[2]}, {c, t[3]}}, t[6], t[7], t[5], d);
  }

  // cvt.f32.f64: S = the significand's top 29 bits with a sticky bit (top bit 28), the f32
  // exponent field e - 896 (clamped to 255, which overflows: (e - 1) << 23 stays in 32 bits),
  // rounded (ftz: a subnormal result flushed); then +-inf, .sat (NaN, negative and zero to
  // +0, 1.0 and above to 1.0) and NaN (canonical, or +0 with .sat).
  void d2fMicro(uint32_t pc, const Instr& in, uint16_t x, uint16_t d, uint32_t mode, bool ftz, bool sat) {
    const Steps S{*this, pc, in};
    const uint8_t u32 = typeCode(4, false), s32 = typeCode(4, true), u64 = typeCode(8, false);
    uint16_t t[8];
    for (uint32_t i = 0; i < 8; ++i) t[i] = scratch(pc, i);
    const auto [m, e] = unpackF64(pc, in, x, t[0], t[1], t[2], t[3], t[4], t[5]);
    S(MOp::And, u64, t[2], m, S.k(0xffffff));
    S.test(t[3], MCmp::Ne, u64, t[2], S.k(0));
    S(MOp::Shr, u64, t[0], m, S.k(24));
    S(MOp::Or, u64, t[0], t[0], t[3]);
    S(MOp::Sub, u32, t[1], e, S.k(896));
    S.test(t[3], MCmp::Gt, s32, t[1], S.k(255));
    S.pick(u32, t[1], t[3], S.k(255), t[1]);
    S(MOp::Shr, u64, t[6], x, S.k(32));
    S(MOp::And, u32, t[6], t[6], S.k(0x80000000u));
    roundFloat(pc, in, t[0], t[1], t[6], mode, ftz, t[2], t[3], t[4], t[5], false);
    S(MOp::And, u64, t[2], x, S.k(kAbs64));
    S.test(t[3], MCmp::Eq, u64, t[2], S.k(kInf64));
    S(MOp::Or, u32, t[4], t[6], S.k(0x7f800000u));
    S.pick(u32, t[0], t[3], t[4], t[0]);
    if (sat) {
      S.test(t[3], MCmp::Lt, s32, t[0], S.k(1));
      S.pick(u32, t[0], t[3], S.k(0), t[0]);
      S.test(t[3], MCmp::Hs, u32, t[0], S.k(0x3f800000u));
      S.pick(u32, t[0], t[3], S.k(0x3f800000u), t[0]);
    }
    S.test(t[3], MCmp::Hi, u64, t[2], S.k(kInf64));
    S.pick(u32, d, t[3], S.k(sat ? 0 : 0x7fffffffu), t[0]);
  }

  /// 64-bit count of leading zeros of x into `to` (the lane-serial 32-bit CLZ of each half):
  /// 7 steps; `to` apart from hi.
  void clz64(uint32_t pc, const Instr& in, uint16_t x, uint16_t to, uint16_t lo, uint16_t hi, uint16_t p) {
    const uint8_t u32 = typeCode(4, false), u64 = typeCode(8, false);
    emitStep(pc, in, MOp::And, u64, 0, lo, x, constant(pc, 0xffffffffu), kNoOperand);
    emitStep(pc, in, MOp::Shr, u64, 0, hi, x, constant(pc, 32), kNoOperand);
    emitStep(pc, in, MOp::Clz, u32, 0, lo, lo, kNoOperand, kNoOperand);
    emitStep(pc, in, MOp::Clz, u32, 0, to, hi, kNoOperand, kNoOperand);
    emitStep(pc, in, MOp::Add, u32, 0, lo, lo, constant(pc, 32), kNoOperand);
    emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Eq), p, hi, constant(pc, 0), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, to, lo, to, p);
  }

  /// unpackF32's f64 twin: the significand normalised to [2^52, 2^53) into m and the biased
  /// exponent less the shift into e (value = m * 2^(e - 1075)); 17 steps, a constant's folded.
  std::pair<uint16_t, uint16_t> unpackF64(uint32_t pc, const Instr& in, uint16_t x, uint16_t m, uint16_t e, uint16_t t1,
                                          uint16_t t2, uint16_t t3, uint16_t p) {
    const uint8_t u32 = typeCode(4, false), u64 = typeCode(8, false);
    if (auto k = constantOf(x)) {
      const uint64_t ex = (*k >> 52) & 0x7ff, ex1 = std::max<uint64_t>(ex, 1);
      const uint64_t m0 = (*k & 0xfffffffffffffull) | (ex ? 1ull << 52 : 0);
      const uint64_t sh = m0 ? static_cast<uint64_t>(std::countl_zero(m0)) - 11 : 0;
      return {constant(pc, m0 << sh), constant(pc, (ex1 - sh) & 0xffffffffu)};
    }
    emitStep(pc, in, MOp::And, u64, 0, m, x, constant(pc, 0x7fffffffffffffffull), kNoOperand);
    emitStep(pc, in, MOp::Shr, u64, 0, e, m, constant(pc, 52), kNoOperand);
    emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Lo), p, e, constant(pc, 1), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, e, constant(pc, 1), e, p);
    emitStep(pc, in, MOp::Sub, u32, 0, t1, e, constant(pc, 1), kNoOperand);
    emitStep(pc, in, MOp::Shl, u64, 0, t1, t1, constant(pc, 52), kNoOperand);
    emitStep(pc, in, MOp::Sub, u64, 0, m, m, t1, kNoOperand);
    clz64(pc, in, m, t1, t2, t3, p);
    emitStep(pc, in, MOp::Sub, u32, 0, t1, t1, constant(pc, 11), kNoOperand);
    emitStep(pc, in, MOp::Shl, u64, 0, m, m, t1, kNoOperand);
    emitStep(pc, in, MOp::Sub, u32, 0, e, e, t1, kNoOperand);
    return {m, e};
  }

  /// v << k into `to`, or the constant it folds to.
  uint16_t shiftedLeft(uint32_t pc, const Instr& in, uint16_t v, uint32_t k, uint16_t to) {
    if (auto c = constantOf(v)) return constant(pc, *c << k);
    emitStep(pc, in, MOp::Shl, typeCode(8, false), 0, to, v, constant(pc, k), kNoOperand);
    return to;
  }

  // mul.f64 (every rounding mode) as ALU micro-code: the significands normalised to bit 63,
  // the high half of their 128-bit product (mulHigh64) and whether the low half is non-zero
  // (mul.lo.64's micro-code), S = the top 58 bits with a sticky bit, rounded by roundFloat;
  // then the specials (the first NaN operand quietened, 0 * inf the canonical NaN, inf, 0).
  void lowerDMulMicro(uint32_t pc, const Instr& in, uint16_t a, uint16_t b, uint16_t d, uint32_t mode) {
    const uint8_t u32 = typeCode(4, false), u64 = typeCode(8, false);
    const uint16_t t0 = scratch(pc, 0), t1 = scratch(pc, 1), t2 = scratch(pc, 2), t3 = scratch(pc, 3), t4 = scratch(pc, 4),
                   t5 = scratch(pc, 5), t6 = scratch(pc, 6), t7 = scratch(pc, 7);
    const auto [ma, ea] = unpackF64(pc, in, a, t2, t3, t0, t1, t4, t5);
    const auto [mb, eb] = unpackF64(pc, in, b, t6, t7, t0, t1, t4, t5);
    emitStep(pc, in, MOp::Add, u32, 0, t3, ea, eb, kNoOperand);
    emitStep(pc, in, MOp::Sub, u32, 0, t3, t3, constant(pc, 1023), kNoOperand);  // the product's exponent field, or one less
    const uint16_t xa = shiftedLeft(pc, in, ma, 11, t2), xb = shiftedLeft(pc, in, mb, 11, t6);
    mulHigh64(pc, in, false, xa, xb, t4);  // in [2^62, 2^64)
    mul64(pc, in, xa, xb, kNoOperand, t7);  // the low half
    emitStep(pc, in, MOp::Shr, u64, 0, t0, t4, constant(pc, 63), kNoOperand);
    emitStep(pc, in, MOp::Add, u32, 0, t3, t3, t0, kNoOperand);
    emitStep(pc, in, MOp::Add, u32, 0, t1, t0, constant(pc, 5), kNoOperand);  // the bits below S's top bit 57
    emitStep(pc, in, MOp::Shl, u64, 0, t2, constant(pc, 1), t1, kNoOperand);
    emitStep(pc, in, MOp::Sub, u64, 0, t2, t2, constant(pc, 1), kNoOperand);
    emitStep(pc, in, MOp::And, u64, 0, t2, t4, t2, kNoOperand);
    emitStep(pc, in, MOp::Or, u64, 0, t2, t2, t7, kNoOperand);
    emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Ne), t5, t2, constant(pc, 0), kNoOperand);
    emitStep(pc, in, MOp::Shr, u64, 0, t4, t4, t1, kNoOperand);
    emitStep(pc, in, MOp::Or, u64, 0, t4, t4, t5, kNoOperand);  // S = 2q + sticky, top bit 57
    emitStep(pc, in, MOp::Xor, u64, 0, t6, a, b, kNoOperand);
    emitStep(pc, in, MOp::And, u64, 0, t6, t6, constant(pc, 1ull << 63), kNoOperand);
    roundFloat(pc, in, t4, t3, t6, mode, false, t0, t1, t2, t5, true);
    constexpr uint64_t kInf = kInf64, kNaN = kNaN64;
    const uint16_t absA = t0, absB = t1;
    emitStep(pc, in, MOp::And, u64, 0, absA, a, constant(pc, kNaN), kNoOperand);
    emitStep(pc, in, MOp::And, u64, 0, absB, b, constant(pc, kNaN), kNoOperand);
    auto test = [&](uint16_t to, MCmp c, uint16_t x, uint64_t k) {
      emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(c), to, x, constant(pc, k), kNoOperand);
    };
    auto pick = [&](uint16_t cond, uint16_t value, uint16_t to) { emitStep(pc, in, MOp::Selp, u64, 0, to, value, t4, cond); };
    test(t5, MCmp::Eq, absA, 0);
    test(t2, MCmp::Eq, absB, 0);
    emitStep(pc, in, MOp::Or, u32, 0, t5, t5, t2, kNoOperand);
    pick(t5, t6, t4);  // a zero: the signed zero
    test(t5, MCmp::Hs, absA, kInf);
    test(t2, MCmp::Hs, absB, kInf);
    emitStep(pc, in, MOp::Or, u32, 0, t5, t5, t2, kNoOperand);
    emitStep(pc, in, MOp::Or, u64, 0, t7, t6, constant(pc, kInf), kNoOperand);
    pick(t5, t7, t4);  // an infinity: the signed infinity
    test(t5, MCmp::Eq, absA, 0);
    test(t2, MCmp::Hs, absB, kInf);
    emitStep(pc, in, MOp::And, u32, 0, t5, t5, t2, kNoOperand);
    test(t2, MCmp::Hs, absA, kInf);
    test(t7, MCmp::Eq, absB, 0);
    emitStep(pc, in, MOp::And, u32, 0, t2, t2, t7, kNoOperand);
    emitStep(pc, in, MOp::Or, u32, 0, t5, t5, t2, kNoOperand);
    pick(t5, constant(pc, kNaN), t4);  // 0 * inf
    firstNaNQuietened(Steps{*this, pc, in}, {{a, absA}, {b, absB}}, t5, t2, t4, d);
  }

  // cvt from an integer to f32 or f64 where the compiled step has no I2F for it (a 64-bit
  // source, an f64 destination, a 1- or 2-byte source): the magnitude in 64 bits, normalised
  // by clz64 to bit 63, S = its top bits with a sticky bit, rounded by roundFloat; 0 gives +0.
  void lowerI2FMicro(uint32_t pc, const Instr& in, ScalarType st, bool toF64, uint32_t mode) {
    const uint8_t u32 = typeCode(4, false), u64 = typeCode(8, false), s64 = typeCode(8, true);
    const uint32_t bytes = scalarTypeBytes(st);
    const bool sgn = isSigned(st);
    const uint16_t v = scratch(pc, 0), sign = scratch(pc, 1), lz = scratch(pc, 2), t3 = scratch(pc, 3), t4 = scratch(pc, 4),
                   p = scratch(pc, 5), e = scratch(pc, 6), d = operand(pc, in.d[0]), x = operand(pc, in.s[0]);
    // v = x extended to 64 bits by its type
    if (bytes == 8) {
      emitStep(pc, in, MOp::Mov, u64, 0, v, x, kNoOperand, kNoOperand);
    } else if (bytes == 4) {
      emitStep(pc, in, MOp::MulWide, typeCode(4, sgn), 0, v, x, constant(pc, 1), kNoOperand);
    } else {
      emitStep(pc, in, MOp::Shl, u64, 0, v, x, constant(pc, 64 - 8 * bytes), kNoOperand);
      emitStep(pc, in, MOp::Shr, sgn ? s64 : u64, 0, v, v, constant(pc, 64 - 8 * bytes), kNoOperand);
    }
    uint16_t signBit = kNoOperand;
    if (sgn) {
      emitStep(pc, in, MOp::Shr, s64, 0, sign, v, constant(pc, 63), kNoOperand);
      emitStep(pc, in, MOp::Xor, u64, 0, v, v, sign, kNoOperand);
      emitStep(pc, in, MOp::Sub, u64, 0, v, v, sign, kNoOperand);
      emitStep(pc, in, MOp::And, toF64 ? u64 : u32, 0, sign, sign, constant(pc, toF64 ? 1ull << 63 : 0x80000000ull),
               kNoOperand);
      signBit = sign;
    }
    clz64(pc, in, v, lz, t3, t4, p);
    const uint32_t below = toF64 ? 6 : 35;  // the bits under S's top bit (57 or 28), from bit 63
    emitStep(pc, in, MOp::Shl, u64, 0, t3, v, lz, kNoOperand);
    emitStep(pc, in, MOp::And, u64, 0, t4, t3, constant(pc, (1ull << below) - 1), kNoOperand);
    emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Ne), p, t4, constant(pc, 0), kNoOperand);
    emitStep(pc, in, MOp::Shr, u64, 0, t3, t3, constant(pc, below), kNoOperand);
    emitStep(pc, in, MOp::Or, u64, 0, t3, t3, p, kNoOperand);
    emitStep(pc, in, MOp::Sub, u32, 0, e, constant(pc, (toF64 ? 1023 : 127) + 63), lz, kNoOperand);
    roundFloat(pc, in, t3, e, signBit, mode, false, lz, t4, scratch(pc, 7), p, toF64);
    emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Eq), p, v, constant(pc, 0), kNoOperand);
    emitStep(pc, in, MOp::Selp, toF64 ? u64 : u32, 0, d, constant(pc, 0), t3, p);
  }

  // cvt from f32 to a 64-bit integer, or from f64 to any, where the compiled step has no F2I:
  // value = m * 2^sh; the magnitude rounded to an integer by the same bias before a right
  // shift of max(-sh, 0) (at most 63) as roundFloat's, then shifted left by max(sh, 0);
  // then the sign, saturation to the type's range (a magnitude of 2^64 or more: sh above
  // 63 - fraction bits), and NaN: the type's minimum for a 64-bit result or an f64 source,
  // else 0 (the interpreter's rule).
  void lowerF2IMicro(uint32_t pc, const Instr& in, ScalarType dt, bool fromF64, bool ftz, uint32_t mode) {
    const uint8_t u32 = typeCode(4, false), s32 = typeCode(4, true), u64 = typeCode(8, false);
    const uint32_t dbits = 8 * scalarTypeBytes(dt), fracBits = fromF64 ? 52 : 23;
    const bool sgn = isSigned(dt);
    const uint16_t t0 = scratch(pc, 0), t1 = scratch(pc, 1), t2 = scratch(pc, 2), t3 = scratch(pc, 3), t4 = scratch(pc, 4),
                   t5 = scratch(pc, 5), t6 = scratch(pc, 6), t7 = scratch(pc, 7), d = operand(pc, in.d[0]);
    const uint16_t x = operand(pc, in.s[0]);
    const uint64_t inf = fromF64 ? 0x7ff0000000000000ull : 0x7f800000ull;
    // negative (t7), NaN (t6), the magnitude's bits (t5: flushed where .ftz)
    emitStep(pc, in, MOp::Setp, fromF64 ? typeCode(8, true) : s32, static_cast<uint8_t>(MCmp::Lt), t7, x, constant(pc, 0),
             kNoOperand);
    emitStep(pc, in, MOp::And, fromF64 ? u64 : u32, 0, t5, x, constant(pc, fromF64 ? 0x7fffffffffffffffull : 0x7fffffffull),
             kNoOperand);
    emitStep(pc, in, MOp::Setp, fromF64 ? u64 : u32, static_cast<uint8_t>(MCmp::Hi), t6, t5, constant(pc, inf), kNoOperand);
    if (ftz) {
      emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Lo), t4, t5, constant(pc, 0x800000), kNoOperand);
      emitStep(pc, in, MOp::Selp, u32, 0, t5, constant(pc, 0), t5, t4);
    }
    const auto [m, e] = fromF64 ? unpackF64(pc, in, t5, t0, t1, t2, t3, t4, t5)
                                : unpackF32(pc, in, t5, t0, t1, t2, t3);
    // sh = e - bias - fraction bits (t1); n = max(-sh, 0) at most 63 (t2); left = max(sh, 0) (t3)
    emitStep(pc, in, MOp::Sub, u32, 0, t1, e, constant(pc, fromF64 ? 1075 : 150), kNoOperand);
    emitStep(pc, in, MOp::Sub, u32, 0, t2, constant(pc, 0), t1, kNoOperand);
    emitStep(pc, in, MOp::Setp, s32, static_cast<uint8_t>(MCmp::Lt), t4, t2, constant(pc, 0), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, t2, constant(pc, 0), t2, t4);
    emitStep(pc, in, MOp::Setp, s32, static_cast<uint8_t>(MCmp::Gt), t4, t2, constant(pc, 63), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, t2, constant(pc, 63), t2, t4);
    emitStep(pc, in, MOp::Setp, s32, static_cast<uint8_t>(MCmp::Lt), t4, t1, constant(pc, 0), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, t3, constant(pc, 0), t1, t4);
    // big: the magnitude is 2^64 or more (infinities too)
    emitStep(pc, in, MOp::Setp, s32, static_cast<uint8_t>(MCmp::Gt), t1, t1, constant(pc, 63 - fracBits), kNoOperand);
    // the bias: rni half - 1 + the kept lowest bit (none when nothing is dropped), away from
    // zero 2^n - 1 (rmi where negative, rpi where positive), rzi none
    if (mode != 1) {
      emitStep(pc, in, MOp::Shl, u64, 0, t4, constant(pc, 1), t2, kNoOperand);
      emitStep(pc, in, MOp::Sub, u64, 0, t4, t4, constant(pc, 1), kNoOperand);  // 2^n - 1
      if (mode == 0) {
        emitStep(pc, in, MOp::Shr, u64, 0, t5, m, t2, kNoOperand);
        emitStep(pc, in, MOp::And, u64, 0, t5, t5, t4, kNoOperand);
        emitStep(pc, in, MOp::And, u64, 0, t5, t5, constant(pc, 1), kNoOperand);
        emitStep(pc, in, MOp::Shr, u64, 0, t4, t4, constant(pc, 1), kNoOperand);
        emitStep(pc, in, MOp::Add, u64, 0, t4, t4, t5, kNoOperand);
      } else {
        const bool up = mode == 3;  // rpi: away from zero where positive; rmi: where negative
        emitStep(pc, in, MOp::Selp, u64, 0, t4, up ? constant(pc, 0) : t4, up ? t4 : constant(pc, 0), t7);
      }
      emitStep(pc, in, MOp::Add, u64, 0, t0, m, t4, kNoOperand);
      emitStep(pc, in, MOp::Shr, u64, 0, t0, t0, t2, kNoOperand);
    } else {
      emitStep(pc, in, MOp::Shr, u64, 0, t0, m, t2, kNoOperand);
    }
    emitStep(pc, in, MOp::Shl, u64, 0, t0, t0, t3, kNoOperand);  // the magnitude q
    // saturation: q above the type's largest (positive) or its smallest's magnitude (negative)
    const uint64_t posLimit = sgn ? (uint64_t{1} << (dbits - 1)) - 1 : dbits == 64 ? ~0ull : (uint64_t{1} << dbits) - 1;
    const uint64_t negMagnitude = sgn ? uint64_t{1} << (dbits - 1) : 0;
    emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Hi), t2, t0, constant(pc, posLimit), kNoOperand);
    emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Hi), t3, t0, constant(pc, negMagnitude), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, t2, t3, t2, t7);
    emitStep(pc, in, MOp::Or, u32, 0, t2, t2, t1, kNoOperand);  // out of range
    emitStep(pc, in, MOp::Selp, u64, 0, t3, constant(pc, 0 - negMagnitude), constant(pc, posLimit), t7);
    emitStep(pc, in, MOp::Sub, u64, 0, t4, constant(pc, 0), t0, kNoOperand);
    emitStep(pc, in, MOp::Selp, u64, 0, t0, t4, t0, t7);  // signed
    emitStep(pc, in, MOp::Selp, u64, 0, t0, t3, t0, t2);
    const uint64_t nanValue = dbits == 64 || fromF64 ? uint64_t{1} << (dbits - 1) : 0;
    const uint8_t out = typeCode(in.dstBytes, false);
    emitStep(pc, in, MOp::Selp, out, 0, d, constant(pc, nanValue), t0, t6);
  }

  // f32 div, rcp and sqrt (every rounding mode, .ftz) are ALU micro-code (docs/machine.md
  // §2.1): the operands unpacked to normalised significands, a restoring recurrence for 28
  // quotient (root) bits, S = 2q + sticky rounded by integer steps, then the special operands
  // by selects. The 4-bit FDIVSTEP/FSQRTSTEP units are ~20 levels each; the compiled step
  // has no room for them.
  void lowerFDivSqrt(uint32_t pc, const Instr& in) {
    ScalarType ty0 = oneType(pc, in);
    if (ty0 == ScalarType::F64) return lowerDDivSqrt(pc, in);
    requireF32(pc, ty0);
    rejectApproximate(pc, in);
    if (!hasRounding(in)) fail(pc, "needs a rounding modifier");
    const uint8_t fl = floatFlags(pc, in, false);
    const bool ftz = fl & kFlFtz;
    const uint32_t mode = (fl >> 2) & 3;
    if (in.opcode == Opcode::Sqrt) return lowerFSqrt(pc, in, ftz, mode);
    const uint16_t num = in.opcode == Opcode::Rcp ? constant(pc, 0x3f800000) : operand(pc, in.s[0]);
    const uint16_t den = operand(pc, in.s[in.opcode == Opcode::Rcp ? 0 : 1]);
    return lowerFDiv(pc, in, num, den, ftz, mode);
  }

  /// `x`'s significand normalised to [2^23, 2^24) into m, and its biased exponent less the
  /// normalising shift into e (value = m * 2^(e - 150)); a constant's folded. 11 steps, one
  /// of them the lane-serial CLZ. Zeros, infinities and NaNs give values the specials replace.
  std::pair<uint16_t, uint16_t> unpackF32(uint32_t pc, const Instr& in, uint16_t x, uint16_t m, uint16_t e, uint16_t tmp,
                                          uint16_t p) {
    const uint8_t u32 = typeCode(4, false);
    if (auto k = constantOf(x)) {
      const uint32_t bits = static_cast<uint32_t>(*k), ex = (bits >> 23) & 0xff, ex1 = std::max(ex, 1u);
      const uint32_t m0 = (bits & 0x7fffff) | (ex ? 0x800000u : 0);
      const uint32_t sh = m0 ? static_cast<uint32_t>(std::countl_zero(m0)) - 8 : 0;
      return {constant(pc, m0 << sh), constant(pc, ex1 - sh)};
    }
    emitStep(pc, in, MOp::And, u32, 0, m, x, constant(pc, 0x7fffffff), kNoOperand);
    emitStep(pc, in, MOp::Shr, u32, 0, e, m, constant(pc, 23), kNoOperand);
    emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Lo), p, e, constant(pc, 1), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, e, constant(pc, 1), e, p);  // max(exponent field, 1)
    emitStep(pc, in, MOp::Sub, u32, 0, tmp, e, constant(pc, 1), kNoOperand);
    emitStep(pc, in, MOp::Shl, u32, 0, tmp, tmp, constant(pc, 23), kNoOperand);
    emitStep(pc, in, MOp::Sub, u32, 0, m, m, tmp, kNoOperand);  // the fraction, with the implicit bit if normal
    emitStep(pc, in, MOp::Clz, u32, 0, tmp, m, kNoOperand, kNoOperand);
    emitStep(pc, in, MOp::Sub, u32, 0, tmp, tmp, constant(pc, 8), kNoOperand);
    emitStep(pc, in, MOp::Shl, u32, 0, m, m, tmp, kNoOperand);
    emitStep(pc, in, MOp::Sub, u32, 0, e, e, tmp, kNoOperand);
    return {m, e};
  }

  /// s (a register: 2 * significand + sticky, its top bit at 28 for f32, 57 for f64) rounded
  /// to the format's bits in `mode`, e the biased exponent of that top bit; then flushed (ftz,
  /// f32) and signed (sign: a register holding the sign bit alone, or kNoOperand for +).
  /// n = the bits dropped, 5 or more where the result is subnormal (at most 31 / 63: less than
  /// a quarter of the smallest subnormal stays below); the rounding adds a bias before the
  /// shift (rn: half - 1 + the kept lowest bit; rp/rm: 2^n - 1 where the sign says away from
  /// zero); the exponent field is added to the significand, so a carry out of the significand
  /// raises the exponent. s is the result; t1-t3 and p are temporaries.
  void roundFloat(uint32_t pc, const Instr& in, uint16_t s, uint16_t e, uint16_t sign, uint32_t mode, bool ftz,
                  uint16_t t1, uint16_t t2, uint16_t t3, uint16_t p, bool f64) {
    const uint8_t u32 = typeCode(4, false), s32 = typeCode(4, true), w = typeCode(f64 ? 8 : 4, false);
    const uint32_t fracBits = f64 ? 52 : 23, maxDropped = f64 ? 63 : 31;
    const uint64_t inf = f64 ? 0x7ff0000000000000ull : 0x7f800000ull, largest = inf - 1;
    emitStep(pc, in, MOp::Setp, s32, static_cast<uint8_t>(MCmp::Lt), p, e, constant(pc, 1), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, t2, constant(pc, 1), e, p);  // max(e, 1): the exponent field if normal
    emitStep(pc, in, MOp::Sub, u32, 0, t1, t2, e, kNoOperand);
    emitStep(pc, in, MOp::Add, u32, 0, t1, t1, constant(pc, 5), kNoOperand);
    emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Hi), p, t1, constant(pc, maxDropped), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, t1, constant(pc, maxDropped), t1, p);  // n
    emitStep(pc, in, MOp::Sub, u32, 0, t2, t2, constant(pc, 1), kNoOperand);
    emitStep(pc, in, MOp::Shl, w, 0, t2, t2, constant(pc, fracBits), kNoOperand);  // the exponent field less 1, in place
    const bool up = mode == 3, down = mode == 2;  // rp, rm
    const bool bias = mode == 0 || (sign == kNoOperand ? up : up || down);
    if (bias) {
      emitStep(pc, in, MOp::Shl, w, 0, t3, constant(pc, 1), t1, kNoOperand);
      emitStep(pc, in, MOp::Sub, w, 0, t3, t3, constant(pc, 1), kNoOperand);  // 2^n - 1
      if (mode == 0) {
        emitStep(pc, in, MOp::Shr, w, 0, t3, t3, constant(pc, 1), kNoOperand);
        emitStep(pc, in, MOp::Shr, w, 0, p, s, t1, kNoOperand);
        emitStep(pc, in, MOp::And, w, 0, p, p, constant(pc, 1), kNoOperand);
        emitStep(pc, in, MOp::Add, w, 0, t3, t3, p, kNoOperand);
      } else if (sign != kNoOperand) {  // rp: up where positive; rm: where negative
        emitStep(pc, in, MOp::Setp, w, static_cast<uint8_t>(MCmp::Ne), p, sign, constant(pc, 0), kNoOperand);
        emitStep(pc, in, MOp::Selp, w, 0, t3, up ? constant(pc, 0) : t3, up ? t3 : constant(pc, 0), p);
      }
      emitStep(pc, in, MOp::Add, w, 0, s, s, t3, kNoOperand);
    }
    emitStep(pc, in, MOp::Shr, w, 0, s, s, t1, kNoOperand);
    emitStep(pc, in, MOp::Add, w, 0, s, s, t2, kNoOperand);
    // Overflow: infinity, or the largest finite value where the mode rounds toward zero.
    emitStep(pc, in, MOp::Setp, w, static_cast<uint8_t>(MCmp::Hs), p, s, constant(pc, inf), kNoOperand);
    uint16_t overflow = constant(pc, mode == 0 ? inf : mode == 1 ? largest : up ? inf : largest);
    if ((up || down) && sign != kNoOperand) {
      emitStep(pc, in, MOp::Setp, w, static_cast<uint8_t>(MCmp::Ne), t1, sign, constant(pc, 0), kNoOperand);
      emitStep(pc, in, MOp::Selp, w, 0, t3, constant(pc, up ? largest : inf), constant(pc, up ? inf : largest), t1);
      overflow = t3;
    }
    emitStep(pc, in, MOp::Selp, w, 0, s, overflow, s, p);
    if (ftz) {
      emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Lo), p, s, constant(pc, 0x800000), kNoOperand);
      emitStep(pc, in, MOp::Selp, u32, 0, s, constant(pc, 0), s, p);
    }
    if (sign != kNoOperand) emitStep(pc, in, MOp::Or, w, 0, s, s, sign, kNoOperand);
  }

  /// `x & 0x7fffffff` into `to`, or the constant it folds to.
  uint16_t magnitudeF32(uint32_t pc, const Instr& in, uint16_t x, uint16_t to) {
    if (auto k = constantOf(x)) return constant(pc, *k & 0x7fffffff);
    emitStep(pc, in, MOp::And, typeCode(4, false), 0, to, x, constant(pc, 0x7fffffff), kNoOperand);
    return to;
  }

  // a / b: 28 quotient bits of the significands (the dividend's doubled where smaller) by the
  // 32-bit division's three steps a bit on T = R << 28 | Q, the remainder's sticky bit, the
  // exponent difference; then the specials (NaN, infinity, zero operands).
  void lowerFDiv(uint32_t pc, const Instr& in, uint16_t a, uint16_t b, bool ftz, uint32_t mode) {
    const uint8_t u32 = typeCode(4, false), u64 = typeCode(8, false);
    const uint16_t t = scratch(pc, 0), r1 = scratch(pc, 1), r2 = scratch(pc, 2), p = scratch(pc, 3), e = scratch(pc, 4),
                   r5 = scratch(pc, 5), r6 = scratch(pc, 6), d = operand(pc, in.d[0]);
    const auto [ma, ea] = unpackF32(pc, in, a, t, e, r5, p);
    const auto [mb, eb] = unpackF32(pc, in, b, r1, r2, r5, p);
    emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Lo), p, ma, mb, kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, r5, constant(pc, 1), constant(pc, 0), p);  // the dividend doubled
    emitStep(pc, in, MOp::Shl, u32, 0, t, ma, r5, kNoOperand);
    emitStep(pc, in, MOp::Shl, u64, 0, t, t, constant(pc, 28), kNoOperand);
    emitStep(pc, in, MOp::Sub, u32, 0, e, ea, eb, kNoOperand);
    emitStep(pc, in, MOp::Sub, u32, 0, e, e, r5, kNoOperand);
    emitStep(pc, in, MOp::Add, u32, 0, e, e, constant(pc, 127), kNoOperand);  // the quotient's exponent field
    uint16_t shifted = kNoOperand, minusBit = kNoOperand;  // mb << 28, (mb << 29) - 1
    if (auto k = constantOf(mb)) {
      shifted = constant(pc, *k << 28);
      minusBit = constant(pc, (*k << 29) - 1);
    } else {
      emitStep(pc, in, MOp::Shl, u64, 0, r2, mb, constant(pc, 28), kNoOperand);
      emitStep(pc, in, MOp::Shl, u64, 0, r1, mb, constant(pc, 29), kNoOperand);
      emitStep(pc, in, MOp::Sub, u64, 0, r1, r1, constant(pc, 1), kNoOperand);
      shifted = r2;
      minusBit = r1;
    }
    microLoop(pc, 28, 7, r6, p, [&] {
      emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Hs), p, t, shifted, kNoOperand);
      emitStep(pc, in, MOp::Shl, u64, 0, t, t, constant(pc, 1), kNoOperand);
      emitGuardedBy(p, MOp::Sub, u64, t, t, minusBit);
    });
    emitStep(pc, in, MOp::Shr, u64, 0, r1, t, constant(pc, 28), kNoOperand);
    emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Ne), p, r1, constant(pc, 0), kNoOperand);
    emitStep(pc, in, MOp::And, u64, 0, t, t, constant(pc, 0xfffffff), kNoOperand);
    emitStep(pc, in, MOp::CAdd, u32, 1, t, t, t, p);  // S = 2q + sticky
    uint16_t sign = r5;
    if (constantOf(a) && constantOf(b)) {
      sign = constant(pc, (*constantOf(a) ^ *constantOf(b)) & 0x80000000u);
    } else {
      emitStep(pc, in, MOp::Xor, u32, 0, r5, a, b, kNoOperand);
      emitStep(pc, in, MOp::And, u32, 0, r5, r5, constant(pc, 0x80000000u), kNoOperand);
    }
    roundFloat(pc, in, t, e, sign, mode, ftz, r1, r2, r6, p, false);
    // The specials, by the operands' magnitudes A and B ("zero": below the smallest normal
    // with ftz): 0 for zero / finite and finite / inf, inf for inf / finite and finite / 0,
    // NaN for a NaN, 0 / 0 and inf / inf — applied in that order, the NaN cases last.
    constexpr uint32_t kInf = 0x7f800000;
    const uint32_t zeroBelow = ftz ? 0x800000 : 1;
    const uint16_t absA = magnitudeF32(pc, in, a, r1), absB = magnitudeF32(pc, in, b, r2);
    auto either = [&](MCmp c1, uint16_t x1, uint32_t k1, MCmp c2, uint16_t x2, uint32_t k2) {
      emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(c1), p, x1, constant(pc, k1), kNoOperand);
      emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(c2), r6, x2, constant(pc, k2), kNoOperand);
      emitStep(pc, in, MOp::Or, u32, 0, p, p, r6, kNoOperand);
    };
    either(MCmp::Lo, absA, zeroBelow, MCmp::Hs, absB, kInf);
    emitStep(pc, in, MOp::Selp, u32, 0, t, sign, t, p);
    either(MCmp::Hs, absA, kInf, MCmp::Lo, absB, zeroBelow);
    emitStep(pc, in, MOp::Or, u32, 0, e, sign, constant(pc, kInf), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, t, e, t, p);
    either(MCmp::Hi, absA, kInf, MCmp::Hi, absB, kInf);
    emitStep(pc, in, MOp::And, u32, 0, e, absA, absB, kNoOperand);  // both infinite (or a NaN)
    emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Hs), r6, e, constant(pc, kInf), kNoOperand);
    emitStep(pc, in, MOp::Or, u32, 0, p, p, r6, kNoOperand);
    emitStep(pc, in, MOp::Or, u32, 0, e, absA, absB, kNoOperand);  // both zero
    emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Lo), r6, e, constant(pc, zeroBelow), kNoOperand);
    emitStep(pc, in, MOp::Or, u32, 0, p, p, r6, kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, d, constant(pc, 0x7fffffff), t, p);
  }

  // sqrt(a): M = the significand, doubled where the exponent is odd; 28 root bits of M * 2^30
  // by the digit recurrence r = 4r + the next two bits, q = 2q + (r >= 4q + 1), r -= 4q + 1
  // where it is (SHF pulls the bits from the radicand's register, MADLO makes 4q + 1, CADD
  // shifts the bit in: six steps a bit); then
  // S = 2q + sticky, normalised to bit 28, and the specials (NaN below -0, +-0, +inf).
  void lowerFSqrt(uint32_t pc, const Instr& in, bool ftz, uint32_t mode) {
    const uint8_t u32 = typeCode(4, false), s32 = typeCode(4, true);
    const uint16_t q = scratch(pc, 0), r = scratch(pc, 1), trial = scratch(pc, 2), p = scratch(pc, 3), e = scratch(pc, 4),
                   norm = scratch(pc, 5), bits = scratch(pc, 6), d = operand(pc, in.d[0]);
    const uint16_t a = operand(pc, in.s[0]);
    const auto [m, ex] = unpackF32(pc, in, a, q, e, norm, p);
    emitStep(pc, in, MOp::And, u32, 0, p, ex, constant(pc, 1), kNoOperand);  // odd exponent: M = 2m
    emitStep(pc, in, MOp::Shl, u32, 0, q, m, p, kNoOperand);
    emitStep(pc, in, MOp::Sub, u32, 0, e, ex, p, kNoOperand);
    emitStep(pc, in, MOp::Shr, s32, 0, e, e, constant(pc, 1), kNoOperand);
    emitStep(pc, in, MOp::Add, u32, 0, e, e, p, kNoOperand);
    emitStep(pc, in, MOp::Add, u32, 0, e, e, constant(pc, 63), kNoOperand);  // the root's exponent field
    emitStep(pc, in, MOp::Sub, u32, 0, norm, constant(pc, 1), p, kNoOperand);  // the root's top bit is 27 - norm
    emitStep(pc, in, MOp::Shl, u32, 0, bits, q, constant(pc, 6), kNoOperand);  // M's top bits (25, 24) at 31, 30
    emitStep(pc, in, MOp::Mov, u32, 0, r, constant(pc, 0), kNoOperand, kNoOperand);
    emitStep(pc, in, MOp::Mov, u32, 0, q, constant(pc, 0), kNoOperand, kNoOperand);
    microLoop(pc, 28, 7, scratch(pc, 7), p, [&] {
      // the radicand's next two bits (M's 26, then the zeros of its 30 low bits)
      emitStep(pc, in, MOp::Shf, u32, 0, r, bits, r, constant(pc, 2));
      emitStep(pc, in, MOp::Shl, u32, 0, bits, bits, constant(pc, 2), kNoOperand);
      emitStep(pc, in, MOp::MadLo, u32, 0, trial, q, constant(pc, 4), constant(pc, 1));
      emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Hs), p, r, trial, kNoOperand);
      emitGuardedBy(p, MOp::Sub, u32, r, r, trial);
      emitStep(pc, in, MOp::CAdd, u32, 1, q, q, q, p);
    });
    emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Ne), p, r, constant(pc, 0), kNoOperand);
    emitStep(pc, in, MOp::CAdd, u32, 1, q, q, q, p);
    emitStep(pc, in, MOp::Shl, u32, 0, q, q, norm, kNoOperand);
    roundFloat(pc, in, q, e, kNoOperand, mode, ftz, r, trial, bits, p, false);
    constexpr uint32_t kInf = 0x7f800000;
    const uint32_t zeroBelow = ftz ? 0x800000 : 1;
    const uint16_t absA = magnitudeF32(pc, in, a, r);
    emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Eq), p, absA, constant(pc, kInf), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, q, constant(pc, kInf), q, p);
    emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Lo), p, absA, constant(pc, zeroBelow), kNoOperand);
    emitStep(pc, in, MOp::And, u32, 0, trial, a, constant(pc, 0x80000000u), kNoOperand);
    emitStep(pc, in, MOp::Selp, u32, 0, q, trial, q, p);  // +-0 (a flushed subnormal's sign)
    emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Hi), p, absA, constant(pc, kInf), kNoOperand);
    emitStep(pc, in, MOp::Setp, u32, static_cast<uint8_t>(MCmp::Hs), bits, a, constant(pc, 0x80000000u + zeroBelow), kNoOperand);
    emitStep(pc, in, MOp::Or, u32, 0, p, p, bits, kNoOperand);  // a NaN, or negative and not zero
    emitStep(pc, in, MOp::Selp, u32, 0, d, constant(pc, 0x7fffffff), q, p);
  }

  // 64-bit div and rem: restoring division with R and Q in two registers, one quotient bit in
  // five ALU steps (docs/machine.md §2.1):
  //   CARRY.u64   c, Q, Q, 0      Q's top bit
  //   CADD.u64    R, R, R, c      R = 2R + Q's top bit
  //   SETP.hs.u64 p, R, |b|
  //   @p SUB.u64  R, R, |b|
  //   CADD.u64    Q, Q, Q, p      Q = 2Q + the quotient bit
  // No sum wraps: R never exceeds the number the dividend's bits read so far spell (below
  // 2^k after k bits), so 2R + 1 < 2^64 up to the last bit.
  void lowerDiv64(uint32_t pc, const Instr& in, ScalarType ty0, bool rem) {
    const bool sgn = isSigned(ty0);
    const uint8_t u64 = typeCode(8, false), s64 = typeCode(8, true);
    const uint16_t q = scratch(pc, 0), r = scratch(pc, 1), dv = scratch(pc, 2), p = scratch(pc, 3);
    const uint16_t c = scratch(pc, 4), signA = scratch(pc, 5), signB = scratch(pc, 6);
    const uint16_t a = operand(pc, in.s[0]), b = operand(pc, in.s[1]), d = operand(pc, in.d[0]);
    const std::optional<uint64_t> ka = constantOf(a), kb = constantOf(b);
    auto magnitude = [&](uint64_t v) { return sgn && (v >> 63) ? 0 - v : v; };
    if (kb && *kb == 0) return emitStep(pc, in, MOp::Mov, u64, 0, d, constant(pc, ~0ull), kNoOperand, kNoOperand);
    // |v| into `to` (a constant's folded) and its sign mask into `sign` (signed types)
    auto absolute = [&](uint16_t v, std::optional<uint64_t> k, uint16_t to, uint16_t sign) -> uint16_t {
      if (k) {
        if (sgn) emitStep(pc, in, MOp::Mov, u64, 0, sign, constant(pc, (*k >> 63) ? ~0ull : 0), kNoOperand, kNoOperand);
        return constant(pc, magnitude(*k));
      }
      if (!sgn) return v;
      emitStep(pc, in, MOp::Shr, s64, 0, sign, v, constant(pc, 63), kNoOperand);
      emitStep(pc, in, MOp::Xor, u64, 0, to, v, sign, kNoOperand);
      emitStep(pc, in, MOp::Sub, u64, 0, to, to, sign, kNoOperand);
      return to;
    };
    const uint16_t absA = absolute(a, ka, q, signA);
    const uint16_t absB = absolute(b, kb, dv, signB);
    if (absA != q) emitStep(pc, in, MOp::Mov, u64, 0, q, absA, kNoOperand, kNoOperand);
    emitStep(pc, in, MOp::Mov, u64, 0, r, constant(pc, 0), kNoOperand, kNoOperand);
    microLoop(pc, 64, 8, scratch(pc, 7), p, [&] {
      emitStep(pc, in, MOp::Carry, u64, 0, c, q, q, kNoOperand);
      emitStep(pc, in, MOp::CAdd, u64, 1, r, r, r, c);
      emitStep(pc, in, MOp::Setp, u64, static_cast<uint8_t>(MCmp::Hs), p, r, absB, kNoOperand);
      emitGuardedBy(p, MOp::Sub, u64, r, r, absB);
      emitStep(pc, in, MOp::CAdd, u64, 1, q, q, q, p);
    });
    return finishDivision(pc, in, 8, sgn, rem, rem ? r : q, signA, signB, kb ? kNoOperand : b, p);
  }

  void lowerCvt(uint32_t pc, const Instr& in) {
    // The fp8 forms name one ScalarType (e4m3x2/e5m2x2 are modifiers); none is lowered.
    if (in.typeCount != 2) fail(pc, fmt::format("'{}' is not lowered (no fp8 or tf32 conversions)", p_.opcodeText[pc]));
    const ScalarType dt = in.types[0], st = in.types[1];
    bool fd = isFloat(dt), fs = isFloat(st);
    MInstr m = base(pc, MOp::CvtI, in);
    m.d = operand(pc, in.d[0]);
    m.a = operand(pc, in.s[0]);
    if (!fd && !fs) {
      only(pc, in, {Mod::Sat});
      m.ty = ty(dt);
      m.fl = static_cast<uint8_t>(ty(st) | (in.sat ? 8 : 0));
      m.c = typeCode(in.dstBytes, false);
      return emit(m);
    }
    if (fd && !fs && (dt == ScalarType::F32 || dt == ScalarType::F64)) {
      only(pc, in, {Mod::Rn, Mod::Rz, Mod::Rm, Mod::Rp});
      if (scalarTypeBytes(st) != 4 || dt == ScalarType::F64) return lowerI2FMicro(pc, in, st, dt == ScalarType::F64, roundingField(in));
      m.op = MOp::I2F;
      m.ty = ty(st);
      m.fl = static_cast<uint8_t>(roundingField(in) |
                                  (dt == ScalarType::F64 ? kFlI2FDest64 : 0));
      return emit(m);
    }
    if (!fd && fs && (st == ScalarType::F32 || st == ScalarType::F64)) {
      only(pc, in, {Mod::Rni, Mod::Rzi, Mod::Rmi, Mod::Rpi, Mod::Ftz});
      if (st == ScalarType::F64 && in.ftz) fail(pc, ".ftz on an f64 source");
      uint8_t r = has(in, Mod::Rni) ? 0 : has(in, Mod::Rzi) ? 1 : has(in, Mod::Rmi) ? 2 : 3;
      if (st == ScalarType::F64 || scalarTypeBytes(dt) == 8) return lowerF2IMicro(pc, in, dt, st == ScalarType::F64, in.ftz, r);
      m.op = MOp::F2I;
      m.ty = ty(dt);
      m.fl = static_cast<uint8_t>(r | (in.ftz ? 4 : 0) | (st == ScalarType::F64 ? kFlF2ISource64 : 0));
      m.c = typeCode(in.dstBytes, false);
      return emit(m);
    }
    if (fd && fs) {  // float -> float: small conversion units
      const bool integral = has(in, Mod::Rni) || has(in, Mod::Rzi) || has(in, Mod::Rmi) || has(in, Mod::Rpi);
      uint8_t flags = static_cast<uint8_t>((in.ftz ? kFlFtz : 0) | (in.sat ? kFlSat : 0) | roundingField(in) << 2);
      if (dt == ScalarType::F32 && st == ScalarType::F32) {
        only(pc, in, {Mod::Rni, Mod::Rzi, Mod::Rmi, Mod::Rpi, Mod::Ftz, Mod::Sat});
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
        only(pc, in, {Mod::Rn, Mod::Rz, Mod::Rm, Mod::Rp, Mod::Ftz, Mod::Sat});
        m.op = MOp::F2H;
        m.ty = typeCode(2, false);
        m.fl = flags;
        return emit(m);
      }
      if (dt == ScalarType::F32 && st == ScalarType::F16) {
        only(pc, in, {Mod::Ftz, Mod::Sat});
        m.op = MOp::H2F;
        m.ty = typeCode(2, false);
        m.fl = flags;
        return emit(m);
      }
      if (dt == ScalarType::F32 && st == ScalarType::F64) return lowerD2F(pc, in);
      if (dt == ScalarType::F64 && st == ScalarType::F32) {
        only(pc, in, {Mod::Ftz});
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
  LowerOptions options_;
  const InlinedKernel* inlined_ = nullptr;  // a kernel whose calls were inlined
  std::optional<RegisterSharing> sharing_;       // inlined kernels only
  std::vector<std::vector<uint32_t>> regOwners_;  // per machine register: the instances of its slots
  Dataflow df_;
  std::vector<MInstr> code_;
  std::vector<uint64_t> constants_;
  std::vector<std::string> regNames_;
  std::map<uint32_t, uint16_t> regOf_;
  std::map<SpecialReg, uint16_t> launchSpecial_;  // for a known launch shape: what each special reads
  std::vector<uint32_t> ptxPc_;
  std::vector<uint64_t> globalAddr_;
  WindowLayout windows_;
  uint16_t mulT_ = kNoOperand, mulU_ = kNoOperand;
  uint16_t carryProduct_ = kNoOperand, carryNext_ = kNoOperand, minMaxPick_ = kNoOperand,
           atomOld_ = kNoOperand, atomNew_ = kNoOperand;
  std::array<uint16_t, 10> scratch_ = {kNoOperand, kNoOperand, kNoOperand, kNoOperand, kNoOperand,
                                       kNoOperand, kNoOperand, kNoOperand, kNoOperand, kNoOperand};
  struct MicroRoutine {  // a shared f64 micro-code routine (microCode)
    MicroBody body;
    std::array<uint16_t, 3> args = {kNoOperand, kNoOperand, kNoOperand};
    std::vector<size_t> calls;  // its CALLs
    uint32_t pc = 0;            // its first use
  };
  std::map<std::string, MicroRoutine> routines_;
  std::array<uint16_t, 3> routineArgs_ = {kNoOperand, kNoOperand, kNoOperand};
  uint16_t routineResult_ = kNoOperand;
  bool sharable_ = false;  // the kernel has micro-code that a shared routine could hold
  std::set<size_t> microBranches_;  // the micro-code loops' BRAs: their targets are machine pcs already
  uint64_t globalsEnd_ = kGlobalStart;
};

}  // namespace

MachineProgram lowerKernel(const Program& program, const std::string& entry, const LowerOptions& options) {
  const uint32_t index = program.findEntry(entry);
  auto lower = [&](const LowerOptions& o) {
    if (hasCalls(program, index)) {
      const InlinedKernel flat = inlineCalls(program, index);
      return Lowerer(flat, o).run();
    }
    return Lowerer(program, program.functions[index], o).run();
  };
  try {
    return lower(options);
  } catch (const RomOverflow&) {
    LowerOptions shared = options;
    shared.shareMicroCode = true;
    return lower(shared);
  }
}

}  // namespace qgpu::machine
