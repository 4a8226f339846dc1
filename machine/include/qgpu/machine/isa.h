// The weight-embedded machine's micro-instruction set (docs/machine.md §1).
//
// A 4-lane SIMT core. Every instruction is one fixed 64-bit ROM word:
//
//   bits  0..6   op      (MOp)
//   bits  7..9   ty      operand type: width code (0:1 1:2 2:4 3:8 bytes) | 4 if signed
//   bits 10..13  fl      op-specific flags (compare op, space, shuffle mode, ftz/sat)
//   bits 14..23  d       destination operand
//   bits 24..33  a       source operand a
//   bits 34..43  b       source operand b (BRA: target pc)
//   bits 44..53  c       source operand c (BRA: reconvergence pc, LD: dst register width code)
//   bits 54..63  g       guard: kNoGuard, or a predicate register, bit 9 = negated
//
// A 10-bit operand names one per-lane 64-bit register r0..r510, a ROM
// constant k0..k447 (512 + index) or a special register (960 + MSpecial).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace qgpu::machine {

/// The machine's ops, in ROM encoding order (machine/include/qgpu/machine/ops.def).
enum class MOp : uint8_t {
#define QGPU_MOP(id, name, family, exec, write, operands, cost) id,
#include "qgpu/machine/ops.def"
#undef QGPU_MOP
  Count
};

/// Who computes an op: a functional-unit family (units_<family>.cpp) or the executor.
enum class MFamily : uint8_t { Integer, Float32, Float64, Convert, Memory, Warp };
/// How the executor runs a step of an op.
/// LaneSerial: a lane-local value like Unit, computed one active lane per token position
/// (FADD, FSUB, FMUL and FFMA, on one one-lane FFMA unit: four lanes' do not fit hidden 2048,
/// docs/machine.md §5.2); the step says one WAIT per active lane but the last before its write.
enum class MExec : uint8_t { Unit, Load, Store, Atomic, Shuffle, Vote, Barrier, Branch, Exit, Call, LaneSerial };
/// The destination bytes an op writes (see writeBytes in qgpu/machine/units.h).
enum class MWrite : uint8_t { W, TwoW, One, Two, Four, Eight, RegWidth, I2FDest, None };

/// One row of ops.def.
struct MOpInfo {
  MOp op;
  const char* name;
  MFamily family;
  MExec exec;
  MWrite write;
  const char* operands;  // use of d, a, b, c: '-' unused, 'r' operand, 'o' optional, 'w' width code, 'p' pc
  const char* cost;      // docs/machine.md §5.1 row(s), '|' between rows
};
/// The row of `op` (an op number past the list gets a row named "?" that no unit computes).
const MOpInfo& opInfo(MOp op);
const char* opName(MOp op);
/// Whether field `field` (0 d, 1 a, 2 b, 3 c) of `op` holds an operand: 'r' or 'o' in
/// ops.def, not a width code, a pc or nothing.
bool isOperandField(MOp op, uint32_t field);

/// Special registers: values implied by the launch and the warp, never written.
/// ThreadIndex (the thread's linear index in its block, warp * 4 + lane) and BlockIndex (the
/// block's linear index in the grid) are what a lowering for a known launch shape reads
/// instead of the tid/ctaid components and the launch's sizes (docs/machine.md §2.1): the
/// compiled machine has them as wiring, where the components would be divisions.
enum class MSpecial : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  LaneId, WarpId, NWarpId, LanemaskEq, LanemaskLt, LanemaskLe, LanemaskGt, LanemaskGe, WarpSize,
  Zero, ThreadIndex, BlockIndex, Count
};
const char* specialName(MSpecial s);

constexpr uint32_t kLanes = 4;
constexpr uint32_t kNumRegs = 511;        // r511 is reserved (guard field "none")
constexpr uint32_t kConstBase = 512;
constexpr uint32_t kNumConsts = 448;
constexpr uint32_t kSpecialBase = 960;
constexpr uint32_t kNoOperand = 0x3ff;
/// The operand field that names special register `s`.
constexpr uint16_t specialOperand(MSpecial s) { return static_cast<uint16_t>(kSpecialBase + static_cast<uint32_t>(s)); }
constexpr uint32_t kNoGuard = 0x3ff;
constexpr uint32_t kGuardNegated = 0x200;
constexpr uint32_t kExitTarget = 0x3ff;   // BRA reconvergence "at exit"
constexpr uint32_t kMaxCode = 1023;       // pcs 0..1022
// Calls of recursive functions (docs/machine.md §1.2, §2.1): a CALL finding this many SIMT
// entries on its warp's stack is a call stack overflow, and so is a stack pointer past the
// limit operand; the lowering gives each thread kCallStackBytes of local memory for the
// registers it saves around calls.
constexpr uint32_t kMaxSimtEntries = 32;
constexpr uint32_t kCallStackBytes = 256;
// Memory banks (docs/machine.md §5.3): a lane's memory copy is kMemoryBanks DeltaNet heads of
// kBankBytes one-byte slots; byte x lives in bank x mod kMemoryBanks, slot x / kMemoryBanks.
constexpr uint32_t kMemoryBanks = 64;
constexpr uint32_t kBankBytes = 128;

/// Memory spaces of LD/ST/CVTA (fl field).
enum class MSpace : uint8_t { Generic, Global, Shared, Local, Const, Param };
const char* spaceName(MSpace s);

/// The machine's flat memory map (docs/machine.md §1.3). Global memory (module variables,
/// then the launch buffers) is allocated upwards from kGlobalStart in 256-byte steps, so the
/// pointers of small launches fit one 16-bit chunk; the other spaces are 16 MiB windows.
constexpr uint64_t kGlobalStart = 0x100;
constexpr uint64_t kGlobalAlign = 256;
constexpr uint64_t kWindowBytes = 0x0100'0000;
constexpr uint64_t kSharedWindow = 0x0100'0000;
constexpr uint64_t kLocalWindow = 0x0200'0000;
constexpr uint64_t kConstWindow = 0x0300'0000;
constexpr uint64_t kParamWindow = 0x0400'0000;
constexpr uint64_t kGlobalLimit = kSharedWindow;      // global memory is [kGlobalStart, 16 MiB)
uint64_t windowOf(MSpace s);  // where the space's window starts: 0 for Generic/Global

/// The bytes the compiled machine's banks hold per lane copy (§5.3): an address x is byte
/// x mod kBankMemoryBytes of them.
constexpr uint64_t kBankMemoryBytes = uint64_t{kMemoryBanks} * kBankBytes;

/// Where a launch's memory lies (docs/machine.md §1.3): the offsets at which the shared,
/// param, const and local contents start inside their 16 MiB windows, and where global
/// allocations start. Laid out one after the other (shared — at offset 0, so that an ATOMS
/// offset is its bank address —, param, const, local, then the module globals and the
/// buffers, each 64-byte aligned, global memory 256-byte aligned and from kGlobalStart on), so that the launch's addresses modulo kBankMemoryBytes — what the
/// compiled machine's banks see, since every window starts at a multiple of it — are
/// distinct while the whole fits in kBankMemoryBytes: no compaction circuit.
struct WindowLayout {
  uint64_t param = 0, konst = 0, local = 0, shared = 0;
  uint64_t globalStart = kGlobalStart;
};
WindowLayout windowLayout(uint64_t paramBytes, uint64_t constBytes, uint64_t localBytes, uint64_t sharedBytes);
/// The flat address of offset 0 of `s`'s contents: windowOf(s) + its offset (0 for
/// Generic/Global). LD/ST addresses are flat: the lowering puts it into their b operand.
uint64_t windowBase(const WindowLayout& w, MSpace s);

/// Compare ops of SETP/FSETP (fl field), PTX order.
enum class MCmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };

/// Atomic operations (fl of ATOM/ATOMS), PTX order.
enum class MAtom : uint8_t { And, Or, Xor, Cas, Exch, Add, Inc, Dec, Min, Max };

// fl bits of float ops.
constexpr uint8_t kFlFtz = 1;
constexpr uint8_t kFlSat = 2;
// fl of CVTA: bit 3 set = to.space (generic -> space); low bits the space.
constexpr uint8_t kFlCvtaTo = 8;
// fl of F2I: bit 3 set = the source is f64. fl of I2F: bit 2 set = the destination is f64.
constexpr uint8_t kFlF2ISource64 = 8;
constexpr uint8_t kFlI2FDest64 = 4;
// fl of the f64 division / square-root steps: the first group (no previous R, Q) and the last
// (the remainder's sticky bit goes into bit 0 of Q).
// fl of DSIG: bit 0 = the 53-bit integer significand instead of one normalised to bit 63.
constexpr uint8_t kFlSig53 = 1;
constexpr uint8_t kFlFirstGroup = 1;
constexpr uint8_t kFlLastGroup = 2;
// fl of MULP/MULPC (64-bit multiply micro-code on a 32x32 multiplier): bit 0 / bit 1 take the
// high half of a / b (signed if ty is), else the low half (unsigned). MULP: bits 2-3 shift the
// product (0 none, 1 left 32, 2 right 32). MULPC: bit 2 adds c's high half (signed if ty is),
// else c's low half.
constexpr uint8_t kFlMulAHigh = 1;
constexpr uint8_t kFlMulBHigh = 2;
constexpr uint8_t kFlMulShl32 = 4;
constexpr uint8_t kFlMulShr32 = 8;
constexpr uint8_t kFlMulCHigh = 4;

struct MInstr {
  MOp op = MOp::Mov;
  uint8_t ty = 0;
  uint8_t fl = 0;
  uint16_t d = kNoOperand, a = kNoOperand, b = kNoOperand, c = kNoOperand;
  uint16_t g = kNoGuard;

  uint32_t bytes() const { return 1u << (ty & 3); }
  bool isSigned() const { return (ty & 4) != 0; }
  friend bool operator==(const MInstr&, const MInstr&) = default;
};

/// Where each field of the ROM word starts (the layout above): encode, decode and the
/// compiled machine's decoders (compiler/src/units/step_front.cpp) read it from here.
constexpr uint32_t kWordOpBits = 7, kWordTyAt = 7, kWordFlAt = 10, kWordDAt = 14, kWordAAt = 24, kWordBAt = 34,
                   kWordCAt = 44, kWordGAt = 54;

/// Calls f(reg, isWrite) with a reference to every register field of `in` below `numRegs`:
/// the d, a, b, c fields ops.def names as operands, then the guard's register (its negation
/// bit kept). isWrite: d of an op that writes one (CALL's d is read: the stack limit).
template <class F>
void forEachRegister(MInstr& in, uint32_t numRegs, F&& f) {
  uint16_t* fields[4] = {&in.d, &in.a, &in.b, &in.c};
  for (uint32_t i = 0; i < 4; ++i)
    if (isOperandField(in.op, i) && *fields[i] < numRegs) f(*fields[i], i == 0 && opInfo(in.op).write != MWrite::None);
  if (in.g == kNoGuard) return;
  uint16_t guard = static_cast<uint16_t>(in.g & ~kGuardNegated);
  if (guard >= numRegs) return;
  f(guard, false);
  in.g = static_cast<uint16_t>(guard | (in.g & kGuardNegated));
}

uint8_t typeCode(uint32_t bytes, bool isSigned);
uint64_t encode(const MInstr& in);
/// Throws qgpu::Error(Input) on a word that is not a valid instruction.
MInstr decode(uint64_t word);
std::string operandName(uint32_t operand);
std::string disassemble(const MInstr& in);

/// A lowered kernel: the ROM (code + constants) and what the launch needs.
struct MachineProgram {
  std::string entry;
  std::vector<MInstr> code;
  std::vector<uint64_t> constants;       // ROM constant k<i>
  uint32_t numRegs = 0;                   // registers used (r0..numRegs-1)
  uint32_t unallocatedRegs = 0;           // before register allocation: one per PTX register and temporary
  std::vector<std::string> regNames;      // PTX names, for token meanings
  std::vector<uint32_t> ptxPc;            // per machine pc: the oracle pc it came from
  std::vector<std::string> ptxText;       // per machine pc: PTX instruction text
  // Launch layout taken over from the oracle's decoded module.
  std::vector<uint32_t> paramOffsets, paramSizes;
  uint32_t paramBytes = 0;
  uint32_t staticSharedBytes = 0;  // shared bytes before the dynamic area (the oracle's dynamicSharedOffset)
  uint32_t localBytes = 0;
  std::vector<uint8_t> constBank;
  std::vector<std::vector<uint8_t>> moduleGlobals;
  std::vector<uint64_t> moduleGlobalAddr;  // address of module .global variable i
  uint64_t globalsEnd = kGlobalStart;      // first address after them (buffers follow)
  uint32_t dynamicSharedBytes = 0;         // the launch's dynamic shared memory, which the windows are laid out for
  WindowLayout windows;                    // the windows' offsets (windowLayout of the sizes above)
  uint32_t ptxInstructions = 0;           // oracle instructions of the entry
};

}  // namespace qgpu::machine
