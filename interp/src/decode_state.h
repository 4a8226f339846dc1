// What an opcode's decoder sees: the instruction as written, the function
// being lowered, and helpers that turn operands into slots. Every helper
// throws ErrorKind::Decode naming file:line:column and the instruction text.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qgpu/interp/isa.h"
#include "qgpu/interp/program.h"
#include "qgpu/interp/types.h"

namespace qgpu {

/// Modifiers of one instruction; each must be consumed by the op's decoder,
/// so anything unexpected is an error instead of being ignored.
class Modifiers {
 public:
  explicit Modifiers(const std::vector<std::string>& mods) : mods_(mods), used_(mods.size()) {}
  bool take(std::string_view m);
  /// Takes the first modifier equal to one of `options`; returns its index or -1.
  int takeOneOf(std::initializer_list<std::string_view> options);
  /// Takes every modifier that only affects caching/ordering/scope (no value effect).
  void takeMemoryHints();
  /// Takes the type modifiers in order (e.g. cvt.f32.s32 -> {f32, s32}).
  std::vector<ScalarType> takeTypes();
  std::vector<std::string> unused() const;

 private:
  const std::vector<std::string>& mods_;
  std::vector<bool> used_;
};

class Decoder;  // decoder.cpp

struct DecodeState {
  Decoder& decoder;
  Program& program;
  FunctionInfo& function;
  const ptx::Instruction& in;
  Modifiers mods;
  Instr& out;

  [[noreturn]] void fail(const std::string& what) const;
  /// Fails unless the module's .target and .version have a form (feature) that needs more
  /// than its instruction's row: PTX ISA ptx/10 and sm_<sm>.
  void requireFeature(const std::string& feature, uint32_t ptx, uint32_t sm) const;
  /// The module's .target as a number (sm_89 -> 89).
  uint32_t smTarget() const;
  /// Fails unless every modifier was consumed.
  void finish() const;
  /// Exactly `n` operands, else a decode error.
  void expectOperands(size_t n) const;
  void expectOperands(size_t lo, size_t hi) const;

  /// The common shape `op d, a[, b[, c]]`: operand 0 is the destination
  /// register, the next `nsrc` are sources of type `t`.
  void destinationAndSources(ScalarType t, size_t nsrc);
  /// Fails unless every register among the first `n` operands is `bytes` wide (ptxas:
  /// "Arguments mismatch" for e.g. add.s64 on .b32 registers). For the instructions whose
  /// operands all have the instruction type; ld, st, cvt and mov have their own rules.
  void requireRegisterBytes(uint32_t bytes, size_t n, size_t first = 0);
  /// Also the register's declared type: operands [first, end) of an instruction of type `t`
  /// (ptxas: "Arguments mismatch" for add.f32 on .u32 registers or add.s32 on .f32 ones).
  void requireRegisterType(ScalarType t, size_t first, size_t end);
  /// Operand `i` alone, when it names a declared register, as an operand of type `t` (the
  /// same type rule; cvt and set give each operand its own type): `t`'s width, or with
  /// `wider` at least `t`'s width (cvt: ptxas takes wider registers there, of a bit type for
  /// a float operand). `role` names the operand in the message ("destination", ...).
  void requireOperandType(size_t i, ScalarType t, bool wider, const char* role);
  /// A source operand of type `t`: register, special register, or immediate
  /// (materialised into a constant slot converted to `t`).
  uint32_t source(const ptx::Operand& op, ScalarType t);
  /// A destination register (not an immediate, not read-only).
  uint32_t destination(const ptx::Operand& op);
  /// A predicate register source (optionally negated with !p: sets *negated).
  uint32_t predicate(const ptx::Operand& op, bool* negated = nullptr);
  /// [base+offset] or a bare symbol used as an address: sets base slot in
  /// out.s[baseIndex], offset in out.imm and the state space of a symbol.
  void address(const ptx::Operand& op, int baseIndex, MemSpace declaredSpace);
  /// The value of a variable name used as an operand (mov r, var): its
  /// address in its own state space, as out.s[baseIndex] + out.imm.
  void symbolValue(const ptx::Operand& op, int baseIndex);
  /// The declared type of operand `i` when it names a register (nothing for immediates,
  /// special registers and symbols).
  std::optional<ScalarType> declaredRegisterType(size_t i) const;
  /// The same for one operand (an element of a {...} list, say).
  std::optional<ScalarType> declaredRegisterType(const ptx::Operand& op) const;
  /// Whether `op` (possibly a bare identifier) names a declared register.
  bool namesRegister(const ptx::Operand& op) const;
  /// A constant slot holding `value`.
  uint32_t constant(uint64_t value);
  /// Declared byte size of a slot.
  uint32_t slotBytes(uint32_t slot) const;
  /// Label -> pc (patched after the function is decoded).
  void branchTarget(const ptx::Operand& op);
  /// The CC.CF slot of add.cc/addc chains.
  uint32_t carry();
  /// Call bookkeeping: returns an index into Program::callSites.
  uint32_t callSite(const ptx::Operand& returns, const ptx::Operand& callee,
                    const ptx::Operand& args);
};

using OpDecoder = void (*)(DecodeState&);

/// Selects the lane-wise handler Shape<T, Op> (Unary/Binary/Ternary from
/// lane_ops.h) for `op d, a, ...` with operands of type `t`.
template <class Op, template <class, class> class Shape, class T>
void setElementwise(DecodeState& ds, ScalarType t, size_t nsrc) {
  ds.out.fn = &Shape<T, Op>::run;
  ds.out.typeBytes = static_cast<uint8_t>(scalarTypeBytes(t));
  ds.destinationAndSources(t, nsrc);
}

/// The decoder of each supported row of ptx_isa.def (defined in the sem_*.cpp files).
#define QGPU_PTX_OP(Enum, mnemonic, ptx, sm, decoder, example) void decoder(DecodeState& ds);
#include "qgpu/interp/ptx_isa.def"
/// The decoder of a supported opcode (isa_catalog.cpp).
OpDecoder opcodeDecoder(Opcode op);

/// Float forms of mnemonics shared with integers (add, mul, min, ...).
void decodeFloatArithmetic(DecodeState& ds, ScalarType t);
/// and/or/xor/not on predicates.
void decodePredicateLogic(DecodeState& ds);


}  // namespace qgpu
