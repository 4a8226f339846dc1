// Fixed-width encoding and text form of machine instructions.
#include "qgpu/machine/isa.h"

#include <fmt/format.h>

#include <algorithm>

#include "qgpu/interp/error.h"

namespace qgpu::machine {

namespace {

constexpr MOpInfo kOps[] = {
#define QGPU_MOP(id, name, family, exec, write, operands, cost) \
  {MOp::id, name, MFamily::family, MExec::exec, MWrite::write, operands, cost},
#include "qgpu/machine/ops.def"
#undef QGPU_MOP
};
static_assert(std::size(kOps) == static_cast<size_t>(MOp::Count));

// The row of an op number past the list (a hand-made MInstr): computed by nobody.
constexpr MOpInfo kNoSuchOp{MOp::Count, "?", MFamily::Warp, MExec::Unit, MWrite::W, "----", ""};

}  // namespace

const MOpInfo& opInfo(MOp op) {
  return static_cast<size_t>(op) < std::size(kOps) ? kOps[static_cast<size_t>(op)] : kNoSuchOp;
}

const char* opName(MOp op) { return opInfo(op).name; }

bool isOperandField(MOp op, uint32_t field) {
  const char use = opInfo(op).operands[field];
  return use == 'r' || use == 'o';
}

const char* specialName(MSpecial s) {
  static const char* kNames[] = {
      "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y",
      "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid", "%nwarpid",
      "%lanemask_eq", "%lanemask_lt", "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "WARP_SZ",
      "%zero", "%tid.linear", "%ctaid.linear"};
  static_assert(std::size(kNames) == static_cast<size_t>(MSpecial::Count));
  return static_cast<size_t>(s) < std::size(kNames) ? kNames[static_cast<size_t>(s)] : "?";
}

const char* spaceName(MSpace s) {
  switch (s) {
    case MSpace::Generic: return "generic";
    case MSpace::Global: return "global";
    case MSpace::Shared: return "shared";
    case MSpace::Local: return "local";
    case MSpace::Const: return "const";
    case MSpace::Param: return "param";
  }
  return "?";
}

uint64_t windowOf(MSpace s) {
  switch (s) {
    case MSpace::Shared: return kSharedWindow;
    case MSpace::Local: return kLocalWindow;
    case MSpace::Const: return kConstWindow;
    case MSpace::Param: return kParamWindow;
    default: return 0;
  }
}

WindowLayout windowLayout(uint64_t paramBytes, uint64_t constBytes, uint64_t localBytes, uint64_t sharedBytes) {
  auto align = [](uint64_t x, uint64_t a) { return (x + a - 1) / a * a; };
  // Shared memory first: its window base is then a multiple of the banks' 8 KiB, so an
  // ATOMS address (a shared-space offset) is its own bank address (docs/machine.md §1.3).
  WindowLayout w;
  w.shared = 0;
  w.param = align(w.shared + sharedBytes, 64);
  w.konst = align(w.param + paramBytes, 64);
  w.local = align(w.konst + constBytes, 64);
  w.globalStart = std::max(kGlobalStart, align(w.local + localBytes, kGlobalAlign));
  return w;
}

uint64_t windowBase(const WindowLayout& windows, MSpace s) {
  switch (s) {
    case MSpace::Shared: return kSharedWindow + windows.shared;
    case MSpace::Local: return kLocalWindow + windows.local;
    case MSpace::Const: return kConstWindow + windows.konst;
    case MSpace::Param: return kParamWindow + windows.param;
    default: return 0;
  }
}

uint8_t typeCode(uint32_t bytes, bool isSigned) {
  uint8_t w = bytes >= 8 ? 3 : bytes >= 4 ? 2 : bytes >= 2 ? 1 : 0;
  return static_cast<uint8_t>(w | (isSigned ? 4 : 0));
}

uint64_t encode(const MInstr& in) {
  return uint64_t{static_cast<uint8_t>(in.op) & 0x7fu} | uint64_t{in.ty & 7u} << kWordTyAt |
         uint64_t{in.fl & 15u} << kWordFlAt | uint64_t{in.d & 0x3ffu} << kWordDAt |
         uint64_t{in.a & 0x3ffu} << kWordAAt | uint64_t{in.b & 0x3ffu} << kWordBAt |
         uint64_t{in.c & 0x3ffu} << kWordCAt | uint64_t{in.g & 0x3ffu} << kWordGAt;
}

MInstr decode(uint64_t word) {
  MInstr in;
  uint32_t op = word & 0x7f;
  if (op >= static_cast<uint32_t>(MOp::Count))
    throw Error(ErrorKind::Input, fmt::format("machine word {:#018x}: opcode {} does not exist", word, op));
  in.op = static_cast<MOp>(op);
  in.ty = static_cast<uint8_t>((word >> kWordTyAt) & 7);
  in.fl = static_cast<uint8_t>((word >> kWordFlAt) & 15);
  in.d = static_cast<uint16_t>((word >> kWordDAt) & 0x3ff);
  in.a = static_cast<uint16_t>((word >> kWordAAt) & 0x3ff);
  in.b = static_cast<uint16_t>((word >> kWordBAt) & 0x3ff);
  in.c = static_cast<uint16_t>((word >> kWordCAt) & 0x3ff);
  in.g = static_cast<uint16_t>((word >> kWordGAt) & 0x3ff);
  return in;
}

std::string operandName(uint32_t o) {
  if (o == kNoOperand) return "_";
  if (o < kConstBase) return fmt::format("r{}", o);
  if (o < kSpecialBase) return fmt::format("k{}", o - kConstBase);
  return specialName(static_cast<MSpecial>(o - kSpecialBase));
}

std::string disassemble(const MInstr& in) {
  std::string s;
  if (in.g != kNoGuard)
    s = fmt::format("@{}r{} ", (in.g & kGuardNegated) ? "!" : "", in.g & ~kGuardNegated);
  s += fmt::format("{}.{}{}", opName(in.op), in.isSigned() ? "s" : "u", in.bytes() * 8);
  if (in.fl) s += fmt::format(".f{}", in.fl);
  if (in.op == MOp::Bra)
    return s + fmt::format(" -> {} (join {})", in.b, in.c == kExitTarget ? std::string("exit") : std::to_string(in.c));
  if (in.op == MOp::Call)
    return s + fmt::format(" -> {} (end {}), sp {}, limit {}", in.b, in.c, operandName(in.a), operandName(in.d));
  s += " " + operandName(in.d);
  for (uint32_t o : {in.a, in.b, in.c})
    if (o != kNoOperand) s += ", " + operandName(o);
  return s;
}

}  // namespace qgpu::machine
