// The PTX ISA table (ptx_isa.def) for the decoder and for tools: opcode identity, what the
// front end accepts (qgpu coverage), and what it does not support.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qgpu {

/// One supported PTX mnemonic per enumerator, in ptx_isa.def order.
enum class Opcode : uint16_t {
  None,  // an instruction that does not come from the decoder (e.g. machine inlining markers)
#define QGPU_PTX_OP(Enum, mnemonic, ptx, sm, decoder, example) Enum,
#include "qgpu/interp/ptx_isa.def"
  Count
};

/// Every modifier spelling a decoder accepts (QGPU_PTX_MOD rows), types excluded.
enum class Mod : uint8_t {
#define QGPU_PTX_MOD(Enum, spelling, hint) Enum,
#include "qgpu/interp/ptx_isa.def"
  Count
};
/// A set of modifiers (Instr::mods): one bit per QGPU_PTX_MOD row.
class ModSet {
 public:
  static constexpr size_t kWords = 3;
  constexpr ModSet() = default;
  constexpr ModSet(std::initializer_list<Mod> mods) {
    for (Mod m : mods) set(m);
  }
  constexpr bool has(Mod m) const { return (bits_[index(m) / 64] >> (index(m) % 64)) & 1; }
  constexpr void set(Mod m) { bits_[index(m) / 64] |= uint64_t{1} << (index(m) % 64); }
  constexpr bool empty() const {
    for (uint64_t w : bits_)
      if (w) return false;
    return true;
  }
  /// Whether any of `o` is in the set.
  constexpr bool hasAny(ModSet o) const {
    for (size_t i = 0; i < kWords; ++i)
      if (bits_[i] & o.bits_[i]) return true;
    return false;
  }
  constexpr ModSet operator|(ModSet o) const {
    for (size_t i = 0; i < kWords; ++i) o.bits_[i] |= bits_[i];
    return o;
  }
  /// The members that are not in `o`.
  constexpr ModSet without(ModSet o) const {
    ModSet r = *this;
    for (size_t i = 0; i < kWords; ++i) r.bits_[i] &= ~o.bits_[i];
    return r;
  }
  /// The member with the lowest enum value (empty() must be false).
  constexpr Mod first() const {
    for (size_t i = 0; i < static_cast<size_t>(Mod::Count); ++i)
      if (has(static_cast<Mod>(i))) return static_cast<Mod>(i);
    return Mod::Count;
  }
  friend constexpr bool operator==(const ModSet&, const ModSet&) = default;

 private:
  static constexpr size_t index(Mod m) { return static_cast<size_t>(m); }
  uint64_t bits_[kWords] = {};
};
static_assert(static_cast<size_t>(Mod::Count) <= 64 * ModSet::kWords, "ModSet::kWords too small for the QGPU_PTX_MOD rows");

/// The modifier spelled `spelling` (without the dot).
std::optional<Mod> findMod(std::string_view spelling);
/// Its spelling ("rn", "L1::evict_last", ...).
const char* modName(Mod m);
/// The caching, ordering and scope hints (rows with hint = true).
ModSet memoryHintMods();

/// A row of ptx_isa.def: a supported instruction (opcode != None) or one that is not.
struct IsaRow {
  Opcode opcode;
  const char* mnemonic;
  uint8_t ptx;  // PTX ISA version that introduced it, times 10
  uint8_t sm;   // minimum target sm_<sm>
  const char* example;  // supported rows: one instruction in its operand shape
};

/// The supported rows (in Opcode order) then the unsupported ones (in file order).
std::span<const IsaRow> isaRows();
/// The mnemonic of a supported opcode ("" for None).
const char* opcodeName(Opcode op);
/// The opcode of a supported mnemonic.
std::optional<Opcode> findOpcode(std::string_view mnemonic);

/// Whether `op` is defined over a 32-lane warp only (ldmatrix, mma: matrix fragments spread
/// over 32 lanes); a launch at another warp width that can reach it is refused.
bool needsFullWarp(Opcode op);

/// Mnemonics of the supported rows, sorted.
std::vector<std::string> supportedOpcodes();
/// Mnemonics of the ISA's instructions the front end does not support, sorted.
std::vector<std::string> unsupportedOpcodes();

/// A QGPU_PTX_FORMS row: mnemonics and the pattern of their modifier groups.
struct FormFamily {
  std::vector<std::string> mnemonics;
  std::string pattern;
};
std::vector<FormFamily> formFamilies();
/// Every candidate spelling of a family ("add.rn.ftz.f32", ...), in listing order.
std::vector<std::string> expandForms(const FormFamily& family);
/// Whether `body` (declarations and instructions) decodes as the body of a kernel that
/// declares %p, %h, %r and %rd <6> and ends in ret.
bool decodesInKernel(const std::string& body);
/// Whether the decoder accepts `form` (a spelling without operands) in one of the operand
/// shapes the catalogued families use.
bool formAccepted(const std::string& form);

}  // namespace qgpu
