// The PTX ISA table (ptx_isa.def) for the decoder and for tools: opcode identity, what the
// front end accepts (qgpu coverage), and what it does not support.
#pragma once

#include <cstdint>
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
