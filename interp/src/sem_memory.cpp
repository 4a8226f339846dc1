// Loads, stores and atomics in every state space (PTX ISA §9.7.9.8-11,
// §9.7.13.5-6). Accesses are byte-addressed little endian and must be
// aligned to their total size; every address is checked (memory.cpp).
// Atomics of one warp apply in lane order, so results are deterministic.
#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"
#include "numerics.h"

namespace qgpu {
namespace {

uint64_t extend(uint64_t raw, uint32_t bytes, bool isSignedType, uint32_t regBytes) {
  if (bytes >= 8) return raw;
  if (isSignedType && ((raw >> (8 * bytes - 1)) & 1)) raw |= ~0ull << (8 * bytes);
  uint64_t mask = regBytes >= 8 ? ~0ull : (1ull << (8 * regBytes)) - 1;
  return raw & mask;
}

// Instr: typeBytes = element size, count = elements, sat = signed element
// type (sign extension on load), dstBytes = destination register size.
void ldHandler(const Instr& in, ExecContext& c, uint32_t m) {
  const uint64_t* base = c.reg(in.s[0]);
  const uint32_t elem = in.typeBytes, n = in.count, total = elem * n;
  forLanes(c, m, [&](uint32_t l) {
    uint64_t addr = base[l] + static_cast<uint64_t>(in.imm);
    const uint8_t* p = resolveAddress(c, l, in.space, addr, total, false);
    for (uint32_t i = 0; i < n; ++i) {
      if (in.d[i] == kNoSlot) continue;
      uint64_t raw = 0;
      std::memcpy(&raw, p + i * elem, elem);
      c.reg(in.d[i])[l] = extend(raw, elem, in.sat, in.dstBytes);
    }
  });
}

void stHandler(const Instr& in, ExecContext& c, uint32_t m) {
  const uint64_t* base = c.reg(in.s[4]);
  const uint32_t elem = in.typeBytes, n = in.count, total = elem * n;
  forLanes(c, m, [&](uint32_t l) {
    uint64_t addr = base[l] + static_cast<uint64_t>(in.imm);
    uint8_t* p = resolveAddress(c, l, in.space, addr, total, true);
    for (uint32_t i = 0; i < n; ++i) {
      uint64_t v = c.reg(in.s[i])[l];
      std::memcpy(p + i * elem, &v, elem);
    }
  });
}

bool resolvesToGlobal(MemSpace s, uint64_t addr) {
  if (s == MemSpace::Global) return true;
  if (s != MemSpace::Generic) return false;
  return addr >= kGlobalBase;
}

template <class T>
T atomApply(const Instr& in, T old, T b, T cmp, bool global) {
  switch (in.atomOp()) {
    case AtomOp::And: if constexpr (std::is_integral_v<T>) return old & b; break;
    case AtomOp::Or: if constexpr (std::is_integral_v<T>) return old | b; break;
    case AtomOp::Xor: if constexpr (std::is_integral_v<T>) return old ^ b; break;
    case AtomOp::Cas: return old == cmp ? b : old;
    case AtomOp::Exch: return b;
    case AtomOp::Add:
      if constexpr (std::is_same_v<T, float>) {
        // Global f32 atomics flush subnormal inputs and results; shared ones do not.
        if (global) {
          float r = fp::flushSubnormal(fp::add(fp::flushSubnormal(old), fp::flushSubnormal(b), Rounding::Nearest));
          return r;
        }
        return fp::add(old, b, Rounding::Nearest);
      } else if constexpr (std::is_same_v<T, double>) {
        return fp::add(old, b, Rounding::Nearest);
      } else {
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<U>(old) + static_cast<U>(b));
      }
    case AtomOp::Inc: if constexpr (std::is_unsigned_v<T>) return old >= b ? T{0} : static_cast<T>(old + 1); break;
    case AtomOp::Dec: if constexpr (std::is_unsigned_v<T>) return (old == 0 || old > b) ? b : static_cast<T>(old - 1); break;
    case AtomOp::Min:
      if constexpr (std::is_floating_point_v<T>) break;
      else return old < b ? old : b;
    case AtomOp::Max:
      if constexpr (std::is_floating_point_v<T>) break;
      else return old > b ? old : b;
  }
  return old;
}

template <class T>
void atomHandler(const Instr& in, ExecContext& c, uint32_t m) {
  const uint64_t* base = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* cmp = in.s[2] != kNoSlot ? c.reg(in.s[2]) : nullptr;
  uint64_t* d = in.d[0] != kNoSlot ? c.reg(in.d[0]) : nullptr;
  forLanes(c, m, [&](uint32_t l) {
    uint64_t addr = base[l] + static_cast<uint64_t>(in.imm);
    uint8_t* p = resolveAddress(c, l, in.space, addr, sizeof(T), true);
    T old;
    std::memcpy(&old, p, sizeof(T));
    T bv = as<T>(b[l]);
    T cv = cmp ? as<T>(cmp[l]) : T{};
    // For cas the PTX operand order is [a], b (compare), c (new value).
    T result = in.atomOp() == AtomOp::Cas ? atomApply<T>(in, old, cv, bv, false)
                               : atomApply<T>(in, old, bv, cv, resolvesToGlobal(in.space, addr));
    std::memcpy(p, &result, sizeof(T));
    if (d) d[l] = bitsOf(old);
  });
}

MemSpace takeSpace(DecodeState& ds, bool allowConstParam) {
  int s = ds.mods.takeOneOf({"global", "shared", "local", "const", "param", "shared::cta", "param::entry", "param::func"});
  switch (s) {
    case 0: return MemSpace::Global;
    case 1: case 5: return MemSpace::Shared;
    case 2: return MemSpace::Local;
    case 3:
      if (!allowConstParam) ds.fail(".const is read-only");
      return MemSpace::Const;
    case 4: case 6: case 7:
      return ds.function.isEntry ? MemSpace::KernelParam : MemSpace::FrameParam;
    default: return MemSpace::Generic;
  }
}

uint32_t takeVector(DecodeState& ds) {
  int v = ds.mods.takeOneOf({"v2", "v4"});
  return v == 0 ? 2 : v == 1 ? 4 : 1;
}

ScalarType oneDataType(DecodeState& ds) {
  auto types = ds.mods.takeTypes();
  if (types.size() != 1) ds.fail(fmt::format("'{}' needs exactly one type", ds.in.opcode));
  if (types[0] == ScalarType::Pred) ds.fail(".pred cannot be loaded or stored");
  return types[0];
}

// What ld and st share: hints, .v2/.v4, one data type, the 128-bit limit, two operands.
struct AccessShape {
  uint32_t count;
  ScalarType type;
  uint32_t elementBytes;
};
AccessShape decodeAccessShape(DecodeState& ds, MemSpace space, Handler fn) {
  ds.mods.takeMemoryHints();
  AccessShape a;
  a.count = takeVector(ds);
  a.type = oneDataType(ds);
  a.elementBytes = scalarTypeBytes(a.type);
  if (a.elementBytes * a.count > 16) ds.fail("vector access wider than 128 bits");
  ds.expectOperands(2);
  ds.out.fn = fn;
  ds.out.space = space;
  ds.out.typeBytes = static_cast<uint8_t>(a.elementBytes);
  ds.out.count = static_cast<uint8_t>(a.count);
  return a;
}

/// The register operands of an n-element access: the operand itself for n = 1, else the
/// elements of its {...} list, which must have n entries.
std::vector<ptx::Operand> accessOperands(DecodeState& ds, const ptx::Operand& op, uint32_t n, const char* what) {
  const bool isVector = op.kind == ptx::Operand::Kind::Vector;
  if (n == 1) {
    if (isVector) ds.fail(fmt::format("scalar {} with a vector {}", ds.in.opcode, what));
    return {op};
  }
  if (!isVector || op.elements.size() != n)
    ds.fail(fmt::format("{}.v{} needs a {{...}} {} of {} {}", ds.in.opcode, n, what, n,
                        std::string(what) == "destination" ? "registers" : "values"));
  return op.elements;
}

}  // namespace

void decodeLd(DecodeState& ds) {
  ds.mods.take("weak");
  MemSpace space = takeSpace(ds, true);
  const AccessShape a = decodeAccessShape(ds, space, &ldHandler);
  ds.out.sat = isSigned(a.type);
  const std::vector<ptx::Operand> dst = accessOperands(ds, ds.in.operands[0], a.count, "destination");
  for (uint32_t i = 0; i < a.count; ++i)
    ds.out.d[i] = dst[i].kind == ptx::Operand::Kind::Sink && a.count > 1 ? kNoSlot : ds.destination(dst[i]);
  uint32_t regBytes = 8;
  for (uint32_t i = 0; i < a.count; ++i)
    if (ds.out.d[i] != kNoSlot) {
      regBytes = ds.slotBytes(ds.out.d[i]);
      if (regBytes < a.elementBytes) ds.fail("destination register is narrower than the loaded type");
    }
  ds.out.dstBytes = static_cast<uint8_t>(regBytes);
  ds.address(ds.in.operands[1], 0, space);
}

void decodeSt(DecodeState& ds) {
  MemSpace space = takeSpace(ds, false);
  const AccessShape a = decodeAccessShape(ds, space, &stHandler);
  ds.address(ds.in.operands[0], 4, space);
  const std::vector<ptx::Operand> src = accessOperands(ds, ds.in.operands[1], a.count, "source");
  for (uint32_t i = 0; i < a.count; ++i) ds.out.s[i] = ds.source(src[i], a.type);
}

template <class T>
static Handler atomFor() { return &atomHandler<T>; }

static void decodeAtom(DecodeState& ds, bool hasResult) {
  MemSpace space = takeSpace(ds, false);
  if (space == MemSpace::Local || space == MemSpace::KernelParam || space == MemSpace::FrameParam)
    ds.fail("atomics work on .global, .shared or generic addresses");
  ds.mods.takeMemoryHints();
  int op = ds.mods.takeOneOf({"and", "or", "xor", "cas", "exch", "add", "inc", "dec", "min", "max"});
  if (op < 0) ds.fail("missing atomic operation (.add, .cas, ...)");
  const AtomOp aop = static_cast<AtomOp>(op);  // the takeOneOf order is AtomOp's
  ScalarType t = oneDataType(ds);
  ds.out.mode = static_cast<uint8_t>(op);
  ds.out.space = space;
  bool isFloatType = t == ScalarType::F32 || t == ScalarType::F64;
  if (isFloatType && aop != AtomOp::Add && aop != AtomOp::Exch && aop != AtomOp::Cas)
    ds.fail(fmt::format("atom.{} does not support .{}", ds.in.modifiers.empty() ? "" : "op", scalarTypeName(t)));
  if ((aop == AtomOp::Inc || aop == AtomOp::Dec) && t != ScalarType::U32) ds.fail("atom.inc/.dec need .u32");
  switch (t) {
    case ScalarType::B32: case ScalarType::U32: ds.out.fn = atomFor<uint32_t>(); break;
    case ScalarType::S32: ds.out.fn = atomFor<int32_t>(); break;
    case ScalarType::B64: case ScalarType::U64: ds.out.fn = atomFor<uint64_t>(); break;
    case ScalarType::S64: ds.out.fn = atomFor<int64_t>(); break;
    case ScalarType::F32: ds.out.fn = atomFor<float>(); break;
    case ScalarType::F64: ds.out.fn = atomFor<double>(); break;
    default: ds.fail(fmt::format("atomics on .{} are not supported", scalarTypeName(t)));
  }
  ds.out.typeBytes = static_cast<uint8_t>(scalarTypeBytes(t));
  size_t first = hasResult ? 1 : 0;
  ds.expectOperands(first + (aop == AtomOp::Cas ? 3 : 2));
  if (hasResult) ds.out.d[0] = ds.destination(ds.in.operands[0]);
  ds.address(ds.in.operands[first], 0, space);
  ds.out.s[1] = ds.source(ds.in.operands[first + 1], t);
  if (aop == AtomOp::Cas) ds.out.s[2] = ds.source(ds.in.operands[first + 2], t);
}
void decodeAtomOp(DecodeState& ds) { decodeAtom(ds, true); }
void decodeRed(DecodeState& ds) { decodeAtom(ds, false); }

void decodePrefetch(DecodeState& ds) {
  takeSpace(ds, true);
  ds.mods.take("L1");
  ds.mods.take("L2");
  ds.mods.takeMemoryHints();
  ds.out.fn = &noopHandler;
}

}  // namespace qgpu
