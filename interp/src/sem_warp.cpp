// Warp collectives (PTX ISA §9.7.9.6 shfl.sync, §9.7.13.10-12 vote.sync,
// activemask) and the control instructions whose work the executor does
// (bra, call, ret, exit, trap, bar/barrier; membar/fence are no-ops in a
// sequentially consistent interpreter).
//
// A collective is defined only when every live lane of `membermask` executes
// it together, the executing lane is itself in the mask, and a shuffle reads
// from a lane that takes part; anything else is reported as an error instead
// of inventing a value.
#include <algorithm>
#include <array>
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

// redux.sync (PTX ISA 7.0, sm_80): every member lane gets the reduction of `a` over the
// live lanes of its membermask. Instr::mode: ReduxOp; add wraps modulo 2^32.
void reduxHandler(const Instr& in, ExecContext& c, uint32_t m) {
  const uint64_t* a = c.reg(in.s[0]);
  uint32_t members[32];
  checkMembers(c, m, c.reg(in.s[1]), "redux.sync", members);
  const ReduxOp op = static_cast<ReduxOp>(in.mode);
  uint32_t result[32];
  forLanes(c, m, [&](uint32_t l) {
    uint32_t acc = 0;
    bool first = true;
    for (uint32_t k = members[l]; k; k &= k - 1) {
      const uint32_t v = static_cast<uint32_t>(a[std::countr_zero(k)]);
      if (first) {
        acc = v;
        first = false;
        continue;
      }
      switch (op) {
        case ReduxOp::Add: acc += v; break;
        case ReduxOp::MinU: acc = std::min(acc, v); break;
        case ReduxOp::MaxU: acc = std::max(acc, v); break;
        case ReduxOp::MinS: acc = static_cast<uint32_t>(std::min(static_cast<int32_t>(acc), static_cast<int32_t>(v))); break;
        case ReduxOp::MaxS: acc = static_cast<uint32_t>(std::max(static_cast<int32_t>(acc), static_cast<int32_t>(v))); break;
        case ReduxOp::And: acc &= v; break;
        case ReduxOp::Or: acc |= v; break;
        case ReduxOp::Xor: acc ^= v; break;
      }
    }
    result[l] = acc;
  });
  uint64_t* d = c.reg(in.d[0]);
  forLanes(c, m, [&](uint32_t l) { d[l] = result[l]; });
}

// match.{any,all}.sync (PTX ISA 6.0, sm_70). .any: the member lanes whose `a` equals this
// lane's; .all: the membermask if every member's `a` is equal (then p = 1), else 0 (p = 0).
// Instr::mode: 0 any, 1 all; typeBytes: 4 or 8; d[1]: the optional predicate of .all.
void matchHandler(const Instr& in, ExecContext& c, uint32_t m) {
  const uint64_t* a = c.reg(in.s[0]);
  uint32_t members[32];
  checkMembers(c, m, c.reg(in.s[1]), "match.sync", members);
  const uint64_t valueMask = in.typeBytes == 8 ? ~uint64_t{0} : 0xffffffffu;
  const bool all = in.mode == 1;
  uint32_t result[32];
  bool same[32];
  forLanes(c, m, [&](uint32_t l) {
    const uint64_t mine = a[l] & valueMask;
    uint32_t equal = 0;
    for (uint32_t k = members[l]; k; k &= k - 1) {
      const uint32_t j = static_cast<uint32_t>(std::countr_zero(k));
      if ((a[j] & valueMask) == mine) equal |= 1u << j;
    }
    same[l] = equal == members[l];
    result[l] = all ? (same[l] ? members[l] : 0) : equal;
  });
  uint64_t* d = c.reg(in.d[0]);
  uint64_t* p = in.d[1] != kNoSlot ? c.reg(in.d[1]) : nullptr;
  forLanes(c, m, [&](uint32_t l) {
    d[l] = result[l];
    if (p) p[l] = same[l];
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

void decodeRedux(DecodeState& ds) {
  if (!ds.mods.take("sync")) ds.fail(".sync modifier required for instruction 'redux'");
  int op = ds.mods.takeOneOf({"add", "min", "max", "and", "or", "xor"});
  if (op < 0) ds.fail("redux.sync needs .add, .min, .max, .and, .or or .xor");
  auto types = ds.mods.takeTypes();
  if (types.size() != 1) ds.fail("redux.sync needs one type");
  const ScalarType t = types[0];
  if (isFloat(t)) ds.fail(fmt::format("redux.sync.{} (floating point) needs sm_100a", scalarTypeName(t)));
  const bool bitwise = op >= 3;
  if (bitwise ? t != ScalarType::B32 : (t != ScalarType::U32 && t != ScalarType::S32))
    ds.fail(fmt::format("incorrect type .{} for redux.sync.{} (.add/.min/.max take .u32/.s32, "
                        ".and/.or/.xor .b32)",
                        scalarTypeName(t), std::array{"add", "min", "max", "and", "or", "xor"}[op]));
  ReduxOp r = ReduxOp::Add;
  const bool sgn = t == ScalarType::S32;
  switch (op) {
    case 0: r = ReduxOp::Add; break;
    case 1: r = sgn ? ReduxOp::MinS : ReduxOp::MinU; break;
    case 2: r = sgn ? ReduxOp::MaxS : ReduxOp::MaxU; break;
    case 3: r = ReduxOp::And; break;
    case 4: r = ReduxOp::Or; break;
    default: r = ReduxOp::Xor; break;
  }
  ds.expectOperands(3);
  ds.requireRegisterBytes(4, 2);
  ds.out.fn = &reduxHandler;
  ds.out.mode = static_cast<uint8_t>(r);
  ds.out.typeBytes = 4;
  ds.out.d[0] = ds.destination(ds.in.operands[0]);
  ds.out.s[0] = ds.source(ds.in.operands[1], t);
  ds.out.s[1] = ds.source(ds.in.operands[2], ScalarType::B32);
}

void decodeMatch(DecodeState& ds) {
  if (!ds.mods.take("sync")) ds.fail(".sync modifier required for instruction 'match'");
  int mode = ds.mods.takeOneOf({"any", "all"});
  if (mode < 0) ds.fail("match.sync needs .any or .all");
  auto types = ds.mods.takeTypes();
  if (types.size() != 1 || (types[0] != ScalarType::B32 && types[0] != ScalarType::B64))
    ds.fail("match.sync needs .b32 or .b64");
  const ScalarType t = types[0];
  ds.expectOperands(3);
  ds.out.fn = &matchHandler;
  ds.out.mode = static_cast<uint8_t>(mode);
  ds.out.typeBytes = static_cast<uint8_t>(scalarTypeBytes(t));
  const ptx::Operand& dst = ds.in.operands[0];
  ds.out.d[0] = ds.destination(dst);
  if (ds.slotBytes(ds.out.d[0]) != 4) ds.fail("match.sync's destination is a 32-bit register (a lane mask)");
  if (!dst.pairName.empty()) {
    if (mode == 0) ds.fail("predicate output not allowed for match.any");
    ptx::Operand p = dst;
    p.name = dst.pairName;
    p.pairName.clear();
    ds.out.d[1] = ds.destination(p);
    if (ds.slotBytes(ds.out.d[1]) != 1) ds.fail(fmt::format("'{}' is not a predicate register", p.name));
  }
  ds.requireRegisterBytes(4, 1);
  const ptx::Operand& src = ds.in.operands[1];
  ds.out.s[0] = ds.source(src, t);
  if (ds.namesRegister(src) && ds.slotBytes(ds.out.s[0]) != scalarTypeBytes(t))
    ds.fail(fmt::format("match.sync.{} needs a {}-bit source", scalarTypeName(t), 8 * scalarTypeBytes(t)));
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
  ds.mods.take("cta");  // bar.cta / barrier.cta (PTX ISA 7.8, checked with the row): the only scope
  // bar.arrive a, b / barrier.arrive{.aligned} a, b (PTX ISA 2.0, sm_20): arrives without
  // waiting; b, a non-zero thread count, is required (Instr::imm bit 1).
  const bool arrive = ds.mods.take("arrive");
  if (arrive) {
    if (ds.mods.take("sync") || ds.mods.take("red")) ds.fail("bar.arrive takes no .sync or .red");
    ds.requireFeature("bar.arrive", 20, 20);
    ds.expectOperands(2, 2);
    const ptx::Operand& count = ds.in.operands[1];
    if (count.kind == ptx::Operand::Kind::Immediate && !count.isFloat && count.value == 0)
      ds.fail("bar.arrive requires a non-zero thread count");
  }
  const bool red = !arrive && ds.mods.take("red");
  if (!arrive && !red && !ds.mods.take("sync") && !isBarrier) ds.fail("expected bar.sync");
  if (isBarrier && !red && !arrive) ds.mods.take("sync");
  // ptxas: "Illegal modifier '.aligned' for instruction 'bar'" (bar is aligned; barrier takes it).
  if (isBarrier) ds.mods.take("aligned");
  BarRed op = BarRed::None;
  if (red) {
    int k = ds.mods.takeOneOf({"popc", "and", "or"});
    if (k < 0) ds.fail("bar.red needs .popc, .and or .or");
    op = static_cast<BarRed>(k + 1);
    auto types = ds.mods.takeTypes();
    const ScalarType want = op == BarRed::Popc ? ScalarType::U32 : ScalarType::Pred;
    if (types.size() != 1 || types[0] != want)
      ds.fail(op == BarRed::Popc ? "bar.red.popc requires .u32" : "bar.red.and/.or require .pred");
    ds.expectOperands(3, 4);
  } else {
    ds.expectOperands(1, 2);
  }
  ds.out.flow = Flow::Barrier;
  ds.out.mode = static_cast<uint8_t>(op);
  if (arrive) ds.out.imm = 2;
  const size_t first = red ? 1 : 0;  // bar.red d, a{, b}, {!}c
  const size_t nargs = ds.in.operands.size() - (red ? 2 : 0);
  // ptxas checks immediate ids and counts; a register id is checked when the barrier runs.
  const ptx::Operand& id = ds.in.operands[first];
  if (id.kind == ptx::Operand::Kind::Immediate && !id.isFloat && (id.value < 0 || id.value > 15))
    ds.fail(fmt::format("barrier number {} is out of range 0..15", id.value));
  if (nargs == 2) {
    const ptx::Operand& count = ds.in.operands[first + 1];
    if (count.kind == ptx::Operand::Kind::Immediate && !count.isFloat && (count.value < 0 || count.value % 32 != 0))
      ds.fail(fmt::format("barrier thread count {} is not a multiple of the warp size 32", count.value));
  }
  ds.out.s[0] = ds.source(ds.in.operands[first], ScalarType::U32);
  if (nargs == 2) ds.out.s[1] = ds.source(ds.in.operands[first + 1], ScalarType::U32);
  if (red) {
    ds.requireRegisterBytes(op == BarRed::Popc ? 4 : 1, 1);
    ds.out.d[0] = ds.destination(ds.in.operands[0]);
    bool neg = false;
    ds.out.s[2] = ds.predicate(ds.in.operands.back(), &neg);
    ds.out.imm = neg ? 1 : 0;
  }
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
