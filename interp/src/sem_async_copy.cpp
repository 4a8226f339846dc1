// Asynchronous copies from global to shared memory (PTX ISA §9.7.9.25): cp.async.ca/.cg
// .shared{::cta}.global with cp-size 4, 8 or 16 (.cg: 16), an optional src-size (the bytes
// read; the rest of the cp-size bytes are zero-filled) or ignore-src predicate (true: read
// nothing, write cp-size zeros), and the group instructions cp.async.commit_group,
// cp.async.wait_group N and cp.async.wait_all.
//
// Schedule: the interpreter performs each copy synchronously when cp.async issues, and
// commit/wait do nothing. That is one of the schedules the ISA allows: a copy may complete
// at any time between its issue and the wait that covers it, so a kernel that reads the
// destination only after the wait (and does not write the source or destination in
// between) cannot tell the difference. Only a racy kernel — reading the destination
// before its wait, or changing the source before it — could observe it, and such a
// kernel's result is not defined by the ISA (docs/semantics.md). Warp width does not
// matter: every lane copies its own bytes.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"

namespace qgpu {
namespace {

// count: cp-size; s[0] + imm: destination (.shared); s[1] + the value of constant slot
// s[2]: source (.global); s[3]: src-size (kNoSlot: cp-size); s[4]: the ignore-src predicate
// (kNoSlot: none), Instr::mode bit 0 its negation.
void cpAsyncHandler(const Instr& in, ExecContext& c, uint32_t m) {
  const uint64_t* dst = c.reg(in.s[0]);
  const uint64_t* src = c.reg(in.s[1]);
  const uint64_t srcOffset = c.reg(in.s[2])[0];
  const uint64_t* srcSize = in.s[3] != kNoSlot ? c.reg(in.s[3]) : nullptr;
  const uint64_t* ignore = in.s[4] != kNoSlot ? c.reg(in.s[4]) : nullptr;
  const uint32_t size = in.count;
  forLanes(c, m, [&](uint32_t l) {
    uint32_t n = srcSize ? static_cast<uint32_t>(srcSize[l]) : size;
    if (ignore && ((ignore[l] & 1) != 0) != ((in.mode & 1) != 0)) n = 0;
    if (n > size)
      c.fail(ErrorKind::Undefined, l,
             fmt::format("cp.async: src-size {} is larger than cp-size {} (undefined)", n, size));
    const uint64_t from = src[l] + srcOffset;
    if (from % size != 0)
      c.fail(ErrorKind::Memory, l,
             fmt::format("misaligned cp.async source at address {:#x} (needs {}-byte alignment)", from, size));
    uint8_t bytes[16] = {};
    if (n > 0) {
      // The first and the last byte read: bounds of the n bytes (one buffer holds both).
      const uint8_t* p = resolveAddress(c, l, MemSpace::Global, from, 1, false);
      resolveAddress(c, l, MemSpace::Global, from + n - 1, 1, false);
      std::memcpy(bytes, p, n);
    }
    uint8_t* q = resolveAddress(c, l, in.space, dst[l] + static_cast<uint64_t>(in.imm), size, true);
    std::memcpy(q, bytes, size);
  });
}

}  // namespace

void decodeCp(DecodeState& ds) {
  if (!ds.mods.take("async"))
    ds.fail("cp: only cp.async (.ca/.cg .shared.global, commit_group, wait_group, wait_all) is supported");
  const int group = ds.mods.takeOneOf({"commit_group", "wait_group", "wait_all"});
  if (group >= 0) {
    // Copies complete at issue (see the banner): the group instructions have nothing to wait for.
    ds.out.fn = &noopHandler;
    if (group == 1) {
      ds.expectOperands(1);
      const ptx::Operand& n = ds.in.operands[0];
      if (n.kind != ptx::Operand::Kind::Immediate || n.isFloat || n.value < 0)
        ds.fail("cp.async.wait_group takes an integer constant N >= 0");
      ds.out.imm = n.value;
    } else {
      ds.expectOperands(0);
    }
    return;
  }
  const int cache = ds.mods.takeOneOf({"ca", "cg"});
  if (cache < 0) ds.fail("cp.async needs .ca or .cg (or is .commit_group, .wait_group, .wait_all)");
  const int dstSpace = ds.mods.takeOneOf({"shared", "shared::cta"});
  const auto& mods = ds.in.modifiers;
  const auto at = [&](const char* m) { return std::find(mods.begin(), mods.end(), m) - mods.begin(); };
  if (!ds.mods.take("global") || dstSpace < 0 || at("global") < std::min(at("shared"), at("shared::cta")))
    ds.fail("cp.async copies .shared{::cta}.global (state space incorrect)");
  if (dstSpace == 1) ds.requireFeature("::cta", 78, 80);
  if (ds.mods.takeOneOf({"L2::64B", "L2::128B", "L2::256B"}) >= 0) ds.requireFeature("cache prefetching", 74, 80);
  if (ds.mods.take("L2::cache_hint")) ds.fail("cp.async with .L2::cache_hint is not supported");
  ds.expectOperands(3, 4);
  const ptx::Operand& sizeOp = ds.in.operands[2];
  if (sizeOp.kind != ptx::Operand::Kind::Immediate || sizeOp.isFloat)
    ds.fail("cp.async's cp-size is an integer constant (4, 8 or 16)");
  const int64_t size = sizeOp.value;
  if (cache == 1 && size != 16)
    ds.fail(fmt::format("cp.async.cg: cp-size {} (expected to be 16)", size));
  if (size != 4 && size != 8 && size != 16)
    ds.fail(fmt::format("cp.async: cp-size {} (expected to be 4 or 8 or 16)", size));
  ds.out.fn = &cpAsyncHandler;
  ds.out.count = static_cast<uint8_t>(size);
  ds.out.typeBytes = static_cast<uint8_t>(size);
  ds.address(ds.in.operands[1], 1, MemSpace::Global);
  const int64_t srcOffset = ds.out.imm;
  ds.address(ds.in.operands[0], 0, MemSpace::Shared);
  ds.out.space = MemSpace::Shared;
  ds.out.s[2] = ds.constant(static_cast<uint64_t>(srcOffset));
  if (ds.in.operands.size() == 4) {
    const ptx::Operand& last = ds.in.operands[3];
    if (last.kind == ptx::Operand::Kind::Immediate) {
      if (last.isFloat || last.value < 0 || last.value > size)
        ds.fail(fmt::format("cp.async: src-size {} out of range, expected to be in range [0..{}]", last.value, size));
      ds.out.s[3] = ds.source(last, ScalarType::U32);
    } else if (last.negated || ds.declaredRegisterType(last) == ScalarType::Pred) {
      ds.requireFeature("cp.async with ignore-src", 75, 80);
      bool negated = false;
      ds.out.s[4] = ds.predicate(last, &negated);
      ds.out.mode = negated ? 1 : 0;
    } else {
      ds.out.s[3] = ds.source(last, ScalarType::U32);
      if (ds.namesRegister(last) && ds.slotBytes(ds.out.s[3]) != 4)
        ds.fail("cp.async: src-size is a 32-bit integer register or constant");
      if (auto t = ds.declaredRegisterType(last); t && isFloat(*t)) ds.fail("cp.async: src-size is an integer");
    }
  }
}

}  // namespace qgpu
