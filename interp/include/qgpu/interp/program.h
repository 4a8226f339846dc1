// The decoded program: PTX lowered once into flat, typed instructions whose
// operands are register-file slots, so the executor never looks at text.
//
// Every operand is a slot of the function's register file: declared
// registers, special registers (%tid.x ...), and constants (immediates are
// materialised into constant slots when a frame is created). Addresses are
// `slot + offset`; a static symbol address is `zero-slot + address`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/interp/isa.h"
#include "qgpu/interp/ptx_ast.h"
#include "qgpu/interp/types.h"

namespace qgpu {

struct ExecContext;
struct Instr;
using Handler = void (*)(const Instr&, ExecContext&, uint32_t laneMask);

constexpr uint32_t kNoSlot = 0xffffffffu;
constexpr uint32_t kExitPc = 0xffffffffu;  // reconvergence point "function exit"

/// Control-flow class: how the executor treats the instruction besides
/// calling its handler.
enum class Flow : uint8_t { None, Branch, Call, Return, Exit, Barrier, Trap };

enum class Rounding : uint8_t { None, Nearest, Zero, Down, Up };

/// Memory spaces as the executor distinguishes them.
enum class MemSpace : uint8_t { Generic, Global, Shared, Local, Const, KernelParam, FrameParam };

/// Values the executor puts into special-register slots when a frame starts.
enum class SpecialReg : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  LaneId, WarpId, NWarpId, LanemaskEq, LanemaskLt, LanemaskLe, LanemaskGt, LanemaskGe,
  WarpSize, Clock, Clock64, SmId, NSmId, GridId, FrameLocalBase, Zero, DynamicSmemSize,
  TotalSmemSize,
};

/// Instr::mode of setp and set: the comparison, in PTX order.
enum class CmpOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
/// Instr::mode of atom and red: the operation.
enum class AtomOp : uint8_t { And, Or, Xor, Cas, Exch, Add, Inc, Dec, Min, Max };
/// Instr::mode of vote.sync (Instr::imm bit 0: the predicate operand is negated).
enum class VoteMode : uint8_t { All, Any, Uni, Ballot };
/// Instr::mode of shfl.sync.
enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };
/// Instr::mode of redux.sync (the type's signedness folded into min/max).
enum class ReduxOp : uint8_t { Add, MinU, MaxU, MinS, MaxS, And, Or, Xor };
/// Instr::mode of bar/barrier: a plain barrier, or bar.red with its reduction (d[0] the
/// result, s[2] the predicate, Instr::imm bit 0 its negation).
enum class BarRed : uint8_t { None, Popc, And, Or };

struct Instr {
  Handler fn = nullptr;
  Flow flow = Flow::None;
  uint8_t typeBytes = 0;   // size of the instruction type
  uint8_t dstBytes = 0;    // declared size of the destination register (ld/cvt extension)
  uint8_t mode = 0;        // op-specific (compare op, shuffle mode, atomic op, ...)
  uint8_t count = 0;       // vector element count / operand count where it varies
  Rounding rounding = Rounding::None;
  bool ftz = false;
  bool sat = false;
  bool guardNegated = false;
  MemSpace space = MemSpace::Generic;
  Opcode opcode = Opcode::None;  // the ptx_isa.def row it was decoded by
  uint32_t guard = kNoSlot;
  uint32_t d[4] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot};
  uint32_t s[5] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot, kNoSlot};
  uint8_t typeCount = 0;       // type modifiers as written (cvt.f32.s32: f32, s32; vadd: d, a, b)
  ScalarType types[3] = {ScalarType::B32, ScalarType::B32, ScalarType::B32};
  int64_t imm = 0;             // address offset or op-specific constant
  uint32_t target = 0;         // branch target pc / callee function index
  uint32_t reconverge = kExitPc;  // immediate post-dominator pc of a branch
  uint32_t function = 0;       // index of the function this instruction belongs to
  uint32_t ptxLine = 0, ptxCol = 0;
  uint32_t srcFile = 0, srcLine = 0;  // from .loc, 0 if none
  ModSet mods;                 // the other modifiers as written

  /// The last type modifier (the instruction type; cvt's source), if any.
  ScalarType type() const { return types[typeCount > 0 ? typeCount - 1 : 0]; }
  CmpOp cmp() const { return static_cast<CmpOp>(mode); }
  AtomOp atomOp() const { return static_cast<AtomOp>(mode); }
  VoteMode voteMode() const { return static_cast<VoteMode>(mode); }
  ShflMode shflMode() const { return static_cast<ShflMode>(mode); }
};

/// Sets in.opcode, in.typeCount/types and in.mods from a spelling such as "ld.local.b32",
/// for instructions made outside the decoder (machine inlining); parts that are no
/// mnemonic, type or modifier of ptx_isa.def are left out. Returns false if there were any.
bool setSpelling(Instr& in, std::string_view spelling);

/// One byte range of a function's per-lane param area (call arguments,
/// formal parameters, return values).
struct ParamSlot {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
};

/// A kernel parameter in the launch parameter buffer.
struct KernelParam {
  std::string name;
  std::string type;  // PTX type of the .param
  uint32_t offset = 0;
  uint32_t size = 0;
  uint32_t align = 0;
};

struct FunctionInfo {
  std::string name;
  bool isEntry = false;
  uint32_t entryPc = 0;
  uint32_t endPc = 0;  // one past the last instruction
  uint32_t numSlots = 0;
  std::vector<std::string> slotNames;  // for traces and messages
  std::vector<uint8_t> slotBytes;
  std::vector<std::pair<uint32_t, uint64_t>> constants;      // slot -> value
  std::vector<std::pair<uint32_t, SpecialReg>> specials;     // slot -> register
  uint32_t carrySlot = kNoSlot;  // CC.CF of add.cc/addc chains
  uint32_t paramAreaBytes = 0;   // per lane
  uint32_t localBytes = 0;       // per thread, this activation's .local variables
  uint32_t localAlign = 16;
  std::vector<ParamSlot> params;   // formal parameters (.func)
  std::vector<ParamSlot> returns;  // return values (.func)
  std::vector<KernelParam> kernelParams;  // .entry
  uint32_t kernelParamBytes = 0;
  uint32_t maxntid[3] = {0, 0, 0};
  uint32_t reqntid[3] = {0, 0, 0};
};

/// A module-scope variable placed in memory.
struct GlobalVariable {
  std::string name;
  ptx::StateSpace space;
  uint64_t size = 0;
  uint32_t align = 1;
  uint64_t offset = 0;  // within the const bank / static shared / its own global region
  std::vector<uint8_t> init;
  bool dynamicShared = false;  // extern .shared [] (dynamic shared memory)
};

/// Call-site bookkeeping: which caller param variables feed which callee slots.
struct CallSite {
  uint32_t callee = 0;
  std::vector<uint32_t> argOffsets, argSizes;  // in the caller's param area
  std::vector<uint32_t> retOffsets, retSizes;
};

struct Program {
  ptx::Module module;  // kept for source lines and .file names
  std::vector<Instr> code;
  std::vector<std::string> opcodeText;  // per pc: mnemonic with modifiers
  std::vector<FunctionInfo> functions;
  std::vector<CallSite> callSites;  // Instr::imm of a call indexes this
  std::vector<uint32_t> operandSlots;  // operand lists longer than Instr's (mma: Instr::imm indexes it)
  std::vector<GlobalVariable> globals;
  uint32_t staticSharedBytes = 0;    // module-scope, then function-scope .shared
  uint32_t dynamicSharedOffset = 0;  // where every extern .shared array starts (after the static part)
  uint32_t constBytes = 0;

  /// Index of the .entry called `name`; throws ErrorKind::Launch if absent.
  uint32_t findEntry(const std::string& name) const;
  /// "file.ptx:LINE" plus the PTX text of the instruction at `pc`.
  std::string describePc(uint32_t pc) const;
};

/// Lowers a parsed module. Throws ErrorKind::Decode naming file:line:column
/// and the instruction for anything unsupported.
Program decodeModule(ptx::Module module);

}  // namespace qgpu
