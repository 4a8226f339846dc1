// Warp-level matrix instructions (PTX ISA §9.7.14): ldmatrix.sync.aligned.m8n8 and
// mma.sync.aligned with f16/bf16 → f32 and s8/u8 → s32 shapes. Their operands are
// fragments of matrices spread over the 32 lanes of a warp (the layouts of the ISA's
// "Matrix Fragments for mma.mMnNkK" and "ldmatrix" sections), so they are defined for a
// 32-lane warp only: the launch refuses a kernel that uses them at another warp width
// (executor.cpp, with needsFullWarp of isa.h), and every handler requires the whole warp to execute it
// together (.sync.aligned), else it reports undefined behaviour.
//
// ldmatrix moves data exactly. Integer mma is exact (s32 wrap-around, or .satfinite's clamp
// of the exact sum). f16/bf16 mma is a model: the hardware's accumulation order and rounding
// are not specified by the ISA, so the interpreter computes D = C + sum_k A[i][k]·B[k][j]
// as a sequence of f32 fma.rn in increasing k, starting from C (docs/semantics.md).
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"
#include "numerics.h"

namespace qgpu {

namespace {

constexpr uint32_t kWarp = 32;

// The instruction is executed by all 32 lanes of the warp together (.sync.aligned).
void requireWholeWarp(ExecContext& c, uint32_t m, const char* what) {
  if (c.W != kWarp)
    c.fail(ErrorKind::Launch, static_cast<uint32_t>(std::countr_zero(m)),
           fmt::format("{} needs a 32-lane warp (its matrix fragments are defined over 32 lanes); this "
                       "launch runs warp width {} (use --warp 32)", what, c.W));
  if (m != 0xffffffffu) {
    const uint32_t first = static_cast<uint32_t>(std::countr_zero(m));
    c.fail(ErrorKind::Undefined, first,
           fmt::format("{}: lanes {} of the warp do not execute it together with lanes {} (all 32 lanes "
                       "must execute .sync.aligned matrix instructions convergently; undefined)",
                       what, formatLanes(~m), formatLanes(m)));
  }
}

// ------------------------------------------------------------------------------ ldmatrix
// count: matrices (1, 2, 4); mode: 1 with .trans; d[i]: matrix i's register; s[0] + imm:
// the row address; space: Shared or Generic. Matrix i's row r is at the address held by
// lane 8i + r (16 bytes, eight b16 elements). Without .trans lane l receives row l/4,
// elements 2(l%4) and 2(l%4)+1 (the lower one in the low half); with .trans column l/4,
// rows 2(l%4) and 2(l%4)+1.
void ldmatrixHandler(const Instr& in, ExecContext& c, uint32_t m) {
  requireWholeWarp(c, m, "ldmatrix.sync.aligned");
  const uint64_t* base = c.reg(in.s[0]);
  uint16_t rows[4][8][8];
  for (uint32_t i = 0; i < in.count; ++i)
    for (uint32_t r = 0; r < 8; ++r) {
      const uint32_t lane = 8 * i + r;
      const uint64_t addr = base[lane] + static_cast<uint64_t>(in.imm);
      const uint8_t* p = resolveAddress(c, lane, in.space, addr, 16, false);
      for (uint32_t e = 0; e < 8; ++e) rows[i][r][e] = static_cast<uint16_t>(p[2 * e] | (p[2 * e + 1] << 8));
    }
  const bool trans = in.mode == 1;
  for (uint32_t i = 0; i < in.count; ++i) {
    uint64_t* d = c.reg(in.d[i]);
    for (uint32_t l = 0; l < kWarp; ++l) {
      const uint32_t g = l / 4, t = 2 * (l % 4);
      const uint16_t lo = trans ? rows[i][t][g] : rows[i][g][t];
      const uint16_t hi = trans ? rows[i][t + 1][g] : rows[i][g][t + 1];
      d[l] = uint32_t{lo} | (uint32_t{hi} << 16);
    }
  }
}

// ----------------------------------------------------------------------------------- mma
enum class Shape : uint8_t { M16n8k8, M16n8k16, M16n8k32, M8n8k16 };
struct ShapeInfo {
  const char* name;
  uint32_t m, n, k;
  uint32_t aRegs, bRegs, cRegs;  // 32-bit registers per lane of A, B and C/D
};
// The register counts are those of the element width: f16/bf16 for the k8/k16 float
// shapes, 8 bits for the integer ones (m16n8k16 exists for both, with the same counts
// since a register holds 2 halves or 4 bytes: A 16x16 halves = 4 regs, 16x16 bytes = 2).
ShapeInfo shapeInfo(Shape s, bool integer) {
  switch (s) {
    case Shape::M16n8k8: return {"m16n8k8", 16, 8, 8, 2, 1, 4};
    case Shape::M16n8k16: return integer ? ShapeInfo{"m16n8k16", 16, 8, 16, 2, 1, 4}
                                         : ShapeInfo{"m16n8k16", 16, 8, 16, 4, 2, 4};
    case Shape::M16n8k32: return {"m16n8k32", 16, 8, 32, 4, 2, 4};
    default: return {"m8n8k16", 8, 8, 16, 1, 1, 2};
  }
}

// Instr::count bits of mma.
constexpr uint8_t kMmaInteger = 1, kMmaASigned = 2, kMmaBSigned = 4, kMmaBf16 = 8;

// Where element i of lane l's A fragment sits in A (row, column), per the ISA's formulas
// (groupID = l >> 2, threadID_in_group = l % 4).
struct RowCol {
  uint32_t row, col;
};
RowCol aPosition(Shape s, bool integer, uint32_t l, uint32_t i) {
  const uint32_t g = l >> 2, t = l % 4;
  if (!integer) {  // f16/bf16: two per register
    if (s == Shape::M16n8k8) return {(i < 2) ? g : g + 8, t * 2 + (i & 1)};
    return {(i < 2 || (i >= 4 && i < 6)) ? g : g + 8, t * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
  }
  switch (s) {  // s8/u8: four per register
    case Shape::M8n8k16: return {g, t * 4 + i};
    case Shape::M16n8k16: return {i < 4 ? g : g + 8, t * 4 + (i & 3)};
    default: return {(i < 4 || (i >= 8 && i < 12)) ? g : g + 8, t * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
  }
}
RowCol bPosition(Shape s, bool integer, uint32_t l, uint32_t i) {
  const uint32_t g = l >> 2, t = l % 4;
  if (!integer) return {t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};
  if (s == Shape::M16n8k32) return {t * 4 + (i & 3) + (i >= 4 ? 16 : 0), g};
  return {t * 4 + i, g};
}
RowCol cPosition(Shape s, uint32_t l, uint32_t i) {
  const uint32_t g = l >> 2, t = l % 4;
  if (s == Shape::M8n8k16) return {g, t * 2 + i};
  return {i < 2 ? g : g + 8, t * 2 + (i & 1)};
}

// imm: index into Program::operandSlots of the D, A, B, C registers (cRegs, aRegs, bRegs,
// cRegs of them, in that order); mode: Shape; count: kMma* bits; sat: .satfinite.
void mmaHandler(const Instr& in, ExecContext& c, uint32_t m) {
  requireWholeWarp(c, m, "mma.sync.aligned");
  const Shape shape = static_cast<Shape>(in.mode);
  const bool integer = in.count & kMmaInteger;
  const ShapeInfo si = shapeInfo(shape, integer);
  const uint32_t* slots = c.program->operandSlots.data() + in.imm;
  const uint32_t* dSlots = slots;
  const uint32_t* aSlots = dSlots + si.cRegs;
  const uint32_t* bSlots = aSlots + si.aRegs;
  const uint32_t* cSlots = bSlots + si.bRegs;
  const uint32_t perReg = integer ? 4 : 2;
  // Gather the matrices: raw element bits, A[m][k], B[k][n], C[m][n].
  uint32_t A[16][32] = {}, B[32][8] = {}, C[16][8] = {};
  for (uint32_t l = 0; l < kWarp; ++l) {
    for (uint32_t i = 0; i < si.aRegs * perReg; ++i) {
      const uint32_t word = static_cast<uint32_t>(c.reg(aSlots[i / perReg])[l]);
      const RowCol rc = aPosition(shape, integer, l, i);
      A[rc.row][rc.col] = integer ? (word >> (8 * (i % 4))) & 0xff : (word >> (16 * (i % 2))) & 0xffff;
    }
    for (uint32_t i = 0; i < si.bRegs * perReg; ++i) {
      const uint32_t word = static_cast<uint32_t>(c.reg(bSlots[i / perReg])[l]);
      const RowCol rc = bPosition(shape, integer, l, i);
      B[rc.row][rc.col] = integer ? (word >> (8 * (i % 4))) & 0xff : (word >> (16 * (i % 2))) & 0xffff;
    }
    for (uint32_t i = 0; i < si.cRegs; ++i) {
      const RowCol rc = cPosition(shape, l, i);
      C[rc.row][rc.col] = static_cast<uint32_t>(c.reg(cSlots[i])[l]);
    }
  }
  uint32_t D[16][8];
  for (uint32_t i = 0; i < si.m; ++i)
    for (uint32_t j = 0; j < si.n; ++j) {
      if (integer) {
        // Exact: |sum| <= 32 * 255 * 255 + 2^31 fits in 64 bits.
        int64_t acc = static_cast<int32_t>(C[i][j]);
        for (uint32_t k = 0; k < si.k; ++k) {
          const int64_t a = (in.count & kMmaASigned) ? static_cast<int8_t>(A[i][k]) : int64_t{A[i][k]};
          const int64_t b = (in.count & kMmaBSigned) ? static_cast<int8_t>(B[k][j]) : int64_t{B[k][j]};
          acc += a * b;
        }
        if (in.sat) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        D[i][j] = static_cast<uint32_t>(static_cast<uint64_t>(acc));
      } else {
        const bool bf16 = in.count & kMmaBf16;
        auto value = [bf16](uint32_t h) {
          return static_cast<float>(bf16 ? fp::bf16ToDouble(static_cast<uint16_t>(h))
                                         : fp::halfToDouble(static_cast<uint16_t>(h)));
        };
        float acc = std::bit_cast<float>(C[i][j]);
        for (uint32_t k = 0; k < si.k; ++k) acc = fp::fma(value(A[i][k]), value(B[k][j]), acc, Rounding::Nearest);
        D[i][j] = std::bit_cast<uint32_t>(acc);
      }
    }
  for (uint32_t l = 0; l < kWarp; ++l)
    for (uint32_t i = 0; i < si.cRegs; ++i) {
      const RowCol rc = cPosition(shape, l, i);
      c.reg(dSlots[i])[l] = D[rc.row][rc.col];
    }
}

// The registers of a {...} operand of `n` 32-bit registers; `role` names it in messages.
std::vector<ptx::Operand> fragment(DecodeState& ds, size_t index, uint32_t n, const char* role) {
  const ptx::Operand& op = ds.in.operands[index];
  if (op.kind != ptx::Operand::Kind::Vector || op.parenthesised)
    ds.fail(fmt::format("{} of '{}' must be a vector expression {{...}} of {} registers", role, ds.in.opcode, n));
  if (op.elements.size() != n)
    ds.fail(fmt::format("{} of '{}' has {} elements; this shape needs {}", role, ds.in.opcode, op.elements.size(), n));
  return op.elements;
}

// A 32-bit register of a fragment; `floatOk`: whether an .f32 register is allowed (ptxas:
// "Arguments mismatch" for .f32 registers in A, B and in integer C/D).
void requireFragmentRegister(DecodeState& ds, const ptx::Operand& op, uint32_t slot, bool floatOk) {
  if (ds.slotBytes(slot) != 4)
    ds.fail(fmt::format("'{}' is a {}-bit register; fragments of '{}' are 32-bit registers", op.name,
                        8 * ds.slotBytes(slot), ds.in.opcode));
  if (!floatOk)
    if (auto t = ds.declaredRegisterType(op); t && isFloat(*t))
      ds.fail(fmt::format("'{}' is a .{} register; this fragment of '{}' holds packed integers or halves "
                          "(.b32/.u32/.s32 registers)", op.name, scalarTypeName(*t), ds.in.opcode));
}

}  // namespace

void decodeLdmatrix(DecodeState& ds) {
  if (!ds.mods.take("sync")) ds.fail(".sync modifier required for instruction 'ldmatrix'");
  if (!ds.mods.take("aligned")) ds.fail(".aligned modifier required for instruction 'ldmatrix'");
  if (!ds.mods.take("m8n8")) ds.fail("ldmatrix: only the .m8n8 shape (b16 elements) is supported");
  const int x = ds.mods.takeOneOf({"x1", "x2", "x4"});
  if (x < 0) ds.fail("ldmatrix needs .x1, .x2 or .x4");
  const bool trans = ds.mods.take("trans");
  const int space = ds.mods.takeOneOf({"shared", "shared::cta"});
  if (space == 1) ds.requireFeature("::cta", 78, 75);
  auto types = ds.mods.takeTypes();
  if (types.size() != 1 || types[0] != ScalarType::B16) ds.fail("ldmatrix.m8n8 needs .b16");
  ds.expectOperands(2);
  const uint32_t n = x == 0 ? 1 : x == 1 ? 2 : 4;
  ds.out.fn = &ldmatrixHandler;
  ds.out.count = static_cast<uint8_t>(n);
  ds.out.mode = trans ? 1 : 0;
  ds.out.typeBytes = 2;
  ds.out.space = space < 0 ? MemSpace::Generic : MemSpace::Shared;
  const std::vector<ptx::Operand> dst = fragment(ds, 0, n, "the destination");
  for (uint32_t i = 0; i < n; ++i) {
    ds.out.d[i] = ds.destination(dst[i]);
    requireFragmentRegister(ds, dst[i], ds.out.d[i], true);
  }
  ds.address(ds.in.operands[1], 0, ds.out.space);
}

void decodeMma(DecodeState& ds) {
  if (!ds.mods.take("sync")) ds.fail(".sync modifier required for instruction 'mma'");
  if (!ds.mods.take("aligned")) ds.fail(".aligned modifier required for instruction 'mma'");
  const int shapeIndex = ds.mods.takeOneOf({"m16n8k8", "m16n8k16", "m16n8k32", "m8n8k16"});
  if (shapeIndex < 0)
    ds.fail("mma: supported shapes are .m16n8k8/.m16n8k16 (f16, bf16 → f32) and .m8n8k16/.m16n8k16/.m16n8k32 "
            "(s8, u8 → s32); other shapes and types are not supported (docs/semantics.md)");
  const Shape shape = static_cast<Shape>(shapeIndex);
  // The layouts, in order: .row (A) then .col (B), the only ones these shapes have.
  std::vector<std::string> layouts;
  for (const std::string& mod : ds.in.modifiers)
    if (mod == "row" || mod == "col") layouts.push_back(mod);
  if (layouts.size() != 2) ds.fail("'.alayout.blayout' modifier required for instruction 'mma' (.row.col)");
  if (layouts[0] != "row" || layouts[1] != "col")
    ds.fail(fmt::format("illegal layouts .{}.{} for mma.{}: only .row.col", layouts[0], layouts[1],
                        shapeInfo(shape, false).name));
  ds.mods.take("row");
  ds.mods.take("col");
  const bool satfinite = ds.mods.take("satfinite");
  auto types = ds.mods.takeTypes();
  if (types.size() != 4) ds.fail("mma needs four types: .dtype.atype.btype.ctype");
  using ST = ScalarType;
  const ST dt = types[0], at = types[1], bt = types[2], ct = types[3];
  const bool isInt8 = [](ST t) { return t == ST::S8 || t == ST::U8; }(at);
  uint8_t bits = 0;
  if (isInt8) {
    if (bt != ST::S8 && bt != ST::U8) ds.fail("mma: .atype .s8/.u8 needs .btype .s8/.u8");
    if (dt != ST::S32 || ct != ST::S32) ds.fail("mma with .s8/.u8 inputs needs .s32 for .dtype and .ctype");
    if (shape == Shape::M16n8k8) ds.fail("incorrect instruction type specified for mma with shape '.m16n8k8' (.s8/.u8)");
    if (shape == Shape::M8n8k16) ds.requireFeature("mma.m8n8k16", 65, 75);
    else ds.requireFeature(fmt::format("mma.{}.s32.{}.{}.s32", shapeInfo(shape, true).name, scalarTypeName(at),
                                       scalarTypeName(bt)), 70, 80);
    bits = kMmaInteger | (at == ST::S8 ? kMmaASigned : 0) | (bt == ST::S8 ? kMmaBSigned : 0);
  } else if (at == ST::F16 || at == ST::BF16) {
    if (bt != at) ds.fail("mma: .atype and .btype must be the same (.f16.f16 or .bf16.bf16)");
    if (dt != ST::F32 || ct != ST::F32)
      ds.fail(fmt::format("mma.{}.{}.{}.{}: only f32 accumulation (.f32.{}.{}.f32) is supported (docs/semantics.md)",
                          scalarTypeName(dt), scalarTypeName(at), scalarTypeName(bt), scalarTypeName(ct),
                          scalarTypeName(at), scalarTypeName(bt)));
    if (shape != Shape::M16n8k8 && shape != Shape::M16n8k16)
      ds.fail(fmt::format("incorrect instruction type specified for mma with shape '.{}' (.{})",
                          shapeInfo(shape, false).name, scalarTypeName(at)));
    if (satfinite) ds.fail("unexpected .satfinite for mma with .f16/.bf16 inputs");
    if (at == ST::BF16) ds.requireFeature(".bf16", 70, 80);
    else if (shape == Shape::M16n8k16) ds.requireFeature(".m16n8k16", 70, 80);
    else ds.requireFeature(".m16n8k8", 65, 75);
    bits = at == ST::BF16 ? kMmaBf16 : 0;
  } else {
    ds.fail(fmt::format("mma with .atype .{}: only .f16, .bf16, .s8 and .u8 inputs are supported (docs/semantics.md)",
                        scalarTypeName(at)));
  }
  const bool integer = bits & kMmaInteger;
  const ShapeInfo si = shapeInfo(shape, integer);
  ds.expectOperands(4);
  ds.out.fn = &mmaHandler;
  ds.out.mode = static_cast<uint8_t>(shape);
  ds.out.count = bits;
  ds.out.sat = satfinite;
  ds.out.typeBytes = 4;
  std::vector<uint32_t>& list = ds.program.operandSlots;
  ds.out.imm = static_cast<int64_t>(list.size());
  for (const ptx::Operand& op : fragment(ds, 0, si.cRegs, "the destination D")) {
    const uint32_t slot = ds.destination(op);
    requireFragmentRegister(ds, op, slot, !integer);
    list.push_back(slot);
  }
  const uint32_t regs[3] = {si.aRegs, si.bRegs, si.cRegs};
  const char* roles[3] = {"the multiplicand A", "the multiplicand B", "the accumulator C"};
  for (size_t k = 0; k < 3; ++k)
    for (const ptx::Operand& op : fragment(ds, k + 1, regs[k], roles[k])) {
      const bool isC = k == 2;
      const uint32_t slot = ds.source(op, isC ? (integer ? ST::S32 : ST::F32) : ST::B32);
      if (ds.namesRegister(op)) requireFragmentRegister(ds, op, slot, isC && !integer);
      else if (!isC) ds.fail(fmt::format("{} of '{}' must be registers", roles[k], ds.in.opcode));
      list.push_back(slot);
    }
}

}  // namespace qgpu
