// Warp collectives (PTX ISA §9.7.9.6 shfl.sync, §9.7.13.10-12 vote.sync,
// activemask) and the control instructions whose work the executor does
// (bra, call, ret, exit, trap, bar/barrier; membar/fence are no-ops in a
// sequentially consistent interpreter).
//
// A collective is defined only when every live lane of `membermask` executes
// it together, the executing lane is itself in the mask, and a shuffle reads
// from a lane that takes part; anything else is reported as an error instead
// of inventing a value.
#include <bit>

#include <fmt/format.h>

#include "decode_state.h"
#include "lane_ops.h"

namespace qgpu {
namespace {

// Checks the convergence rules for each executing lane (its own membermask
// must contain it, and every live lane of that mask must execute the
// instruction now) and returns the per-lane member masks. Lanes of one warp
// may pass different masks (e.g. one per 4-lane group).
void checkMembers(ExecContext& c, uint32_t m, const uint64_t* memberReg, const char* what,
                  uint32_t* members) {
  uint32_t mm = m;
  while (mm) {
    uint32_t l = static_cast<uint32_t>(std::countr_zero(mm));
    mm &= mm - 1;
    uint32_t mine = static_cast<uint32_t>(memberReg[l]) & c.fullMask;
    if (!((mine >> l) & 1))
      c.fail(ErrorKind::Undefined, l,
             fmt::format("{}: executing lane {} is not in its membermask {:#x} (undefined)", what, l, mine));
    uint32_t missing = mine & c.liveMask & ~m;
    if (missing)
      c.fail(ErrorKind::Undefined, l,
             fmt::format("{}: lanes {} of membermask {:#x} do not execute it together with lanes {} "
                         "(divergent or predicated off)", what, formatLanes(missing), mine, formatLanes(m)));
    members[l] = mine & c.liveMask;
  }
}

// Instr::shflMode(). d[1]: optional predicate.
void shflHandler(const Instr& in, ExecContext& c, uint32_t m) {
  const uint64_t* a = c.reg(in.s[0]);
  const uint64_t* b = c.reg(in.s[1]);
  const uint64_t* cc = c.reg(in.s[2]);
  uint32_t members[32];
  checkMembers(c, m, c.reg(in.s[3]), "shfl.sync", members);
  uint64_t* d = c.reg(in.d[0]);
  uint64_t* p = in.d[1] != kNoSlot ? c.reg(in.d[1]) : nullptr;
  uint64_t result[32];
  bool valid[32];
  forLanes(c, m, [&](uint32_t lane) {
    uint32_t bval = static_cast<uint32_t>(b[lane]) & 31;
    uint32_t cval = static_cast<uint32_t>(cc[lane]) & 31;
    uint32_t segmask = (static_cast<uint32_t>(cc[lane]) >> 8) & 31;
    uint32_t maxLane = (lane & segmask) | (cval & ~segmask);
    uint32_t minLane = lane & segmask;
    int64_t j;
    bool ok;
    switch (in.shflMode()) {
      case ShflMode::Up: j = int64_t{lane} - bval; ok = j >= maxLane; break;
      case ShflMode::Down: j = int64_t{lane} + bval; ok = j <= maxLane; break;
      case ShflMode::Bfly: j = lane ^ bval; ok = j <= maxLane; break;
      default: j = minLane | (bval & ~segmask); ok = j <= maxLane; break;  // Idx
    }
    if (!ok) j = lane;
    uint32_t src = static_cast<uint32_t>(j);
    if (src >= c.W || !((members[lane] >> src) & 1))
      c.fail(ErrorKind::Undefined, lane,
             fmt::format("shfl.sync reads lane {}, which is not an active member (membermask {:#x}, "
                         "warp width {}): the value is undefined",
                         src, members[lane], c.W));
    result[lane] = a[src] & 0xffffffffu;
    valid[lane] = ok;
  });
  forLanes(c, m, [&](uint32_t lane) {
    d[lane] = result[lane];
    if (p) p[lane] = valid[lane];
  });
}

// Instr::voteMode(); imm bit 0: predicate negated.
void voteHandler(const Instr& in, ExecContext& c, uint32_t m) {
  const uint64_t* a = c.reg(in.s[0]);
  uint32_t members[32];
  checkMembers(c, m, c.reg(in.s[1]), "vote.sync", members);
  bool neg = in.imm & 1;
  uint32_t votes = 0;  // predicate of every executing lane
  forLanes(c, m, [&](uint32_t l) {
    if (((a[l] & 1) != 0) != neg) votes |= 1u << l;
  });
  uint64_t* d = c.reg(in.d[0]);
  forLanes(c, m, [&](uint32_t l) {
    uint32_t ballot = votes & members[l];
    switch (in.voteMode()) {
      case VoteMode::All: d[l] = ballot == members[l]; break;
      case VoteMode::Any: d[l] = ballot != 0; break;
      case VoteMode::Uni: d[l] = ballot == 0 || ballot == members[l]; break;
      default: d[l] = ballot; break;  // Ballot
    }
  });
}

void activemaskHandler(const Instr& in, ExecContext& c, uint32_t m) {
  uint64_t* d = c.reg(in.d[0]);
  forLanes(c, m, [&](uint32_t l) { d[l] = m; });
}

}  // namespace

void decodeShfl(DecodeState& ds) {
  if (!ds.mods.take("sync")) ds.fail("shfl without .sync is not supported on sm_70+");
  int mode = ds.mods.takeOneOf({"up", "down", "bfly", "idx"});  // ShflMode order
  if (mode < 0) ds.fail("shfl needs .up, .down, .bfly or .idx");
  auto types = ds.mods.takeTypes();
  if (types.size() != 1 || types[0] != ScalarType::B32) ds.fail("shfl.sync needs .b32");
  ds.expectOperands(5);
  ds.out.fn = &shflHandler;
  ds.out.mode = static_cast<uint8_t>(mode);
  const ptx::Operand& dst = ds.in.operands[0];
  ds.out.d[0] = ds.destination(dst);
  if (!dst.pairName.empty()) {
    ptx::Operand p = dst;
    p.name = dst.pairName;
    p.pairName.clear();
    ds.out.d[1] = ds.destination(p);
  }
  ds.out.s[0] = ds.source(ds.in.operands[1], ScalarType::B32);
  ds.out.s[1] = ds.source(ds.in.operands[2], ScalarType::B32);
  ds.out.s[2] = ds.source(ds.in.operands[3], ScalarType::B32);
  ds.out.s[3] = ds.source(ds.in.operands[4], ScalarType::B32);
}

void decodeVote(DecodeState& ds) {
  if (!ds.mods.take("sync")) ds.fail("vote without .sync is not supported on sm_70+");
  int mode = ds.mods.takeOneOf({"all", "any", "uni", "ballot"});  // VoteMode order
  if (mode < 0) ds.fail("vote needs .all, .any, .uni or .ballot");
  auto types = ds.mods.takeTypes();
  if (types.size() != 1) ds.fail("vote needs a type");
  if ((static_cast<VoteMode>(mode) == VoteMode::Ballot) != (types[0] == ScalarType::B32)) ds.fail("vote.ballot needs .b32, the others .pred");
  ds.expectOperands(3);
  ds.out.fn = &voteHandler;
  ds.out.mode = static_cast<uint8_t>(mode);
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  bool neg = false;
  ds.out.s[0] = ds.predicate(ds.in.operands[1], &neg);
  ds.out.imm = neg ? 1 : 0;
  ds.out.s[1] = ds.source(ds.in.operands[2], ScalarType::B32);
}

void decodeActivemask(DecodeState& ds) {
  auto types = ds.mods.takeTypes();
  if (types.size() != 1 || types[0] != ScalarType::B32) ds.fail("activemask needs .b32");
  ds.expectOperands(1);
  ds.out.fn = &activemaskHandler;
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
}

void decodeBarrier(DecodeState& ds) {
  bool isBarrier = ds.in.opcode == "barrier";
  if (ds.mods.take("arrive") || ds.mods.take("red"))
    ds.fail("bar.arrive / bar.red are not supported yet");
  if (!ds.mods.take("sync") && !isBarrier) ds.fail("expected bar.sync");
  if (isBarrier) ds.mods.take("sync");
  ds.mods.take("aligned");
  ds.expectOperands(1, 2);
  ds.out.flow = Flow::Barrier;
  // ptxas checks immediate ids and counts; a register id is checked when the barrier runs.
  const ptx::Operand& id = ds.in.operands[0];
  if (id.kind == ptx::Operand::Kind::Immediate && !id.isFloat && (id.value < 0 || id.value > 15))
    ds.fail(fmt::format("barrier number {} is out of range 0..15", id.value));
  if (ds.in.operands.size() == 2) {
    const ptx::Operand& count = ds.in.operands[1];
    if (count.kind == ptx::Operand::Kind::Immediate && !count.isFloat && (count.value < 0 || count.value % 32 != 0))
      ds.fail(fmt::format("barrier thread count {} is not a multiple of the warp size 32", count.value));
  }
  ds.out.s[0] = ds.source(ds.in.operands[0], ScalarType::U32);
  if (ds.in.operands.size() == 2) ds.out.s[1] = ds.source(ds.in.operands[1], ScalarType::U32);
}

void decodeFence(DecodeState& ds) {
  ds.mods.takeOneOf({"cta", "gl", "sys", "gpu"});
  ds.mods.takeMemoryHints();
  ds.mods.take("proxy");
  ds.mods.take("alias");
  ds.expectOperands(0);
  ds.out.fn = &noopHandler;
}

void decodeBra(DecodeState& ds) {
  ds.mods.take("uni");
  ds.expectOperands(1);
  ds.out.flow = Flow::Branch;
  ds.branchTarget(ds.in.operands[0]);
}

void decodeCall(DecodeState& ds) {
  ds.mods.take("uni");
  const auto& ops = ds.in.operands;
  ptx::Operand none;
  none.kind = ptx::Operand::Kind::Vector;
  if (ops.empty()) ds.fail("call needs a function");
  if (ops[0].kind == ptx::Operand::Kind::Vector) {
    if (ops.size() < 2) ds.fail("call needs a function after its return list");
    ds.out.imm = ds.callSite(ops[0], ops[1], ops.size() > 2 ? ops[2] : none);
    if (ops.size() > 3) ds.fail("call has too many operand lists (prototypes are not supported)");
  } else {
    ds.out.imm = ds.callSite(none, ops[0], ops.size() > 1 ? ops[1] : none);
    if (ops.size() > 2) ds.fail("call has too many operand lists (prototypes are not supported)");
  }
  ds.out.flow = Flow::Call;
}

void decodeRet(DecodeState& ds) {
  ds.mods.take("uni");
  ds.expectOperands(0);
  ds.out.flow = Flow::Return;
}
void decodeExit(DecodeState& ds) {
  ds.expectOperands(0);
  ds.out.flow = Flow::Exit;
}
void decodeTrap(DecodeState& ds) {
  ds.expectOperands(0);
  ds.out.flow = Flow::Trap;
}
void decodeNanosleep(DecodeState& ds) {
  ds.mods.takeTypes();
  ds.expectOperands(1);
  ds.out.fn = &noopHandler;
}

}  // namespace qgpu
