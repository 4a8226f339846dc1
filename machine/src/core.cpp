// The machine's sequencer and step, shared by the executor and the host decoder.
//
// SIMT stack discipline (docs/machine.md §1.2): an entry {pc, rpc, mask} runs its lanes from
// pc until pc reaches rpc (the reconvergence pc the lowering put into BRA), then pops. A
// divergent branch turns the current entry into the join entry (pc = rpc) and pushes the
// not-taken side, then the taken side (which runs first). Warps of a block run one at a time
// until they finish or reach BAR; when every warp waits, the barrier releases them all.
//
// Control in the stream (docs/machine.md §3.3): before each step the sequencer compares the
// state the tokens so far imply (block, warp, SIMT depth, the running entry's pc and mask)
// with the real one and spells every difference (BLOCK, WARP-START/WARP, DEPTH, TOP, GOTO),
// and restates the pc every kPcCheckpointSteps steps. A BRA or CALL ends with those tokens
// (FALL when nothing changed). The host decoder computes the same tokens and requires them.
#include "qgpu/machine/core.h"

#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "memory.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/control.h"
#include "qgpu/machine/tokens.h"
#include "qgpu/machine/units.h"

namespace qgpu::machine {
uint64_t specialValue(MSpecial s, const SpecialContext& at) {
  const Dim3& b = at.block;
  const uint32_t linear = at.warp * kLanes + at.lane;
  const uint32_t eq = 1u << at.lane;
  switch (s) {
    case MSpecial::TidX: return linear % b.x;
    case MSpecial::TidY: return (linear / b.x) % b.y;
    case MSpecial::TidZ: return linear / (b.x * b.y);
    case MSpecial::NtidX: return b.x;
    case MSpecial::NtidY: return b.y;
    case MSpecial::NtidZ: return b.z;
    case MSpecial::CtaidX: return at.blockLinear % at.grid.x;
    case MSpecial::CtaidY: return at.blockLinear / at.grid.x % at.grid.y;
    case MSpecial::CtaidZ: return at.blockLinear / (at.grid.x * at.grid.y);
    case MSpecial::NctaidX: return at.grid.x;
    case MSpecial::NctaidY: return at.grid.y;
    case MSpecial::NctaidZ: return at.grid.z;
    case MSpecial::LaneId: return at.lane;
    case MSpecial::WarpId: return at.warp;
    case MSpecial::NWarpId: return at.warps;
    case MSpecial::LanemaskEq: return eq;
    case MSpecial::LanemaskLt: return eq - 1;
    case MSpecial::LanemaskLe: return (eq - 1) | eq;
    case MSpecial::LanemaskGt: return ~((eq - 1) | eq) & 0xffffffffu;
    case MSpecial::LanemaskGe: return ~(eq - 1) & 0xffffffffu;
    case MSpecial::WarpSize: return kLanes;
    case MSpecial::ThreadIndex: return linear;
    case MSpecial::BlockIndex: return at.blockLinear;
    default: return 0;
  }
}

namespace {

struct Entry {
  uint32_t pc, rpc, mask;
};
enum class WarpState { Running, AtBarrier, Done };
struct Warp {
  uint32_t index = 0, valid = 0, exited = 0;
  std::vector<Entry> stack;
  std::vector<uint64_t> regs;  // regs[r * 4 + lane]
  WarpState state = WarpState::Running;
  uint64_t barrier = 0;
  bool started = false;  // has run a step (a switch to it says WARP, not WARP-START)
};

/// The control state the tokens so far imply for the next step.
struct Implied {
  uint32_t block = 0, warp = 0, pc = 0, mask = 0, depth = 1;
  bool known = true;   // false after WARP (resume): DEPTH and TOP must follow
  uint32_t since = 0;  // steps ended since the last token that carried the pc
};

enum class Mode { Execute, Replay };

class Machine {
 public:
  Machine(const MachineProgram& p, const MachineLaunch& l, Mode mode, uint64_t maxSteps,
          const std::vector<uint32_t>* tokens)
      : p_(p), l_(l), mode_(mode), maxSteps_(maxSteps), mem_(p, l.params, l.buffers, l.bufferAddr),
        reader_(tokens ? *tokens : empty_) {}

  void run() {
    if (l_.block.count() == 0 || l_.grid.count() == 0) throw Error(ErrorKind::Launch, "machine: empty launch");
    if ((l_.block.count() + kLanes - 1) / kLanes > kMaxWarpsPerBlock)
      throw Error(ErrorKind::Launch, fmt::format("machine: a block of {} threads has more than the {} warps the "
                                                 "token protocol numbers (docs/machine.md §3.1)",
                                                 l_.block.count(), kMaxWarpsPerBlock));
    if (l_.grid.count() > kMaxBlocks)
      throw Error(ErrorKind::Launch, fmt::format("machine: a grid of {} blocks has more than the {} blocks the token "
                                                 "protocol numbers (docs/machine.md §3.1)", l_.grid.count(), kMaxBlocks));
    if (p_.code.size() > kMaxPc)
      throw Error(ErrorKind::Input, fmt::format("machine: {} instructions; TOP/GOTO tokens carry a pc below {}",
                                                p_.code.size(), kMaxPc));
    at_.mask = validMask(0);
    for (uint32_t z = 0; z < l_.grid.z; ++z)
      for (uint32_t y = 0; y < l_.grid.y; ++y)
        for (uint32_t x = 0; x < l_.grid.x; ++x) runBlock(x, y, z);
    // The step that ends the launch says HALT in place of its DONE (one token less).
    if (mode_ == Mode::Execute) {
      if (!trace.tokens.empty() && trace.tokens.back() == ctl(Ctl::Done)) {
        trace.tokens.back() = ctl(Ctl::Halt);
        trace.meanings.back() += "; HALT: the launch is complete";
      } else {
        emit(ctl(Ctl::Halt), "HALT: the launch is complete");
      }
    } else if (!halted_) {
      size_t at = reader_.pos();
      if (reader_.next() != ctl(Ctl::Halt)) throw Error(ErrorKind::Input, fmt::format("token {}: expected HALT", at));
    }
    if (mode_ == Mode::Replay && !reader_.atEnd())
      throw Error(ErrorKind::Input, fmt::format("token {}: tokens after HALT", reader_.pos()));
  }

  Trace trace;
  MachineMemory& memory() { return mem_; }

 private:
  uint32_t validMask(uint32_t warp) const {
    const uint32_t threads = static_cast<uint32_t>(l_.block.count());
    return (1u << std::min(kLanes, threads - warp * kLanes)) - 1;
  }
  uint32_t blockLinear() const { return block_[0] + l_.grid.x * (block_[1] + l_.grid.y * block_[2]); }

  /// A token the step's state determines: emitted (Execute) or required (Replay).
  void say(uint32_t id, const std::string& meaning) {
    if (mode_ == Mode::Execute) return emit(id, meaning);
    size_t at = reader_.pos();
    if (halted_) throw Error(ErrorKind::Input, fmt::format("token {}: HALT came before the launch ended ({})", at - 1, meaning));
    uint32_t got = reader_.next();
    if (got != id)
      throw Error(ErrorKind::Input, fmt::format("token {}: expected {} ({}), got {}", at, tokenName(id), meaning, tokenName(got)));
  }

  /// Before a step of warp `w`: spells what differs from the implied state, and ends a
  /// pending BRA/CALL (its tokens are these; FALL or DONE when nothing changed).
  void sync(Warp& w) {
    const Entry& top = w.stack.back();
    const std::string why = pending_ == Pending::None ? std::string("control") : pendingWhere_;
    bool carriedPc = false;
    if (blockLinear() != at_.block) {
      say(kBlock + blockLinear(), fmt::format("block ({},{},{}) starts", block_[0], block_[1], block_[2]));
      at_ = Implied{blockLinear(), 0, 0, validMask(0), 1, true, 0};
      carriedPc = true;
    }
    if (w.index != at_.warp) {
      if (!w.started) {
        say(kWarpStart + w.index, fmt::format("warp {} starts", w.index));
        at_ = Implied{at_.block, w.index, 0, w.valid, 1, true, 0};
        carriedPc = true;
      } else {
        say(kWarpResume + w.index, fmt::format("warp {} resumes", w.index));
        at_.warp = w.index;
        at_.known = false;
      }
    }
    w.started = true;
    const uint32_t depth = static_cast<uint32_t>(w.stack.size());
    if (!at_.known || depth != at_.depth || top.mask != at_.mask) {
      if (depth >= 3 && lastDepthToken_ != depth) {  // TOP itself names depths 1 and 2
        say(kDepth + depth - 1, fmt::format("{}: the SIMT stack holds {} entries", why, depth));
        lastDepthToken_ = depth;
      }
      say(topToken(top.pc, top.mask, depth), fmt::format("{}: runs pc {} lanes {:#x}, {} SIMT entries", why, top.pc, top.mask, depth));
      carriedPc = true;
    } else if (top.pc != at_.pc || at_.since >= kPcCheckpointSteps) {
      say(kGoto + top.pc, fmt::format("{}: {} pc {}", why, top.pc != at_.pc ? "jumps to" : "checkpoint, next", top.pc));
      carriedPc = true;
    }
    if (!carriedPc && pending_ != Pending::None)
      say(ctl(pending_ == Pending::Branch ? Ctl::Fall : Ctl::Done),
          pendingWhere_ + (pending_ == Pending::Branch ? ": no lane takes the branch" : ": no lane calls"));
    if (carriedPc) at_.since = 0;
    at_ = Implied{at_.block, w.index, top.pc, top.mask, depth, true, at_.since};
    pending_ = Pending::None;
  }
  /// A pending BRA/CALL whose warp ends with it (no step follows to carry its end).
  void flushPending() {
    if (pending_ == Pending::None) return;
    done(pendingWhere_);
    pending_ = Pending::None;
  }

  void emit(uint32_t id, std::string meaning) {
    // Each token also keeps its meaning: an unbounded stream (a long loop under a large
    // --max-steps) would take gigabytes before the step limit (docs/limits.md).
    if (trace.tokens.size() >= kMaxGeneratedTokens)
      throw Error(ErrorKind::StepLimit,
                  fmt::format("machine: the generated token stream passed {} tokens (docs/limits.md); a runaway "
                              "loop, or a launch too long for the machine",
                              kMaxGeneratedTokens));
    trace.tokens.push_back(id);
    trace.meanings.push_back(std::move(meaning));
  }
  std::string where(const Warp& w, uint32_t pc) const {
    return fmt::format("step {} block ({},{},{}) warp {} pc {} {}", trace.steps, block_[0], block_[1],
                       block_[2], w.index, pc, disassemble(p_.code[pc]));
  }

  uint64_t special(MSpecial s, const Warp& w, uint32_t lane) const {
    return specialValue(s, {l_.grid, l_.block, blockLinear(), w.index, lane, static_cast<uint32_t>(warps_.size())});
  }
  uint64_t read(uint32_t o, const Warp& w, uint32_t lane) const {
    if (o == kNoOperand) return 0;
    if (o < kConstBase) {
      if (o >= p_.numRegs) throw Error(ErrorKind::Input, fmt::format("machine: register r{} does not exist", o));
      return w.regs[size_t{o} * kLanes + lane];
    }
    if (o < kSpecialBase) {
      if (o - kConstBase >= p_.constants.size())
        throw Error(ErrorKind::Input, fmt::format("machine: constant k{} does not exist", o - kConstBase));
      return p_.constants[o - kConstBase];
    }
    return special(static_cast<MSpecial>(o - kSpecialBase), w, lane);
  }
  uint32_t thread(const Warp& w, uint32_t lane) const { return w.index * kLanes + lane; }

  void runBlock(uint32_t bx, uint32_t by, uint32_t bz) {
    block_[0] = bx; block_[1] = by; block_[2] = bz;
    const uint32_t threads = static_cast<uint32_t>(l_.block.count());
    mem_.startBlock(threads, l_.dynamicSharedBytes);
    warps_.assign((threads + kLanes - 1) / kLanes, Warp{});
    for (uint32_t i = 0; i < warps_.size(); ++i) {
      Warp& w = warps_[i];
      w.index = i;
      uint32_t lanes = std::min(kLanes, threads - i * kLanes);
      w.valid = (1u << lanes) - 1;
      w.regs.assign(size_t{p_.numRegs} * kLanes, 0);
      w.stack.push_back({0, kExitTarget, w.valid});
    }
    while (true) {
      bool any = false;
      for (Warp& w : warps_)
        if (w.state == WarpState::Running) {
          any = true;
          runWarp(w);
        }
      if (any) continue;
      std::vector<Warp*> waiting;
      for (Warp& w : warps_)
        if (w.state == WarpState::AtBarrier) waiting.push_back(&w);
      if (waiting.empty()) break;
      for (Warp* w : waiting)
        if (w->barrier != waiting[0]->barrier)
          throw Error(ErrorKind::Deadlock, fmt::format("machine: block ({},{},{}): warps wait at different barriers", bx, by, bz));
      for (Warp* w : waiting) w->state = WarpState::Running;
    }
  }

  void runWarp(Warp& w) {
    runWarpSteps(w);
    flushPending();
  }
  void runWarpSteps(Warp& w) {
    while (!w.stack.empty()) {
      const Entry& cur = w.stack.back();
      if (cur.mask == 0 || cur.pc == cur.rpc) {
        w.stack.pop_back();
        continue;
      }
      const uint32_t pc = cur.pc, mask = cur.mask;
      if (pc >= p_.code.size()) throw Error(ErrorKind::Input, fmt::format("machine: pc {} is past the code", pc));
      const MInstr& in = p_.code[pc];
      if (++trace.steps > maxSteps_)
        throw Error(ErrorKind::StepLimit, fmt::format("machine: step limit of {} exceeded at {}", maxSteps_, where(w, pc)));
      uint32_t on = 0;
      if (in.g != kNoGuard)
        for (uint32_t l = 0; l < kLanes; ++l)
          on |= static_cast<uint32_t>(read(in.g & ~kGuardNegated, w, l) & 1) << l;
      const uint32_t eff = guardedMask(mask, in.g != kNoGuard, (in.g & kGuardNegated) != 0, on);
      sync(w);
      if (mode_ == Mode::Execute)
        trace.stepStates.push_back({trace.tokens.size(), blockLinear(), w.index, pc, mask,
                                    static_cast<uint32_t>(w.stack.size())});
      at_.pc = pc + 1;  // the tokens imply the next pc unless the step's own end carries one
      ++at_.since;
      Entry& top = w.stack.back();
      top.pc = pc + 1;
      switch (opInfo(in.op).exec) {  // ops.def: Exec
        case MExec::Branch: branch(w, in, pc, mask, eff); break;
        case MExec::Call: call(w, in, pc, eff); break;
        case MExec::Exit:
          done(where(w, pc) + ": DONE (exit)");
          w.exited = exitedAfterExit(w.exited, eff);
          for (Entry& e : w.stack) e.mask = entryMaskAfterExit(e.mask, eff);
          break;
        case MExec::Barrier: {
          done(where(w, pc) + ": DONE (barrier)");
          if (eff == 0) break;
          uint32_t live = w.valid & ~w.exited;
          if (eff != live)
            throw Error(ErrorKind::Deadlock, fmt::format("machine: barrier deadlock at {}: lanes {:#x} arrive, {:#x} live", where(w, pc), eff, live));
          w.barrier = read(in.a, w, static_cast<uint32_t>(std::countr_zero(eff)));
          w.state = WarpState::AtBarrier;
          return;
        }
        case MExec::Store: store(w, in, pc, eff); break;
        case MExec::Atomic: atomic(w, in, pc, mask, eff); break;
        case MExec::LaneSerial: case MExec::Unit: case MExec::Load: case MExec::Shuffle: case MExec::Vote:
          if (opInfo(in.op).exec == MExec::LaneSerial) laneSerialPositions(w, pc, eff);
          // Said right before the write, so the compiled commit finds it next to the write's
          // own prefix (the form, or the value when uniform): docs/machine.md §5.2.
          if (eff != 0 && eff != mask)
            say(kActive + eff, fmt::format("{}: ACTIVE lanes {:#x} of {:#x} (the guard is off in the others)", where(w, pc), eff, mask));
          compute(w, in, pc, eff);
          break;
      }
    }
    w.state = WarpState::Done;
  }

  /// A DONE: ends a step (the launch's last one says HALT instead).
  void done(const std::string& meaning) {
    if (mode_ == Mode::Execute) {
      emit(ctl(Ctl::Done), meaning);
    } else {
      size_t at = reader_.pos();
      if (halted_) throw Error(ErrorKind::Input, fmt::format("token {}: HALT came before the launch ended ({})", at - 1, meaning));
      uint32_t id = reader_.next();
      if (id == ctl(Ctl::Halt) && reader_.atEnd()) {
        halted_ = true;  // must be the launch's last step: checked when the next step asks for a token
        return;
      }
      if (id != ctl(Ctl::Done))
        throw Error(ErrorKind::Input, fmt::format("token {}: expected DONE for {}, got {}", at, meaning, tokenName(id)));
    }
  }

  // A BRA's tokens are the control tokens before the next step (sync): the new state, which
  // the decoder derives from its replayed predicate and requires.
  void branch(Warp& w, const MInstr& in, uint32_t pc, uint32_t mask, uint32_t eff) {
    pending_ = Pending::Branch;
    pendingWhere_ = fmt::format("{}: branch taken by lanes {:#x}", where(w, pc), eff);
    Entry& top = w.stack.back();
    const BranchUpdate u = branchUpdate(mask, eff, pc, in.b, in.c, top.rpc);
    if (u.kind != BranchUpdate::Kind::Diverged) {
      top.pc = u.topPc;
      return;
    }
    if (u.popTop) w.stack.pop_back();
    else top.pc = u.topPc;
    if (u.pushFallthrough) w.stack.push_back({pc + 1, in.c, u.notTaken});
    if (u.pushTaken) w.stack.push_back({in.b, in.c, eff});
    if (w.stack.size() > kMaxSimtEntries)
      throw Error(ErrorKind::Memory, fmt::format("machine: SIMT stack overflow at {}: a divergent branch needs more "
                                                 "than its {} entries (DEPTH tokens, docs/machine.md §3.1)",
                                                 where(w, pc), kMaxSimtEntries));
  }

  // CALL b (callee entry), c (END): pushes {b, c, lanes} on top of the caller's entry, whose
  // pc already is the instruction after the CALL; the callee's returns branch to END, where
  // the entry pops (§1.2). a = the stack pointer after the caller's saves, d = its limit.
  void call(Warp& w, const MInstr& in, uint32_t pc, uint32_t eff) {
    if (in.g != kNoGuard) throw Error(ErrorKind::Input, fmt::format("machine: {}: CALL takes no guard", where(w, pc)));
    for (uint32_t l = 0; l < kLanes; ++l)
      if ((eff >> l) & 1 && read(in.a, w, l) > read(in.d, w, l))
        throw Error(ErrorKind::Memory,
                    fmt::format("machine: call stack overflow at {}: lane {}'s stack pointer {:#x} is past the "
                                "{} bytes of local memory the calls may use",
                                where(w, pc), l, read(in.a, w, l), read(in.d, w, l)));
    if (w.stack.size() >= kMaxSimtEntries)
      throw Error(ErrorKind::Memory, fmt::format("machine: call stack overflow at {}: the SIMT stack already holds "
                                                 "{} entries", where(w, pc), kMaxSimtEntries));
    pending_ = Pending::Call;
    pendingWhere_ = fmt::format("{}: call by lanes {:#x}", where(w, pc), eff);
    if (eff != 0) w.stack.push_back({in.b, in.c, eff});
  }

  /// A store is lane-serial (§5.3): one position per active lane, in lane order, at which
  /// that lane's bytes go into the banks — a WAIT for every lane but the last, then DONE.
  void store(Warp& w, const MInstr& in, uint32_t pc, uint32_t eff) {
    const uint32_t size = in.bytes();
    const MSpace space = static_cast<MSpace>(in.fl & 7);
    for (uint32_t l = 0; l < kLanes; ++l) {
      if (!((eff >> l) & 1)) continue;
      uint64_t addr = read(in.a, w, l) + read(in.b, w, l);
      uint64_t v = read(in.c, w, l);
      std::memcpy(mem_.at(space, addr, size, thread(w, l), true), &v, size);
    }
    const int lanes = std::popcount(eff);
    for (int k = 1; k < lanes; ++k)
      say(ctl(Ctl::Wait), fmt::format("{}: WAIT (store lane {}/{}: one lane per position)", where(w, pc), k, lanes));
    done(fmt::format("{}: DONE (store{})", where(w, pc), lanes > 1 ? fmt::format(" lane {}/{}", lanes, lanes) : ""));
  }

  // Atomics are lane-serial (§5.3), like stores: ATOMIC, then per active lane in lane order
  // that lane's old value and its new memory value, each a one-lane write (uniform form: no
  // step end inside an atomic step); the new value goes into memory with its last token, so
  // a later lane at the same address reads it; d takes each lane's old value with its last
  // token, c (but for CAS) its new one. Then DONE. Why
  // both values: the compiled memory is written from tokens at the banks' layers, far above
  // where a value read from them is known, so the new value must come back as tokens; and
  // computed from the old value's tokens (op(old, b, c) on the step's ALU) it costs no
  // depth, where op on the value read from the banks would come after them. The decoder
  // requires both: the old value as its memory holds it, the new one as atomicResult.
  void atomic(Warp& w, const MInstr& in, uint32_t pc, uint32_t mask, uint32_t eff) {
    if (eff == 0) return done(where(w, pc) + ": DONE (no active lane)");
    const uint32_t bytes = in.bytes();
    const MSpace space = in.op == MOp::AtomS ? MSpace::Shared : MSpace::Generic;
    // The lanes come before ATOMIC when the guard turned some off, as before a write: the
    // compiled register copies take each lane's values from the tokens, long before the guard
    // is read (docs/machine.md §5.3).
    if (eff != mask)
      say(kActive + eff, fmt::format("{}: ACTIVE lanes {:#x} of {:#x} (the guard is off in the others)", where(w, pc), eff, mask));
    say(ctl(Ctl::Atomic), where(w, pc) + ": ATOMIC (per lane its old and new value follow, then DONE)");
    if (in.d != kNoOperand && in.d >= p_.numRegs)
      throw Error(ErrorKind::Input, fmt::format("machine: {} writes {}", where(w, pc), operandName(in.d)));
    const int lanes = std::popcount(eff);
    int k = 0;
    for (uint32_t l = 0; l < kLanes; ++l) {
      if (!((eff >> l) & 1)) continue;
      ++k;
      const uint64_t addr = windowBase(p_.windows, space) + read(in.a, w, l);  // ATOMS: a shared-space address
      uint8_t* p = mem_.at(space, addr, bytes, thread(w, l), true);
      uint64_t old = 0;
      std::memcpy(&old, p, bytes);
      const uint64_t next = atomicResult(in, old, read(in.b, w, l), read(in.c, w, l));
      const std::string lane = fmt::format("lane {} ({}/{})", l, k, lanes);
      // Each value is one lane's register write as well, as the compiled machine commits it at
      // its last token (docs/machine.md §5.3): the old value to d, the new one to c where no CAS
      // reads it (the lowering's atom.new, from which the compiled store path writes memory).
      // Lane l's d and c are its own: the later lanes' operands are untouched.
      const bool newToC = in.fl != static_cast<uint8_t>(MAtom::Cas) && in.c < p_.numRegs;
      auto commit = [&](uint16_t reg, uint64_t value) {
        std::array<uint64_t, 4> v{};
        v[l] = value & widthMask(bytes);
        if (mode_ == Mode::Execute) trace.writes.push_back({trace.tokens.size() - 1, reg, 1u << l, bytes, v, true});
        w.regs[size_t{reg} * kLanes + l] = v[l];
      };
      if (mode_ == Mode::Execute) {
        std::array<uint64_t, 4> v{};
        v[l] = old;
        emitWrite(w, pc, v, 1u << l, bytes, lane + ": old value", true);
        if (in.d != kNoOperand) commit(in.d, old);
        v[l] = next;
        emitWrite(w, pc, v, 1u << l, bytes, lane + ": new memory value", true);
        if (newToC) commit(in.c, next);
      } else {
        // Each value one lane's write, required to be what the replayed memory implies.
        auto require = [&](uint64_t want, const std::string& what, const std::string& because) {
          const size_t at = reader_.pos();
          const uint64_t got = reader_.write(1u << l, bytes, true)[l];
          if (got != want)
            throw Error(ErrorKind::Input, fmt::format("token {}: {} {}: {} {:#x}, but {} {:#x}", at, where(w, pc), lane,
                                                      what, got, because, want));
        };
        require(old, "old value", fmt::format("memory at {:#x} holds", addr));
        if (in.d != kNoOperand) commit(in.d, old);
        require(next, "new memory value", fmt::format("the operation on {:#x} gives", old));
        if (newToC) commit(in.c, next);
      }
      std::memcpy(p, &next, bytes);
    }
    done(where(w, pc) + (in.d == kNoOperand ? ": DONE (atomic)" : fmt::format(": DONE (atomic; {} holds the old values)", operandName(in.d))));
  }

  /// The tokens of one write (§3.3) of `vals` for `lanes`, each with its meaning.
  void emitWrite(const Warp& w, uint32_t pc, const std::array<uint64_t, 4>& vals, uint32_t lanes, uint32_t bytes,
                 const std::string& what, bool inner = false) {
    WriteForm form;
    std::vector<uint32_t> ids = encodeWrite(vals, lanes, bytes, &form, inner);
    for (size_t i = 0; i < ids.size(); ++i)
      emit(ids[i], fmt::format("{}: {} lanes {:#x}, {} form, token {}/{}: {}", where(w, pc), what, lanes,
                               writeFormName(form), i + 1, ids.size(), tokenName(ids[i])));
  }

  /// A lane-serial op's unit computes one lane (docs/machine.md §5.2: FADD, FSUB, FMUL and
  /// FFMA for four lanes do not fit hidden 2048 beside the rest of the step), so its step takes one position per active lane: each lane's
  /// result is computed at its own position and parked, the last lane's position spells the
  /// write. The positions before it say WAIT.
  void laneSerialPositions(const Warp& w, uint32_t pc, uint32_t eff) {
    const int lanes = std::popcount(eff);
    for (int k = 1; k < lanes; ++k)
      say(ctl(Ctl::Wait), fmt::format("{}: WAIT (float lane {}/{}: one lane per position)", where(w, pc), k, lanes));
  }

  void compute(Warp& w, const MInstr& in, uint32_t pc, uint32_t eff) {
    if (eff == 0) return done(where(w, pc) + ": DONE (no active lane)");
    const uint32_t bytes = writeBytes(in);
    std::array<uint64_t, 4> vals{};
    if (mode_ == Mode::Execute) {
      for (uint32_t l = 0; l < kLanes; ++l)
        if ((eff >> l) & 1) vals[l] = laneValue(w, in, l, eff);
      emitWrite(w, pc, vals, eff, bytes,
                fmt::format("write {} ({})", operandName(in.d), in.d < p_.regNames.size() ? p_.regNames[in.d] : "?"));
      for (uint64_t& v : vals) v &= widthMask(bytes);
      trace.writes.push_back({trace.tokens.size() - 1, in.d, eff, bytes, vals, false});
    } else {
      vals = reader_.write(eff, bytes);
    }
    if (in.d >= p_.numRegs) throw Error(ErrorKind::Input, fmt::format("machine: {} writes {}", where(w, pc), operandName(in.d)));
    for (uint32_t l = 0; l < kLanes; ++l)
      if ((eff >> l) & 1) w.regs[size_t{in.d} * kLanes + l] = vals[l] & widthMask(bytes);
  }

  uint64_t laneValue(Warp& w, const MInstr& in, uint32_t l, uint32_t eff) {
    switch (opInfo(in.op).exec) {
      case MExec::Load: {
        uint64_t addr = read(in.a, w, l) + read(in.b, w, l);
        uint32_t size = in.bytes();
        uint64_t raw = 0;
        std::memcpy(&raw, mem_.at(static_cast<MSpace>(in.fl & 7), addr, size, thread(w, l), false), size);
        if (in.isSigned() && size < 8 && ((raw >> (8 * size - 1)) & 1)) raw |= ~0ull << (8 * size);
        return raw & widthMask(writeBytes(in));
      }
      case MExec::Shuffle: return shuffle(w, in, l, eff);
      case MExec::Vote: return vote(w, in, l, eff);
      default: {
        // Only operand fields are read: a width code ('w' in ops.def) is no register.
        auto operand = [&](uint32_t field, uint16_t o) { return isOperandField(in.op, field) ? read(o, w, l) : 0; };
        return computeLane(in, operand(1, in.a), operand(2, in.b), operand(3, in.c));
      }
    }
  }

  // Lane exchange. The membermask is a ROM constant the lowering checked; the machine takes
  // the executing lanes as the members (docs/machine.md §1.5).
  uint64_t shuffle(const Warp& w, const MInstr& in, uint32_t lane, uint32_t eff) const {
    const uint32_t src = shuffleSource(in.fl & 3, lane, static_cast<uint32_t>(read(in.b, w, lane)),
                                       static_cast<uint32_t>(read(in.c, w, lane)));
    if (src >= kLanes || !((eff >> src) & 1))
      throw Error(ErrorKind::Undefined, fmt::format("machine: SHFL in lane {} reads lane {}, which does not take part", lane, src));
    return read(in.a, w, src) & 0xffffffffu;
  }

  uint64_t vote(const Warp& w, const MInstr& in, uint32_t lane, uint32_t eff) const {
    const uint32_t members = static_cast<uint32_t>(read(in.b, w, lane)) & 0xf & (w.valid & ~w.exited);
    uint32_t predicates = 0;
    for (uint32_t l = 0; l < kLanes; ++l)
      if ((eff >> l) & 1 && (read(in.a, w, l) & 1) != 0) predicates |= 1u << l;
    return voteResult(in.fl & 3, (in.fl & 4) != 0, eff, members, predicates);
  }

  const MachineProgram& p_;
  const MachineLaunch& l_;
  Mode mode_;
  uint64_t maxSteps_;
  MachineMemory mem_;
  std::vector<uint32_t> empty_;
  TokenReader reader_;
  std::vector<Warp> warps_;
  uint32_t block_[3] = {0, 0, 0};
  bool halted_ = false;  // replay: HALT was read in place of a DONE
  Implied at_;
  uint32_t lastDepthToken_ = 0;  // the depth the last DEPTH token said (0: none yet)
  enum class Pending { None, Branch, Call } pending_ = Pending::None;
  std::string pendingWhere_;  // the pending BRA/CALL, for the meanings of its tokens
};

}  // namespace

MachineLaunch machineLaunch(const MachineProgram& program, const Launch& launch) {
  MachineLaunch ml;
  ml.grid = launch.grid;
  ml.block = launch.block;
  ml.dynamicSharedBytes = launch.dynamicSharedBytes;
  if (launch.dynamicSharedBytes != program.dynamicSharedBytes)  // the windows were laid out for it (windowLayout)
    throw Error(ErrorKind::Launch, fmt::format("machine: the launch has {} bytes of dynamic shared memory, the program "
                                               "was lowered for {} (machine::lowerFor)",
                                               launch.dynamicSharedBytes, program.dynamicSharedBytes));
  if (launch.args.size() != program.paramOffsets.size())
    throw Error(ErrorKind::Launch, fmt::format("machine: {} arguments given, the kernel has {} parameters",
                                               launch.args.size(), program.paramOffsets.size()));
  uint64_t next = program.globalsEnd;
  for (const LaunchBuffer& b : launch.buffers) {
    next = (next + kGlobalAlign - 1) / kGlobalAlign * kGlobalAlign;
    ml.bufferAddr.push_back(next);
    next += b.data.size();
    ml.buffers.push_back(b.data);
  }
  if (next > kGlobalLimit)
    throw Error(ErrorKind::Launch, fmt::format("machine: {} bytes of global memory exceed its 16 MiB", next));
  ml.params.assign(program.paramBytes, 0);
  for (size_t i = 0; i < launch.args.size(); ++i) {
    const LaunchArg& a = launch.args[i];
    uint64_t v = a.kind == LaunchArg::Kind::Buffer ? ml.bufferAddr.at(a.buffer) : a.scalarBits;
    uint32_t size = a.kind == LaunchArg::Kind::Buffer ? 8 : a.scalarBytes;
    if (size != program.paramSizes[i])
      throw Error(ErrorKind::Launch, fmt::format("machine: argument {} is {} bytes, the parameter {}", i, size, program.paramSizes[i]));
    std::memcpy(ml.params.data() + program.paramOffsets[i], &v, size);
  }
  return ml;
}

MachineResult execute(const MachineProgram& program, const MachineLaunch& launch, uint64_t maxSteps) {
  Machine m(program, launch, Mode::Execute, maxSteps, nullptr);
  m.run();
  MachineResult r;
  r.buffers = m.memory().buffers();
  r.trace = std::move(m.trace);
  return r;
}

std::vector<std::vector<uint8_t>> replay(const MachineProgram& program, const MachineLaunch& launch,
                                         const std::vector<uint32_t>& tokens, uint64_t maxSteps) {
  Machine m(program, launch, Mode::Replay, maxSteps, &tokens);
  m.run();
  return m.memory().buffers();
}

}  // namespace qgpu::machine
