// SIMT execution of one launch: blocks run one after another; within a block
// warps of W lanes run until they exit or reach a barrier; within a warp a
// reconvergence stack (see cfg.cpp) tracks divergent paths.
//
// Stack discipline: an entry {pc, rpc, mask} runs its lanes from pc until pc
// reaches rpc (the immediate post-dominator of the branch that created it),
// then pops. A divergent branch turns the current entry into the join entry
// (pc = rpc) and pushes one entry per side. A call pushes a call-base entry
// and a register frame; `ret` removes lanes from every entry of the frame and
// the frame is popped with its call-base entry once all its lanes returned.
#include <algorithm>
#include <array>
#include <bit>

#include <fmt/format.h>

#include "exec_context.h"
#include "exec_step_capture.h"
#include "fault_injector.h"
#include "qgpu/interp/launch.h"

namespace qgpu {
namespace {

constexpr uint32_t kMaxLocalBytesPerThread = 512 * 1024;

struct StackEntry {
  uint32_t pc;
  uint32_t rpc;
  uint32_t mask;
  bool callBase;
};

struct Frame {
  uint32_t function;
  std::vector<uint64_t> regs;
  std::vector<uint8_t> params;
  uint32_t localBase = 0;
  uint32_t localTopBefore = 0;
  uint32_t callPc = 0;
  uint32_t returned = 0;
};

enum class WarpState { Running, AtBarrier, Done };

struct Warp {
  uint32_t index = 0;
  uint32_t validMask = 0;
  uint32_t exited = 0;
  std::vector<StackEntry> stack;
  std::vector<Frame> frames;
  std::vector<std::vector<uint8_t>> local;
  uint32_t localTop = 0;
  WarpState state = WarpState::Running;
  uint64_t barrierId = 0;
  uint32_t barrierPc = 0;
  uint32_t barrierVotes = 0;  // bar.red: the lanes whose predicate is true
  bool released = false;      // its barrier completed: it runs again at the next idle point
};

// One of a block's 16 barriers in its current phase: who arrived, and the thread count.
struct BarrierPhase {
  uint64_t threads = 0;  // lanes of the warps that arrived (a warp arrives whole)
  uint32_t warps = 0;    // warps that arrived
  uint64_t count = 0;    // the thread count b, 0 when the arrivals gave none
  bool uncounted = false, arrives = false;
};


class LaunchRunner {
 public:
  LaunchRunner(const Program& program, uint32_t entry, Launch& launch, const LaunchOptions& opts)
      : program_(program), entry_(entry), launch_(launch), opts_(opts) {}

  LaunchStats run() {
    validate();
    setupMemory();
    for (uint32_t bz = 0; bz < launch_.grid.z; ++bz)
      for (uint32_t by = 0; by < launch_.grid.y; ++by)
        for (uint32_t bx = 0; bx < launch_.grid.x; ++bx) runBlock(bx, by, bz);
    return stats_;
  }

 private:
  [[noreturn]] void launchError(const std::string& what) const {
    throw Error(ErrorKind::Launch, fmt::format("launch of '{}': {}",
                                               program_.functions[entry_].name, what));
  }

  void validate() {
    const FunctionInfo& f = program_.functions[entry_];
    uint32_t W = opts_.warpWidth;
    if (W < 1 || W > 32) launchError(fmt::format("warp width {} is not in 1..32", W));
    const Dim3& g = launch_.grid;
    const Dim3& b = launch_.block;
    if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z)
      launchError("grid and block dimensions must be positive");
    if (b.count() > 1024) launchError(fmt::format("{} threads per block (at most 1024)", b.count()));
    if (b.z > 64) launchError("block.z must be at most 64");
    if (g.y > 65535 || g.z > 65535 || g.x > 0x7fffffffu) launchError("grid too large");
    if (f.maxntid[0] && b.count() > uint64_t{f.maxntid[0]} * f.maxntid[1] * f.maxntid[2])
      launchError(fmt::format("block of {} threads exceeds .maxntid {}x{}x{}", b.count(),
                              f.maxntid[0], f.maxntid[1], f.maxntid[2]));
    if (f.reqntid[0] && (b.x != f.reqntid[0] || b.y != f.reqntid[1] || b.z != f.reqntid[2]))
      launchError(fmt::format("block {}x{}x{} differs from .reqntid {}x{}x{}", b.x, b.y, b.z,
                              f.reqntid[0], f.reqntid[1], f.reqntid[2]));
    if (launch_.args.size() != f.kernelParams.size())
      launchError(fmt::format("{} arguments given, the kernel has {} parameters",
                              launch_.args.size(), f.kernelParams.size()));
    for (size_t i = 0; i < launch_.args.size(); ++i) {
      const LaunchArg& a = launch_.args[i];
      const KernelParam& p = f.kernelParams[i];
      uint32_t size = a.kind == LaunchArg::Kind::Buffer ? 8 : a.scalarBytes;
      // A scalar is copied from 64 bits (setupMemory): a wider parameter (.v2.u64, a
      // by-value array) takes no scalar (fuzz_ptx: 16 bytes were read from an 8-byte value).
      if (a.kind != LaunchArg::Kind::Buffer && (size == 0 || size > 8))
        launchError(fmt::format("argument {} ('{}') is a {}-byte scalar: scalar arguments are 1 to 8 bytes", i, a.name,
                                size));
      if (a.kind == LaunchArg::Kind::Buffer && a.buffer >= launch_.buffers.size())
        launchError(fmt::format("argument {} names buffer {} of {}", i, a.buffer,
                                launch_.buffers.size()));
      if (size != p.size)
        launchError(fmt::format("argument {} ('{}') is {} bytes, parameter {} ('{}', .{}) is {} bytes",
                                i, a.name, size, i, p.name, p.type, p.size));
    }
    if (W != 32) requireNoFullWarpInstructions(W);
    if (uint64_t{program_.dynamicSharedOffset} + launch_.dynamicSharedBytes > kMaxSharedBytes)
      launchError(fmt::format("{} bytes of static + {} of dynamic shared memory exceed {} KiB",
                              program_.staticSharedBytes, launch_.dynamicSharedBytes,
                              kMaxSharedBytes / 1024));
  }

  // ldmatrix and mma are defined over 32 lanes (needsFullWarp): refuse a launch at another
  // warp width whose entry can reach one (through calls), naming the instruction.
  void requireNoFullWarpInstructions(uint32_t W) const {
    std::vector<bool> seen(program_.functions.size(), false);
    std::vector<uint32_t> work{entry_};
    seen[entry_] = true;
    while (!work.empty()) {
      const FunctionInfo& f = program_.functions[work.back()];
      work.pop_back();
      for (uint32_t pc = f.entryPc; pc < f.endPc; ++pc) {
        const Instr& in = program_.code[pc];
        if (needsFullWarp(in.opcode))
          launchError(fmt::format("{} needs a 32-lane warp (its matrix fragments are defined over 32 lanes); "
                                  "this launch runs warp width {} (use --warp 32)",
                                  program_.describePc(pc), W));
        if (in.flow == Flow::Call && in.imm >= 0 && static_cast<size_t>(in.imm) < program_.callSites.size()) {
          const uint32_t callee = program_.callSites[static_cast<size_t>(in.imm)].callee;
          if (callee < seen.size() && !seen[callee]) {
            seen[callee] = true;
            work.push_back(callee);
          }
        }
      }
    }
  }

  void setupMemory() {
    const FunctionInfo& f = program_.functions[entry_];
    kernelParams_.assign(f.kernelParamBytes, 0);
    for (size_t i = 0; i < launch_.args.size(); ++i) {
      const LaunchArg& a = launch_.args[i];
      uint64_t v = a.kind == LaunchArg::Kind::Buffer ? globalBufferAddress(a.buffer) : a.scalarBits;
      std::memcpy(kernelParams_.data() + f.kernelParams[i].offset, &v, f.kernelParams[i].size);
    }
    constBank_.assign(program_.constBytes, 0);
    moduleGlobals_.clear();
    for (const GlobalVariable& g : program_.globals) {
      if (g.space == ptx::StateSpace::Const)
        std::copy(g.init.begin(), g.init.end(), constBank_.begin() + static_cast<long>(g.offset));
      if (g.space == ptx::StateSpace::Global) moduleGlobals_.push_back({g.name, g.init});
    }
    regions_.assign(kFirstLaunchBufferRegion + launch_.buffers.size(), GlobalRegion{});
    for (size_t i = 0; i < moduleGlobals_.size(); ++i)
      regions_[kFirstModuleGlobalRegion + i] = {moduleGlobals_[i].first, &moduleGlobals_[i].second};
    for (size_t i = 0; i < launch_.buffers.size(); ++i)
      regions_[kFirstLaunchBufferRegion + i] = {launch_.buffers[i].name, &launch_.buffers[i].data};
  }

  // ---------------------------------------------------------------- frames
  void pushFrame(Warp& w, uint32_t function, uint32_t callPc) {
    const FunctionInfo& f = program_.functions[function];
    const uint32_t W = opts_.warpWidth;
    Frame fr;
    fr.function = function;
    fr.callPc = callPc;
    fr.regs.assign(static_cast<size_t>(f.numSlots) * W, 0);
    fr.params.assign(static_cast<size_t>(f.paramAreaBytes) * W, 0);
    fr.localTopBefore = w.localTop;
    uint32_t align = std::max(f.localAlign, 1u);
    fr.localBase = (w.localTop + align - 1) / align * align;
    w.localTop = fr.localBase + f.localBytes;
    if (w.localTop > kMaxLocalBytesPerThread)
      throw Error(ErrorKind::Memory,
                  fmt::format("block ({},{},{}) warp {}: local memory exceeds {} bytes per thread "
                              "calling '{}' (recursion too deep?)",
                              ctx_.block[0], ctx_.block[1], ctx_.block[2], w.index,
                              kMaxLocalBytesPerThread, f.name));
    for (auto& l : w.local)
      if (l.size() < w.localTop) l.resize(w.localTop, 0);
    for (const auto& [slot, value] : f.constants)
      std::fill_n(fr.regs.begin() + static_cast<long>(slot) * W, W, value);
    for (const auto& [slot, reg] : f.specials)
      for (uint32_t l = 0; l < W; ++l) fr.regs[size_t{slot} * W + l] = special(reg, w, l, fr);
    w.frames.push_back(std::move(fr));
  }

  uint64_t special(SpecialReg r, const Warp& w, uint32_t lane, const Frame& fr) const {
    const uint32_t W = opts_.warpWidth;
    const Dim3& b = launch_.block;
    uint32_t linear = w.index * W + lane;
    uint32_t tx = linear % b.x, ty = (linear / b.x) % b.y, tz = linear / (b.x * b.y);
    uint32_t eq = 1u << lane;
    switch (r) {
      case SpecialReg::TidX: return tx;
      case SpecialReg::TidY: return ty;
      case SpecialReg::TidZ: return tz;
      case SpecialReg::NtidX: return b.x;
      case SpecialReg::NtidY: return b.y;
      case SpecialReg::NtidZ: return b.z;
      case SpecialReg::CtaidX: return ctx_.block[0];
      case SpecialReg::CtaidY: return ctx_.block[1];
      case SpecialReg::CtaidZ: return ctx_.block[2];
      case SpecialReg::NctaidX: return launch_.grid.x;
      case SpecialReg::NctaidY: return launch_.grid.y;
      case SpecialReg::NctaidZ: return launch_.grid.z;
      case SpecialReg::LaneId: return lane;
      case SpecialReg::WarpId: return w.index;
      case SpecialReg::NWarpId: return warpsPerBlock_;
      case SpecialReg::LanemaskEq: return eq;
      case SpecialReg::LanemaskLt: return eq - 1;
      case SpecialReg::LanemaskLe: return (eq - 1) | eq;
      case SpecialReg::LanemaskGt: return ~((eq - 1) | eq) & 0xffffffffu;
      case SpecialReg::LanemaskGe: return ~(eq - 1) & 0xffffffffu;
      case SpecialReg::WarpSize: return W;
      case SpecialReg::Clock: return stats_.warpInstructions & 0xffffffffu;
      case SpecialReg::Clock64: return stats_.warpInstructions;
      case SpecialReg::SmId: return 0;
      case SpecialReg::NSmId: return 1;
      case SpecialReg::GridId: return 0;
      case SpecialReg::FrameLocalBase: return fr.localBase;
      case SpecialReg::Zero: return 0;
      case SpecialReg::DynamicSmemSize: return launch_.dynamicSharedBytes;
      case SpecialReg::TotalSmemSize: return program_.staticSharedBytes + launch_.dynamicSharedBytes;
    }
    return 0;
  }

  void bindFrame(Warp& w) {
    Frame& fr = w.frames.back();
    ctx_.regs = fr.regs.data();
    ctx_.paramArea = fr.params.data();
    ctx_.paramBytes = program_.functions[fr.function].paramAreaBytes;
  }

  /// Pops a call-base entry: copies return values of the lanes that returned
  /// into the caller's param variables and drops the callee frame.
  void returnFromCall(Warp& w) {
    Frame callee = std::move(w.frames.back());
    w.frames.pop_back();
    w.localTop = callee.localTopBefore;
    Frame& caller = w.frames.back();
    const Instr& call = program_.code[callee.callPc];
    const CallSite& cs = program_.callSites[static_cast<size_t>(call.imm)];
    const FunctionInfo& cf = program_.functions[callee.function];
    const uint32_t callerBytes = program_.functions[caller.function].paramAreaBytes;
    for (size_t r = 0; r < cs.retOffsets.size(); ++r) {
      uint32_t size = std::min(cs.retSizes[r], cf.returns[r].size);
      uint32_t m = callee.returned;
      while (m) {
        uint32_t l = static_cast<uint32_t>(std::countr_zero(m));
        m &= m - 1;
        std::memcpy(caller.params.data() + size_t{l} * callerBytes + cs.retOffsets[r],
                    callee.params.data() + size_t{l} * cf.paramAreaBytes + cf.returns[r].offset, size);
      }
    }
    bindFrame(w);
  }

  void call(Warp& w, const Instr& in, uint32_t pc, uint32_t lanes) {
    const CallSite& cs = program_.callSites[static_cast<size_t>(in.imm)];
    if (w.frames.size() > 4096)
      ctx_.fail(ErrorKind::Memory, static_cast<uint32_t>(std::countr_zero(lanes)),
                "call depth exceeds 4096 (runaway recursion)");
    const uint32_t callerBytes = program_.functions[w.frames.back().function].paramAreaBytes;
    pushFrame(w, cs.callee, pc);
    Frame& caller = w.frames[w.frames.size() - 2];
    Frame& callee = w.frames.back();
    const FunctionInfo& cf = program_.functions[cs.callee];
    for (size_t a = 0; a < cs.argOffsets.size(); ++a) {
      uint32_t size = std::min(cs.argSizes[a], cf.params[a].size);
      uint32_t m = lanes;
      while (m) {
        uint32_t l = static_cast<uint32_t>(std::countr_zero(m));
        m &= m - 1;
        std::memcpy(callee.params.data() + size_t{l} * cf.paramAreaBytes + cf.params[a].offset,
                    caller.params.data() + size_t{l} * callerBytes + cs.argOffsets[a], size);
      }
    }
    w.stack.push_back({cf.entryPc, kExitPc, lanes, true});
    bindFrame(w);
  }

  // ----------------------------------------------------------------- warps
  // Observed launches (traces, attribution, injection) run their own
  // instantiation of the loop, so an unobserved launch pays nothing for them.
  void runWarp(Warp& w) {
    if (opts_.observer) runWarpLoop<true>(w);
    else runWarpLoop<false>(w);
  }

  template <bool kObserved>
  void runWarpLoop(Warp& w) {
    ctx_.warp = w.index;
    ctx_.local = &w.local;
    bindFrame(w);
    const uint32_t W = opts_.warpWidth;
    const Instr* code = program_.code.data();
    while (!w.stack.empty()) {
      StackEntry& top = w.stack.back();
      if (top.mask == 0 || top.pc == top.rpc) {
        bool wasCall = top.callBase;
        w.stack.pop_back();
        if (wasCall) returnFromCall(w);
        continue;
      }
      const uint32_t pc = top.pc;
      const uint32_t mask = top.mask;
      const Instr& in = code[pc];
      ctx_.pc = pc;
      ctx_.liveMask = w.validMask & ~w.exited;
      if (++stats_.warpInstructions > opts_.maxSteps)
        throw Error(ErrorKind::StepLimit,
                    fmt::format("step limit of {} warp instructions exceeded in block ({},{},{}) warp {} at {}; "
                                "the budget is for the whole launch ({} blocks of {} threads): a runaway "
                                "loop, or a launch that needs a larger --max-steps",
                                opts_.maxSteps, ctx_.block[0], ctx_.block[1], ctx_.block[2],
                                w.index, program_.describePc(pc), launch_.grid.count(), launch_.block.count()));
      stats_.threadInstructions += static_cast<uint64_t>(std::popcount(mask));
      uint32_t eff = mask;
      if (in.guard != kNoSlot) {
        const uint64_t* g = ctx_.reg(in.guard);
        uint32_t on = 0;
        for (uint32_t l = 0; l < W; ++l) on |= static_cast<uint32_t>(g[l] & 1) << l;
        eff = mask & (in.guardNegated ? ~on : on);
      }
      if constexpr (kObserved) opts_.observer->onInstruction(pc, blockLinear_, w.index, eff);
      top.pc = pc + 1;
      switch (in.flow) {
        case Flow::None:
          if (eff) {
            if constexpr (kObserved) observedExecute(w, in, pc, eff);
            else in.fn(in, ctx_, eff);
          }
          break;
        case Flow::Branch: {
          uint32_t notTaken = mask & ~eff;
          if (eff == 0) break;
          if (notTaken == 0) {
            top.pc = in.target;
            break;
          }
          uint32_t rpc = in.reconverge;
          if (top.rpc == rpc && !top.callBase) {
            w.stack.pop_back();  // already inside a region joining at rpc
          } else {
            top.pc = rpc;
          }
          if (pc + 1 != rpc) w.stack.push_back({pc + 1, rpc, notTaken, false});
          if (in.target != rpc) w.stack.push_back({in.target, rpc, eff, false});
          break;
        }
        case Flow::Call:
          if (eff) call(w, in, pc, eff);
          break;
        case Flow::Return:
          if (eff == 0) break;
          if (w.frames.size() == 1) {
            exitLanes(w, eff);
          } else {
            w.frames.back().returned |= eff;
            for (size_t i = w.stack.size(); i-- > 0;) {
              w.stack[i].mask &= ~eff;
              if (w.stack[i].callBase) break;
            }
          }
          break;
        case Flow::Exit:
          if (eff) exitLanes(w, eff);
          break;
        case Flow::Trap:
          if (eff)
            ctx_.fail(ErrorKind::Trap, static_cast<uint32_t>(std::countr_zero(eff)),
                      "trap executed");
          break;
        case Flow::Barrier: {
          if (eff == 0) break;
          uint32_t live = w.validMask & ~w.exited;
          if (eff != live)
            throw Error(ErrorKind::Deadlock,
                        fmt::format("barrier deadlock: in block ({},{},{}) warp {}, lanes {} reach "
                                    "{} while lanes {} of the same warp are on another path or "
                                    "predicated off and can never arrive",
                                    ctx_.block[0], ctx_.block[1], ctx_.block[2], w.index,
                                    formatLanes(eff), program_.describePc(pc), formatLanes(live & ~eff)));
          w.barrierId = ctx_.reg(in.s[0])[std::countr_zero(eff)];
          if (w.barrierId > 15)
            ctx_.fail(ErrorKind::Undefined, static_cast<uint32_t>(std::countr_zero(eff)),
                      fmt::format("barrier number {} is out of range 0..15", w.barrierId));
          const uint32_t lane0 = static_cast<uint32_t>(std::countr_zero(eff));
          const bool arrive = in.imm & 2;
          uint64_t count = 0;
          if (in.s[1] != kNoSlot) {
            count = static_cast<uint32_t>(ctx_.reg(in.s[1])[lane0]);
            if (count == 0 || count % 32 != 0)
              ctx_.fail(ErrorKind::Undefined, lane0,
                        fmt::format("barrier thread count {} is not a non-zero multiple of the warp size 32", count));
          }
          BarrierPhase& phase = barriers_[w.barrierId];
          if ((count && phase.count && count != phase.count) || (count ? phase.uncounted : phase.count != 0))
            ctx_.fail(ErrorKind::Undefined, lane0,
                      fmt::format("barrier {} is used with different thread counts in one phase ({} and {})",
                                  w.barrierId, phase.count ? std::to_string(phase.count) : "none",
                                  count ? std::to_string(count) : "none"));
          if (count) phase.count = count;
          else phase.uncounted = true;
          phase.threads += static_cast<uint64_t>(std::popcount(w.validMask));
          phase.warps += 1;
          phase.arrives |= arrive;
          if (!arrive) {
            w.barrierPc = pc;
            w.barrierVotes = 0;
            if (in.mode != static_cast<uint8_t>(BarRed::None)) {
              const uint64_t* p = ctx_.reg(in.s[2]);
              const bool neg = in.imm & 1;
              for (uint32_t l = 0; l < W; ++l)
                if (((eff >> l) & 1) && ((p[l] & 1) != 0) != neg) w.barrierVotes |= 1u << l;
            }
            w.state = WarpState::AtBarrier;
            w.released = false;
          }
          completeIfReached(w.barrierId);
          if (arrive) break;  // bar.arrive: the warp goes on
          if (in.fn) in.fn(in, ctx_, eff);
          return;
        }
      }
    }
    w.state = WarpState::Done;
  }

  // Only observed launches get here. Stores and
  // atomics run lane by lane (the order their handlers use anyway) so that
  // each lane's write is seen before the next lane's.
  [[gnu::noinline]] void observedExecute(const Warp& w, const Instr& in, uint32_t pc, uint32_t lanes) {
    MemoryWrite writes[32];
    StoreKind kind = storeKindOf(program_, pc);
    if (kind == StoreKind::None) {
      in.fn(in, ctx_, lanes);
    } else {
      for (uint32_t m = lanes; m; m &= m - 1) {
        uint32_t lane = static_cast<uint32_t>(std::countr_zero(m));
        uint64_t addr = storeAddress(ctx_, in, kind, lane);
        in.fn(in, ctx_, 1u << lane);
        writes[lane] = capturedWrite(ctx_, in, kind, lane, addr);
      }
    }
    ExecStep step{&program_, pc, blockLinear_, w.index, lanes, opts_.warpWidth,
                  static_cast<uint32_t>(launch_.block.count()), ctx_.regs,
                  kind == StoreKind::None ? nullptr : writes};
    opts_.observer->afterInstruction(step);
  }

  void exitLanes(Warp& w, uint32_t lanes) {
    w.exited |= lanes;
    for (StackEntry& e : w.stack) e.mask &= ~lanes;
  }

  void runBlock(uint32_t bx, uint32_t by, uint32_t bz) {
    const uint32_t W = opts_.warpWidth;
    ctx_.program = &program_;
    ctx_.W = W;
    ctx_.fullMask = W == 32 ? 0xffffffffu : ((1u << W) - 1);
    ctx_.block[0] = bx;
    ctx_.block[1] = by;
    ctx_.block[2] = bz;
    ctx_.blockDim = launch_.block;
    ctx_.globals = &regions_;
    ctx_.constBank = &constBank_;
    ctx_.kernelParams = &kernelParams_;
    blockLinear_ = bx + launch_.grid.x * (by + launch_.grid.y * bz);
    // Dynamic shared memory starts where the decoder placed the extern arrays.
    shared_.assign(size_t{program_.dynamicSharedOffset} + launch_.dynamicSharedBytes, 0);
    ctx_.shared = &shared_;

    const uint32_t threads = static_cast<uint32_t>(launch_.block.count());
    warpsPerBlock_ = (threads + W - 1) / W;
    std::vector<Warp> warps(warpsPerBlock_);
    for (uint32_t i = 0; i < warpsPerBlock_; ++i) {
      Warp& w = warps[i];
      w.index = i;
      uint32_t lanes = std::min(W, threads - i * W);
      w.validMask = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1);
      w.local.assign(W, {});
      pushFrame(w, entry_, 0);
      w.stack.push_back({program_.functions[entry_].entryPc, kExitPc, w.validMask, false});
    }
    warps_ = &warps;
    for (BarrierPhase& b : barriers_) b = {};
    while (true) {
      bool anyRunning = false;
      for (Warp& w : warps)
        if (w.state == WarpState::Running) {
          anyRunning = true;
          runWarp(w);
        }
      if (anyRunning) continue;
      // Every warp waits or is done. Warps whose barrier completed run again; a barrier
      // without a thread count may complete now because threads exited meanwhile.
      if (releaseCompleted()) continue;
      for (uint64_t id = 0; id < barriers_.size(); ++id) completeIfReached(id);
      if (releaseCompleted()) continue;
      std::vector<Warp*> waiting;
      for (Warp& w : warps)
        if (w.state == WarpState::AtBarrier) waiting.push_back(&w);
      if (waiting.empty()) break;
      bool sameBarrier = std::all_of(waiting.begin(), waiting.end(),
                                     [&](Warp* w) { return w->barrierId == waiting[0]->barrierId; });
      if (!sameBarrier) {
        std::string detail;
        for (Warp* w : waiting)
          detail += fmt::format("\n  warp {} (lanes {}) waits at barrier {}: {}", w->index,
                                formatLanes(w->validMask & ~w->exited), w->barrierId,
                                program_.describePc(w->barrierPc));
        throw Error(ErrorKind::Deadlock,
                    fmt::format("barrier deadlock in block ({},{},{}): warps wait at different "
                                "barriers and none can proceed:{}",
                                bx, by, bz, detail));
      }
      const BarrierPhase& b = barriers_[waiting[0]->barrierId];
      throw Error(ErrorKind::Deadlock,
                  fmt::format("barrier deadlock in block ({},{},{}): barrier {} waits for {} threads and {} "
                              "arrived ({} of the block's threads have not exited); no warp can proceed",
                              bx, by, bz, waiting[0]->barrierId, b.count ? b.count : liveThreads(), b.threads,
                              liveThreads()));
    }
    warps_ = nullptr;
  }

  uint64_t liveThreads() const {
    uint64_t n = 0;
    for (const Warp& w : *warps_) n += static_cast<uint64_t>(std::popcount(w.validMask & ~w.exited));
    return n;
  }

  // Completes barrier `id`'s phase when its arrivals reach its thread count (or, without
  // one, when every warp that has not finished arrived; exited threads are not waited for):
  // the warps waiting at it are marked released (bar.red: with the reduction written) and
  // the barrier starts a new phase. The release itself waits for the next idle point, so
  // warps resume together, in index order, as before bar.arrive existed.
  void completeIfReached(uint64_t id) {
    BarrierPhase& b = barriers_[id];
    if (b.warps == 0) return;
    std::vector<Warp*> waiting;
    uint32_t notDone = 0;
    for (Warp& w : *warps_) {
      if (w.state != WarpState::Done) ++notDone;
      if (w.state == WarpState::AtBarrier && !w.released && w.barrierId == id) waiting.push_back(&w);
    }
    const bool reached = b.count ? b.threads >= b.count : b.warps >= notDone;
    if (!reached) return;
    if (b.count && b.threads > b.count)
      throw Error(ErrorKind::Undefined,
                  fmt::format("in block ({},{},{}) {} threads arrived at barrier {} whose thread count is {}",
                              ctx_.block[0], ctx_.block[1], ctx_.block[2], b.threads, id, b.count));
    if (!waiting.empty()) {
      if (b.arrives && static_cast<BarRed>(program_.code[waiting[0]->barrierPc].mode) != BarRed::None)
        throw Error(ErrorKind::Undefined,
                    fmt::format("in block ({},{},{}) bar.red meets bar.arrive at barrier {} (not to be mixed on "
                                "one barrier): {}",
                                ctx_.block[0], ctx_.block[1], ctx_.block[2], id,
                                program_.describePc(waiting[0]->barrierPc)));
      reduceAtBarrier(waiting);
    }
    for (Warp* w : waiting) w->released = true;
    b = {};
  }

  bool releaseCompleted() {
    bool any = false;
    for (Warp& w : *warps_)
      if (w.state == WarpState::AtBarrier && w.released) {
        w.state = WarpState::Running;
        w.released = false;
        any = true;
      }
    return any;
  }

  // bar.red: every thread waiting at the barrier gets the reduction of all their
  // predicates. Mixing bar.red with bar.sync, or two reductions, on one barrier is
  // unpredictable in the PTX ISA: an error here.
  void reduceAtBarrier(const std::vector<Warp*>& waiting) {
    const auto opOf = [&](const Warp* w) { return static_cast<BarRed>(program_.code[w->barrierPc].mode); };
    const BarRed op = opOf(waiting[0]);
    for (const Warp* w : waiting)
      if (opOf(w) != op)
        throw Error(ErrorKind::Undefined,
                    fmt::format("in block ({},{},{}) warps meet at barrier {} with different operations "
                                "(bar.red and bar.sync, or two reductions, are not to be mixed on one "
                                "barrier): {} and {}",
                                ctx_.block[0], ctx_.block[1], ctx_.block[2], waiting[0]->barrierId,
                                program_.describePc(waiting[0]->barrierPc), program_.describePc(w->barrierPc)));
    if (op == BarRed::None) return;
    uint64_t trues = 0, threads = 0;
    for (const Warp* w : waiting) {
      trues += static_cast<uint64_t>(std::popcount(w->barrierVotes));
      threads += static_cast<uint64_t>(std::popcount(w->validMask & ~w->exited));
    }
    const uint64_t result = op == BarRed::Popc ? trues : op == BarRed::And ? trues == threads : trues != 0;
    const uint32_t W = opts_.warpWidth;
    for (Warp* w : waiting) {
      const Instr& in = program_.code[w->barrierPc];
      uint64_t* d = w->frames.back().regs.data() + static_cast<size_t>(in.d[0]) * W;
      for (uint32_t m = w->validMask & ~w->exited; m; m &= m - 1) d[std::countr_zero(m)] = result;
    }
  }

  const Program& program_;
  uint32_t entry_;
  Launch& launch_;
  const LaunchOptions& opts_;
  LaunchStats stats_;
  ExecContext ctx_;
  std::vector<uint8_t> kernelParams_, constBank_, shared_;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> moduleGlobals_;
  std::vector<GlobalRegion> regions_;
  uint32_t warpsPerBlock_ = 0;
  uint32_t blockLinear_ = 0;
  std::vector<Warp>* warps_ = nullptr;  // the block being run
  std::array<BarrierPhase, 16> barriers_{};
};

}  // namespace

uint64_t globalBufferAddress(uint32_t index) {
  return kGlobalBase + (uint64_t{kFirstLaunchBufferRegion} + index) * kGlobalRegionBytes;
}

LaunchStats runLaunch(const Program& program, const std::string& entry, Launch& launch,
                      const LaunchOptions& options) {
  uint32_t index = program.findEntry(entry);
  if (options.inject) {
    // The injector is an observer in front of the caller's (fault_injection.cpp).
    auto injector = makeFaultInjector(program, *options.inject, options);
    LaunchOptions withFault = options;
    withFault.observer = injector.get();
    LaunchStats stats = LaunchRunner(program, index, launch, withFault).run();
    requireInjected(*injector, *options.inject);
    return stats;
  }
  LaunchRunner runner(program, index, launch, options);
  return runner.run();
}

}  // namespace qgpu
