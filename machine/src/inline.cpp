// Inlining of .func calls for the machine lowering; see inline.h and docs/machine.md §2.1.
//
// How the oracle runs a call (interp/src/executor.cpp), and what stands for it here:
//  * `call` pushes a frame with fresh registers and a zeroed per-lane param area, copies
//    min(argument size, parameter size) bytes of each argument variable into the formal
//    parameter, and pushes a call-base SIMT entry {callee entry, function exit, lanes}.
//    Here: the callee's formal parameter *is* the caller's argument variable (a register
//    slot); reading fewer or more bytes than were written gives the same value because
//    every slot holds its value zero-extended (stores of one width per variable, checked).
//  * `ret` removes its lanes from every SIMT entry of the frame; when the call-base entry
//    is empty the frame pops and min(size) bytes of each return value are copied to the
//    caller's variable for the lanes that returned. Here: `ret` is a branch to the
//    continuation C (the instruction after the inlined body) with reconvergence C, and
//    callee branches whose immediate post-dominator is the function exit (kExitPc)
//    reconverge at C. An entry whose reconvergence point lies inside the callee cannot
//    reach a `ret` before that point (it post-dominates the branch), so every `ret`
//    executes in an entry that joins at C or later, and its lanes wait at C exactly as
//    the oracle's returned lanes wait for the call-base entry to pop.
//  * The return value is the caller's return variable; when some path of the callee
//    reaches a `ret` without storing it, the variable is zeroed at the call first (the
//    oracle's fresh param area).
//  * Local memory: the callee's frame starts at the caller's local top, aligned to the
//    callee's .local alignment — static here, so the callee's local addresses get that
//    offset added.
//  * Recursion: a function on a cycle of the call graph is emitted once after the entry
//    (emitBodies) and each call of it is `mov params; CALL; mov returns` with the registers
//    live across the call that recursive code touches saved to the call stack around it
//    (expandSaves). Its `ret` branches to its END marker, where the CALL's SIMT entry pops
//    as the oracle's call-base entry does.
#include "inline.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/interp/types.h"
#include "qgpu/machine/isa.h"

namespace qgpu::machine {
namespace {

// Target of a callee's `ret` (and reconvergence point of its exit-joining branches) until
// the body is emitted and the continuation is known.
constexpr uint32_t kContinuation = 0xfffffffeu;
// Flat instructions allowed: the ROM holds 1023 machine instructions; copies the dataflow
// pass removes take none, so a few times that is the most a lowerable kernel can have.
constexpr size_t kMaxFlatInstructions = 4 * 1023;

struct ParamVar {
  uint32_t slot = kNoSlot;
  uint32_t size = 0;
  bool formal = false;    // the instance's own formal parameter (read-only here)
  bool isReturn = false;  // the instance's own return value (the caller reads it after `ret`)
  std::string name;
};
using ParamVars = std::map<uint32_t, ParamVar>;  // by offset in the instance's param area

uint32_t alignUp(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

ScalarType signedType(uint32_t bytes) {
  return bytes == 1 ? ScalarType::S8 : bytes == 2 ? ScalarType::S16 : bytes == 4 ? ScalarType::S32 : ScalarType::S64;
}

class Inliner {
  struct Body {  // the one copy of a recursive function
    std::vector<uint32_t> slot;
    ParamVars vars;  // its parameters (formal) and return values
    uint32_t entry = 0, end = 0;  // flat pcs of its first instruction and its END marker
  };
  struct Site {  // a call of a recursive function
    size_t save = 0, call = 0, restore = 0;  // flat pcs of the placeholders and the CALL
    std::set<uint32_t> returned;             // the caller's slots the return values go to
  };

 public:
  explicit Inliner(const Program& p) : p_(p), flatIndex_(static_cast<uint32_t>(p.functions.size())) {}

  InlinedKernel run(uint32_t entry) {
    const FunctionInfo& root = p_.functions[entry];
    flat_.name = root.name;
    flat_.isEntry = true;
    flat_.kernelParams = root.kernelParams;
    flat_.kernelParamBytes = root.kernelParamBytes;
    flat_.localAlign = root.localAlign;
    std::copy(std::begin(root.maxntid), std::end(root.maxntid), flat_.maxntid);
    std::copy(std::begin(root.reqntid), std::end(root.reqntid), flat_.reqntid);
    counted_.insert(entry);
    ptxInstructions_ = root.endPc - root.entryPc;
    findRecursion(entry);
    if (!recursive_.empty()) {  // the stack pointer starts after the static .local bytes
      sp_ = newSlot("%sp", 4);
      spBase_ = newSlot("%sp.base", 4);
      limit_ = newSlot("%sp.limit", 4);
      Instr m;
      m.typeBytes = 4;
      m.d[0] = sp_;
      m.s[0] = spBase_;
      emit(m, "mov.b32", root.entryPc);
      flat_.constants.push_back({spBase_, 0});
      flat_.constants.push_back({limit_, 0});
    }
    instance(entry, ParamVars{}, 0, true);
    if (!bodyQueue_.empty()) {
      const Instr& last = code_.back();
      if (last.guard != kNoSlot || (last.flow != Flow::Exit && last.flow != Flow::Return && last.flow != Flow::Branch)) {
        Instr x;
        x.flow = Flow::Exit;
        emit(x, "exit", root.endPc - 1);
      }
    }
    emitBodies();
    if (sp_ != kNoSlot) expandSaves();

    InlinedKernel k;
    k.program = p_;
    const uint32_t base = static_cast<uint32_t>(k.program.code.size());
    for (Instr in : code_) {
      if (in.flow == Flow::Branch || (in.flow == Flow::Call && in.mode == kMachineCall)) {
        if (in.target == kContinuation || in.reconverge == kContinuation)
          throw Error(ErrorKind::Decode, "not lowerable to the machine: internal: unresolved call continuation");
        in.target += base;
        if (in.reconverge != kExitPc) in.reconverge += base;
      }
      k.program.code.push_back(in);
    }
    k.program.opcodeText.insert(k.program.opcodeText.end(), text_.begin(), text_.end());
    flat_.entryPc = base;
    flat_.endPc = static_cast<uint32_t>(k.program.code.size());
    flat_.localBytes = maxLocal_;
    if (sp_ != kNoSlot) {  // the call stack: kCallStackBytes after the static .local bytes
      const uint32_t stackBase = alignUp(maxLocal_, 8);
      for (auto& [slot, v] : flat_.constants) {
        if (slot == spBase_) v = stackBase;
        if (slot == limit_) v = stackBase + kCallStackBytes;
      }
      // A CALL checks the stack pointer against the limit after the caller's saves, which
      // therefore stay inside the window when the stack pointer was at most the limit.
      flat_.localBytes = stackBase + kCallStackBytes + maxFrame_;
    }
    k.program.functions.push_back(std::move(flat_));
    k.function = flatIndex_;
    k.origin = std::move(origin_);
    k.instance = std::move(instanceOf_);
    k.parent = std::move(parent_);
    k.ptxInstructions = ptxInstructions_;
    return k;
  }

 private:
  [[noreturn]] void fail(uint32_t pc, const std::string& why) const {
    throw Error(ErrorKind::Decode, fmt::format("not lowerable to the machine: {}: {}", p_.describePc(pc), why));
  }

  uint32_t newSlot(const std::string& name, uint32_t bytes) {
    flat_.slotNames.push_back(name);
    flat_.slotBytes.push_back(static_cast<uint8_t>(std::min(bytes, 8u)));
    return flat_.numSlots++;
  }
  uint32_t zeroSlot() {
    if (zero_ == kNoSlot) {
      zero_ = newSlot("0", 8);
      flat_.constants.push_back({zero_, 0});
    }
    return zero_;
  }

  void emit(Instr in, std::string text, uint32_t pc) {
    if (code_.size() >= kMaxFlatInstructions)
      fail(pc, fmt::format("inlining the calls gives more than {} instructions (the machine holds 1023)",
                           kMaxFlatInstructions));
    const Instr& from = p_.code[pc];
    in.function = flatIndex_;
    in.ptxLine = from.ptxLine;
    in.ptxCol = from.ptxCol;
    in.srcFile = from.srcFile;
    in.srcLine = from.srcLine;
    setSpelling(in, text);  // opcode, types and modifiers of a made-up instruction (the lowering reads them)
    code_.push_back(in);
    text_.push_back(std::move(text));
    origin_.push_back(pc);
    instanceOf_.push_back(current_);
  }

  static bool isZeroConstant(const FunctionInfo& f, uint32_t slot) {
    for (const auto& [s, v] : f.constants)
      if (s == slot) return v == 0;
    return false;
  }

  /// A .param variable the function declares for one of its calls.
  void declareVar(uint32_t pc, ParamVars& vars, uint32_t offset, uint32_t size, const std::string& prefix) {
    auto it = vars.find(offset);
    if (it != vars.end()) {
      if (it->second.size != size) fail(pc, "call parameters overlap in the param area");
      return;
    }
    for (const auto& [o, v] : vars)
      if (o < offset + size && offset < o + v.size) fail(pc, "call parameters overlap in the param area");
    vars[offset] = {newSlot(fmt::format("{}%param@{}", prefix, offset), size), size, false, false,
                    fmt::format("param@{}", offset)};
  }

  /// Register slots and .param variables of `g` that a path from its entry may read before
  /// writing them (an unguarded write writes every lane; a guarded one may not). The oracle's
  /// fresh frame reads 0 there; the inlined copy would read what an earlier call, or a sibling
  /// instance sharing the machine register, left.
  std::pair<std::vector<uint32_t>, std::vector<uint32_t>> readBeforeWritten(const FunctionInfo& g,
                                                                           const ParamVars& vars) const {
    std::vector<uint32_t> offsets;  // keys numSlots + i
    for (const auto& [o, v] : vars)
      if (!v.formal) offsets.push_back(o);
    const uint32_t keys = g.numSlots + static_cast<uint32_t>(offsets.size());
    auto varKey = [&](int64_t offset) -> uint32_t {
      auto it = std::find(offsets.begin(), offsets.end(), static_cast<uint32_t>(offset));
      return offset < 0 || it == offsets.end() ? kNoSlot : g.numSlots + static_cast<uint32_t>(it - offsets.begin());
    };
    std::vector<bool> fixed(g.numSlots, false);  // constants and special registers are never written
    for (const auto& [s, v] : g.constants) fixed[s] = true;
    for (const auto& [s, r] : g.specials) fixed[s] = true;
    const uint32_t n = g.endPc - g.entryPc;
    std::vector<std::vector<uint32_t>> reads(n), writes(n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t pc = g.entryPc + i;
      const Instr& in = p_.code[pc];
      const Opcode op = in.opcode;
      auto read = [&](uint32_t k) {
        if (k != kNoSlot && (k >= g.numSlots || !fixed[k])) reads[i].push_back(k);
      };
      auto write = [&](uint32_t k) {
        if (k != kNoSlot && in.guard == kNoSlot) writes[i].push_back(k);
      };
      read(in.guard);
      if (in.flow == Flow::Call) {
        const CallSite& cs = p_.callSites[static_cast<size_t>(in.imm)];
        for (uint32_t o : cs.argOffsets) read(varKey(o));
        for (uint32_t o : cs.retOffsets) write(varKey(o));  // zeroed or stored by the callee
      } else if (in.flow == Flow::Return) {
        for (const auto& [o, v] : vars)
          if (v.isReturn) read(varKey(o));
      } else if (in.space == MemSpace::FrameParam && (op == Opcode::St || op == Opcode::Ld)) {
        if (op == Opcode::St) {
          read(in.s[0]);
          write(varKey(in.imm));
        } else {
          read(varKey(in.imm));
          write(in.d[0]);
        }
      } else {
        const bool carry = op == Opcode::Addc || op == Opcode::Subc || op == Opcode::Madc || in.mods.has(Mod::Cc);
        for (int k = 0; k < 5; ++k)
          if (!(carry && k == 3)) read(in.s[k]);
        if (carry && (op == Opcode::Addc || op == Opcode::Subc || op == Opcode::Madc)) read(in.s[3]);  // reads CC.CF
        for (uint32_t d : in.d) write(d);
        if (carry && in.mods.has(Mod::Cc)) write(in.s[3]);  // writes CC.CF
      }
    }
    // Forward: the keys that may still be unwritten before each instruction.
    std::vector<std::vector<bool>> unwritten(n);
    unwritten[0].assign(keys, true);
    std::vector<uint32_t> work{0};
    while (!work.empty()) {
      const uint32_t i = work.back();
      work.pop_back();
      std::vector<bool> out = unwritten[i];
      for (uint32_t k : writes[i]) out[k] = false;
      for (uint32_t j : successors(p_.code[g.entryPc + i], i, g.entryPc, n)) {
        bool changed = unwritten[j].empty();
        if (changed) unwritten[j] = out;
        for (uint32_t k = 0; k < keys && !changed; ++k) changed = out[k] && !unwritten[j][k];
        if (!changed) continue;
        for (uint32_t k = 0; k < keys; ++k) unwritten[j][k] = unwritten[j][k] || out[k];
        work.push_back(j);
      }
    }
    std::vector<bool> flagged(keys, false);
    for (uint32_t i = 0; i < n; ++i)
      if (!unwritten[i].empty())
        for (uint32_t k : reads[i]) flagged[k] = flagged[k] || unwritten[i][k];
    std::pair<std::vector<uint32_t>, std::vector<uint32_t>> result;
    for (uint32_t k = 0; k < keys; ++k) {
      if (!flagged[k]) continue;
      if (k < g.numSlots) result.first.push_back(k);
      else result.second.push_back(offsets[k - g.numSlots]);
    }
    return result;
  }

  void instance(uint32_t fn, ParamVars vars, uint32_t localBase, bool root, uint32_t callPc = 0,
                const std::vector<uint32_t>* preset = nullptr) {
    const FunctionInfo& f = p_.functions[fn];
    stack_.push_back(fn);
    const uint32_t caller = current_;
    if (flatten_ > 0) {
      // Code of a recursive function and what is inlined into it runs while any caller's
      // registers may be live: its instances belong to the entry's and share no register.
      if (f.localBytes > 0)
        fail(callPc, fmt::format("'{}' has .local variables and is called from a recursive function, which is not "
                                 "lowered (its frame would have to live on the call stack)", f.name));
      current_ = 0;
    } else {
      current_ = static_cast<uint32_t>(parent_.size());
      parent_.push_back(root ? 0 : caller);
    }
    const std::string prefix = root ? "" : fmt::format("{}#{}:", f.name, ++instances_);
    std::vector<uint32_t> slot(f.numSlots);
    if (preset) slot = *preset;
    else
      for (uint32_t s = 0; s < f.numSlots; ++s) slot[s] = newSlot(prefix + f.slotNames[s], f.slotBytes[s]);
    std::set<uint32_t> localBaseSlots;
    for (const auto& [s, v] : f.constants) flat_.constants.push_back({slot[s], v});
    for (const auto& [s, r] : f.specials) {
      flat_.specials.push_back({slot[s], r});
      if (r == SpecialReg::FrameLocalBase) localBaseSlots.insert(s);
    }
    if (root && f.carrySlot != kNoSlot) flat_.carrySlot = slot[f.carrySlot];
    maxLocal_ = std::max(maxLocal_, localBase + f.localBytes);
    for (uint32_t pc = f.entryPc; pc < f.endPc; ++pc) {
      const Instr& in = p_.code[pc];
      if (in.flow != Flow::Call) continue;
      const CallSite& cs = p_.callSites[static_cast<size_t>(in.imm)];
      for (size_t a = 0; a < cs.argOffsets.size(); ++a) declareVar(pc, vars, cs.argOffsets[a], cs.argSizes[a], prefix);
      for (size_t r = 0; r < cs.retOffsets.size(); ++r) declareVar(pc, vars, cs.retOffsets[r], cs.retSizes[r], prefix);
    }
    auto mapped = [&](uint32_t s) { return s == kNoSlot ? kNoSlot : slot[s]; };
    if (!root) {  // what the callee may read before writing starts at 0, as in a fresh frame
      auto [slots, offsets] = readBeforeWritten(f, vars);
      auto zero = [&](uint32_t s) {
        Instr m;
        m.typeBytes = flat_.slotBytes[s];
        m.d[0] = s;
        m.s[0] = zeroSlot();
        emit(m, fmt::format("mov.b{}", 8 * m.typeBytes), callPc);
      };
      for (uint32_t s : slots) zero(slot[s]);
      for (uint32_t o : offsets) zero(vars.at(o).slot);
    }

    const uint32_t n = f.endPc - f.entryPc;
    std::vector<uint32_t> start(n);
    std::vector<size_t> branches;  // copied branches: target and reconvergence still oracle pcs
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t pc = f.entryPc + i;
      const Instr& in = p_.code[pc];
      start[i] = static_cast<uint32_t>(code_.size());
      if (in.flow == Flow::Call) {
        call(pc, in, slot, vars, localBase + f.localBytes);
        continue;
      }
      if (in.flow == Flow::Return && !root) {
        if (in.guard == kNoSlot && i + 1 == n) continue;  // falls through to the continuation
        Instr b;
        b.flow = Flow::Branch;
        b.guard = mapped(in.guard);
        b.guardNegated = in.guardNegated;
        b.target = b.reconverge = kContinuation;
        emit(b, "bra", pc);
        continue;
      }
      if (in.space == MemSpace::FrameParam) {
        paramAccess(pc, in, f, slot, vars);
        continue;
      }
      Instr c = in;
      c.guard = mapped(in.guard);
      for (uint32_t& d : c.d) d = mapped(d);
      bool local = false;
      for (uint32_t& s : c.s) {
        local = local || (s != kNoSlot && localBaseSlots.count(s));
        s = mapped(s);
      }
      if (local) c.imm += localBase;  // [%frame_local + offset]: the frame's static base
      if (in.flow == Flow::Branch) branches.push_back(code_.size());
      emit(c, p_.opcodeText[pc], pc);
    }
    for (size_t k : branches) {
      Instr& b = code_[k];
      b.target = start[b.target - f.entryPc];
      b.reconverge = b.reconverge != kExitPc ? start[b.reconverge - f.entryPc] : root ? kExitPc : kContinuation;
    }
    stack_.pop_back();
    current_ = caller;
  }

  void call(uint32_t pc, const Instr& in, const std::vector<uint32_t>& slot, const ParamVars& vars,
            uint32_t localTop) {
    const CallSite& cs = p_.callSites[static_cast<size_t>(in.imm)];
    const FunctionInfo& g = p_.functions[cs.callee];
    if (recursive_.count(cs.callee)) return machineCall(pc, in, slot, vars);
    auto again = std::find(stack_.begin(), stack_.end(), cs.callee);
    if (again != stack_.end()) {
      std::string chain;
      for (auto it = again; it != stack_.end(); ++it) chain += p_.functions[*it].name + " -> ";
      fail(pc, fmt::format("recursive call to '{}' ({}{}) is not lowered (the machine has no call stack)",
                           g.name, chain, g.name));
    }
    if (counted_.insert(cs.callee).second) ptxInstructions_ += g.endPc - g.entryPc;
    const size_t first = code_.size();
    skipLanesThatDoNotCall(pc, in, slot);
    ParamVars callee;
    for (size_t a = 0; a < cs.argOffsets.size(); ++a) {
      const ParamVar& v = vars.at(cs.argOffsets[a]);
      callee[g.params[a].offset] = {v.slot, g.params[a].size, true, false, g.params[a].name};
    }
    for (size_t r = 0; r < cs.retOffsets.size(); ++r) {
      const ParamVar& v = vars.at(cs.retOffsets[r]);
      callee[g.returns[r].offset] = {v.slot, g.returns[r].size, false, true, g.returns[r].name};
    }
    instance(cs.callee, std::move(callee), alignUp(localTop, std::max(g.localAlign, 1u)), false, pc);
    const uint32_t continuation = static_cast<uint32_t>(code_.size());
    for (size_t k = first; k < code_.size(); ++k) {
      Instr& b = code_[k];
      if (b.flow != Flow::Branch) continue;
      if (b.target == kContinuation) b.target = continuation;
      if (b.reconverge == kContinuation) b.reconverge = continuation;
    }
  }

  /// Functions on a cycle of the call graph reachable from the entry: they are called with
  /// CALL, their code is emitted once after the entry's (emitBodies).
  void findRecursion(uint32_t entry) {
    std::map<uint32_t, std::set<uint32_t>> callees;
    std::vector<uint32_t> work{entry};
    while (!work.empty()) {
      const uint32_t fn = work.back();
      work.pop_back();
      if (callees.count(fn)) continue;
      std::set<uint32_t>& out = callees[fn];
      const FunctionInfo& f = p_.functions[fn];
      for (uint32_t pc = f.entryPc; pc < f.endPc; ++pc)
        if (p_.code[pc].flow == Flow::Call) out.insert(p_.callSites[static_cast<size_t>(p_.code[pc].imm)].callee);
      for (uint32_t g : out) work.push_back(g);
    }
    for (const auto& [fn, out] : callees) {  // fn is recursive if it reaches itself
      std::set<uint32_t> seen;
      std::vector<uint32_t> todo(out.begin(), out.end());
      while (!todo.empty()) {
        const uint32_t g = todo.back();
        todo.pop_back();
        if (g == fn) {
          recursive_.insert(fn);
          break;
        }
        if (!seen.insert(g).second) continue;
        for (uint32_t h : callees[g]) todo.push_back(h);
      }
    }
  }

  /// The one copy of recursive function `fn`: its register slots and param variables, made
  /// when the first call needs them; the code follows in emitBodies.
  Body& body(uint32_t fn, uint32_t pc) {
    auto it = bodies_.find(fn);
    if (it != bodies_.end()) return it->second;
    const FunctionInfo& g = p_.functions[fn];
    if (g.localBytes > 0)
      fail(pc, fmt::format("the recursive function '{}' has .local variables, which are not lowered (its frame "
                           "would have to live on the call stack)", g.name));
    Body b;
    const std::string prefix = g.name + ":";
    for (uint32_t s = 0; s < g.numSlots; ++s) b.slot.push_back(newSlot(prefix + g.slotNames[s], g.slotBytes[s]));
    for (const ParamSlot& ps : g.params) {
      if (ps.size > 8) fail(pc, fmt::format("the {}-byte parameter '{}' of a recursive function is not lowered", ps.size, ps.name));
      b.vars[ps.offset] = {newSlot(prefix + ps.name, ps.size), ps.size, true, false, ps.name};
    }
    for (const ParamSlot& ps : g.returns) {
      if (ps.size > 8) fail(pc, fmt::format("the {}-byte return value '{}' of a recursive function is not lowered", ps.size, ps.name));
      b.vars[ps.offset] = {newSlot(prefix + ps.name, ps.size), ps.size, false, true, ps.name};
    }
    if (counted_.insert(fn).second) ptxInstructions_ += g.endPc - g.entryPc;
    bodyQueue_.push_back(fn);
    return bodies_.emplace(fn, std::move(b)).first->second;
  }

  void copy(uint32_t d, uint32_t s, uint32_t bytes, uint32_t pc) {
    Instr m;
    m.typeBytes = static_cast<uint8_t>(bytes);
    m.d[0] = d;
    m.s[0] = s;
    emit(m, fmt::format("mov.b{}", 8 * bytes), pc);
  }

  /// A call of a recursive function: its parameters go into the callee's parameter slots, a
  /// CALL runs the callee's one copy, its return values come back from the callee's slots.
  /// A guarded call: the lanes that do not call branch to the continuation and wait there.
  void skipLanesThatDoNotCall(uint32_t pc, const Instr& in, const std::vector<uint32_t>& slot) {
    if (in.guard == kNoSlot) return;
    Instr br;
    br.flow = Flow::Branch;
    br.guard = slot[in.guard];
    br.guardNegated = !in.guardNegated;
    br.target = br.reconverge = kContinuation;
    emit(br, "bra", pc);
  }

  /// The registers live across the call that the callee's code may write are saved to the
  /// call stack before and restored after (expandSaves fills the two placeholders).
  void machineCall(uint32_t pc, const Instr& in, const std::vector<uint32_t>& slot, const ParamVars& vars) {
    const CallSite& cs = p_.callSites[static_cast<size_t>(in.imm)];
    const FunctionInfo& g = p_.functions[cs.callee];
    Body& b = body(cs.callee, pc);
    const size_t first = code_.size();
    skipLanesThatDoNotCall(pc, in, slot);
    Site site;
    site.save = code_.size();
    emit(Instr{}, "call.save", pc);
    for (size_t a = 0; a < cs.argOffsets.size(); ++a) {
      const ParamVar& v = vars.at(cs.argOffsets[a]);
      copy(b.vars.at(g.params[a].offset).slot, v.slot, std::min(v.size, g.params[a].size), pc);
    }
    Instr c;
    c.flow = Flow::Call;
    c.mode = kMachineCall;
    c.target = cs.callee;  // the callee's entry and END marker: set in emitBodies
    c.s[0] = sp_;
    c.s[1] = limit_;
    site.call = code_.size();
    emit(c, "call", pc);
    for (size_t r = 0; r < cs.retOffsets.size(); ++r) {
      const ParamVar& v = vars.at(cs.retOffsets[r]);
      copy(v.slot, b.vars.at(g.returns[r].offset).slot, std::min(v.size, g.returns[r].size), pc);
      site.returned.insert(v.slot);
    }
    site.restore = code_.size();
    emit(Instr{}, "call.restore", pc);
    sites_.push_back(std::move(site));
    const uint32_t continuation = static_cast<uint32_t>(code_.size());
    for (size_t k = first; k < code_.size(); ++k)
      if (code_[k].flow == Flow::Branch && code_[k].target == kContinuation)
        code_[k].target = code_[k].reconverge = continuation;
  }

  /// The code of each recursive function, once, after the entry's: its fresh-frame zeroing,
  /// its body (returns branch to END, exit-joining branches reconverge there), then the END
  /// marker. Non-recursive calls in it are inlined as usual.
  void emitBodies() {
    for (size_t q = 0; q < bodyQueue_.size(); ++q) {
      const uint32_t fn = bodyQueue_[q];
      const FunctionInfo& f = p_.functions[fn];
      Body& b = bodies_.at(fn);
      b.entry = static_cast<uint32_t>(code_.size());
      ++flatten_;
      const std::vector<uint32_t> slots = b.slot;
      instance(fn, b.vars, 0, false, f.entryPc, &slots);
      --flatten_;
      Body& done = bodies_.at(fn);  // bodies_ is a map: references stay valid
      done.end = static_cast<uint32_t>(code_.size());
      for (size_t k = done.entry; k < code_.size(); ++k) {
        Instr& br = code_[k];
        if (br.flow != Flow::Branch) continue;
        if (br.target == kContinuation) br.target = done.end;
        if (br.reconverge == kContinuation) br.reconverge = done.end;
      }
      Instr end;
      end.flow = Flow::Call;
      end.mode = kCallEnd;
      emit(end, "call.end", f.endPc - 1);
    }
    for (const Site& site : sites_) {
      Instr& c = code_[site.call];
      const Body& b = bodies_.at(c.target);
      c.target = b.entry;
      c.reconverge = b.end;
    }
  }

  /// Fills each call's save and restore placeholders. Saved: the registers live after the
  /// call (backward liveness over the flat code, where a CALL leads to the callee's entry and
  /// an END marker to the instruction after each CALL of its function; below) that the code
  /// of a recursive function may touch, except the call's return values. Save: ST.local of each at [sp + offset], then sp += frame; restore: sp -= frame,
  /// LD.local of each. A call without saved registers leaves sp alone.
  void expandSaves() {
    const size_t n = code_.size();
    const uint32_t slots = flat_.numSlots;
    const size_t words = (slots + 63) / 64;
    std::vector<bool> fixed(slots, false), touched(slots, false);
    for (const auto& [sl, v] : flat_.constants) fixed[sl] = true;
    for (const auto& [sl, r] : flat_.specials) fixed[sl] = true;
    std::vector<std::vector<uint32_t>> uses(n), defs(n), succ(n);
    const std::vector<std::vector<uint32_t>> returnsTo = returnPoints(code_, 0);
    size_t bodiesStart = n;
    for (const auto& [fn, b] : bodies_) bodiesStart = std::min<size_t>(bodiesStart, b.entry);
    for (size_t i = 0; i < n; ++i) {
      const Instr& in = code_[i];
      for (uint32_t x : in.s)
        if (x != kNoSlot && !fixed[x]) uses[i].push_back(x);
      if (in.guard != kNoSlot) uses[i].push_back(in.guard);
      for (uint32_t x : in.d)
        if (x != kNoSlot && in.guard == kNoSlot) defs[i].push_back(x);
      if (i >= bodiesStart) {
        if (in.guard != kNoSlot) touched[in.guard] = true;
        for (uint32_t x : in.s)
          if (x != kNoSlot) touched[x] = true;
        for (uint32_t x : in.d)
          if (x != kNoSlot) touched[x] = true;
      }
      succ[i] = successors(in, static_cast<uint32_t>(i), 0, static_cast<uint32_t>(n), returnsTo[i]);
    }
    // Across a call, a register is either untouched by the recursive code or saved before
    // the call (the save reads it) and restored after. So a CALL's live-in is the callee
    // entry's plus what is live at the restore point and untouched (minus the call's return
    // values); each save reads its saved set. The callee's own effects (its return values,
    // what it writes on every path) reach the instruction after the CALL through its code
    // and END. The saved sets depend on liveness and liveness on them: iterate (they grow).
    touched[sp_] = false;
    std::map<size_t, const Site*> siteOf;
    for (const Site& site : sites_) siteOf[site.call] = &site;
    std::map<size_t, std::vector<uint32_t>> savedAt;  // save placeholder -> saved slots
    auto savedSet = [&](const Site& site, const std::vector<std::vector<uint64_t>>& live) {
      std::vector<uint32_t> saved;
      for (uint32_t x = 0; x < slots; ++x)
        if ((live[site.restore][x / 64] >> (x % 64) & 1) && touched[x] && !fixed[x] && !site.returned.count(x))
          saved.push_back(x);
      return saved;
    };
    std::vector<std::vector<uint64_t>> live;
    for (bool grew = true; grew;) {
      live.assign(n, std::vector<uint64_t>(words, 0));
      for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = n; i-- > 0;) {
          std::vector<uint64_t> in(words, 0);
          auto call = siteOf.find(i);
          if (call != siteOf.end()) {
            const Site& site = *call->second;
            in = live[site.restore];
            for (uint32_t x : site.returned) in[x / 64] &= ~(uint64_t{1} << (x % 64));
            for (uint32_t x = 0; x < slots; ++x)
              if (touched[x]) in[x / 64] &= ~(uint64_t{1} << (x % 64));
            for (size_t w = 0; w < words; ++w) in[w] |= live[code_[i].target][w];
          } else {
            for (uint32_t j : succ[i])
              for (size_t w = 0; w < words; ++w) in[w] |= live[j][w];
          }
          for (uint32_t x : defs[i]) in[x / 64] &= ~(uint64_t{1} << (x % 64));
          for (uint32_t x : uses[i]) in[x / 64] |= uint64_t{1} << (x % 64);
          if (auto sv = savedAt.find(i); sv != savedAt.end())
            for (uint32_t x : sv->second) in[x / 64] |= uint64_t{1} << (x % 64);
          if (in != live[i]) {
            live[i] = std::move(in);
            changed = true;
          }
        }
      }
      grew = false;
      for (const Site& site : sites_) {
        std::vector<uint32_t> saved = savedSet(site, live);
        if (saved != savedAt[site.save]) {
          savedAt[site.save] = std::move(saved);
          grew = true;
        }
      }
    }
    std::map<size_t, std::vector<std::pair<Instr, std::string>>> expansion;
    for (const Site& site : sites_) {
      std::vector<uint32_t> saved = savedAt[site.save];
      if (saved.empty()) continue;
      std::stable_sort(saved.begin(), saved.end(),
                       [&](uint32_t a, uint32_t b) { return flat_.slotBytes[a] > flat_.slotBytes[b]; });
      std::vector<std::pair<uint32_t, uint32_t>> at;  // slot, offset in the frame
      uint32_t frame = 0;
      for (uint32_t x : saved) {
        const uint32_t bytes = std::max<uint32_t>(flat_.slotBytes[x], 1);
        frame = alignUp(frame, bytes);
        at.push_back({x, frame});
        frame += bytes;
      }
      frame = alignUp(frame, 8);
      maxFrame_ = std::max(maxFrame_, frame);
      const uint32_t frameSlot = newSlot(fmt::format("%sp.frame{}", frame), 4);
      flat_.constants.push_back({frameSlot, frame});
      auto& save = expansion[site.save];
      auto& restore = expansion[site.restore];
      for (auto [x, off] : at) {
        Instr st;
        st.space = MemSpace::Local;
        st.typeBytes = flat_.slotBytes[x];
        st.count = 1;
        st.s[0] = x;
        st.s[4] = sp_;
        st.imm = off;
        save.push_back({st, fmt::format("st.local.b{}", 8 * st.typeBytes)});
      }
      Instr add;
      add.typeBytes = 4;
      add.d[0] = add.s[0] = sp_;
      add.s[1] = frameSlot;
      save.push_back({add, "add.u32"});
      Instr sub = add;
      restore.push_back({sub, "sub.u32"});
      for (auto [x, off] : at) {
        Instr ld;
        ld.space = MemSpace::Local;
        ld.typeBytes = ld.dstBytes = flat_.slotBytes[x];
        ld.count = 1;
        ld.d[0] = x;
        ld.s[0] = sp_;
        ld.imm = off;
        restore.push_back({ld, fmt::format("ld.local.b{}", 8 * ld.typeBytes)});
      }
    }
    // Rebuild the code without the placeholders; pcs move.
    std::vector<uint32_t> moved(n + 1);
    std::vector<Instr> code;
    std::vector<std::string> text;
    std::vector<uint32_t> origin, instanceOf;
    std::set<size_t> placeholders;
    for (const Site& site : sites_) placeholders.insert({site.save, site.restore});
    for (size_t i = 0; i < n; ++i) {
      moved[i] = static_cast<uint32_t>(code.size());
      if (placeholders.count(i)) {
        auto it = expansion.find(i);
        if (it == expansion.end()) continue;
        for (auto& [in, t] : it->second) {
          in.function = flatIndex_;
          const Instr& from = p_.code[origin_[i]];
          in.ptxLine = from.ptxLine;
          in.ptxCol = from.ptxCol;
          in.srcFile = from.srcFile;
          in.srcLine = from.srcLine;
          setSpelling(in, t);
          code.push_back(in);
          text.push_back(t);
          origin.push_back(origin_[i]);
          instanceOf.push_back(instanceOf_[i]);
        }
        continue;
      }
      code.push_back(code_[i]);
      text.push_back(text_[i]);
      origin.push_back(origin_[i]);
      instanceOf.push_back(instanceOf_[i]);
    }
    moved[n] = static_cast<uint32_t>(code.size());
    for (Instr& in : code) {
      if (in.flow != Flow::Branch && !(in.flow == Flow::Call && in.mode == kMachineCall)) continue;
      in.target = moved[in.target];
      if (in.reconverge != kExitPc) in.reconverge = moved[in.reconverge];
    }
    if (code.size() > kMaxFlatInstructions)
      fail(origin_.back(), fmt::format("inlining the calls gives more than {} instructions (the machine holds 1023)",
                                       kMaxFlatInstructions));
    code_ = std::move(code);
    text_ = std::move(text);
    origin_ = std::move(origin);
    instanceOf_ = std::move(instanceOf);
  }

  /// ld.param / st.param of a call parameter: a mov (or sign-extending cvt) on its slot.
  void paramAccess(uint32_t pc, const Instr& in, const FunctionInfo& f, const std::vector<uint32_t>& slot,
                   const ParamVars& vars) {
    const bool store = in.opcode == Opcode::St;
    if (!store && in.opcode != Opcode::Ld) fail(pc, fmt::format("'{}' on a call parameter is not lowered", p_.opcodeText[pc]));
    if (in.count != 1) fail(pc, "vector accesses to call parameters are not lowered");
    if (!isZeroConstant(f, in.s[store ? 4 : 0]))
      fail(pc, "call parameters addressed through a register are not lowered");
    auto it = in.imm >= 0 ? vars.find(static_cast<uint32_t>(in.imm)) : vars.end();
    if (it == vars.end())
      fail(pc, fmt::format("byte {} of the param area is not the start of a call parameter (parts of a "
                           "parameter are not lowered)", in.imm));
    const ParamVar& v = it->second;
    if (in.typeBytes > v.size || in.typeBytes > 8)
      fail(pc, fmt::format("a {}-byte access to the {}-byte call parameter '{}' is not lowered", in.typeBytes,
                           v.size, v.name));
    Instr m;
    m.guard = in.guard == kNoSlot ? kNoSlot : slot[in.guard];
    m.guardNegated = in.guardNegated;
    m.typeBytes = in.typeBytes;
    if (store) {
      if (v.formal) fail(pc, fmt::format("stores to the function's own parameter '{}' are not lowered", v.name));
      auto [w, added] = storeWidth_.emplace(v.slot, in.typeBytes);
      if (w->second != in.typeBytes)
        fail(pc, fmt::format("stores of different widths to the call parameter '{}' are not lowered", v.name));
      m.d[0] = v.slot;
      m.s[0] = slot[in.s[0]];
      return emit(m, fmt::format("mov.b{}", 8 * in.typeBytes), pc);
    }
    if (in.d[0] == kNoSlot) return;
    m.d[0] = slot[in.d[0]];
    m.s[0] = v.slot;
    m.dstBytes = in.dstBytes;
    if (in.sat && in.dstBytes > in.typeBytes) {  // ld.param.sN: sign-extend to the register
      m.mode = static_cast<uint8_t>(signedType(in.dstBytes));
      m.count = static_cast<uint8_t>(signedType(in.typeBytes));
      m.typeBytes = in.dstBytes;
      return emit(m, fmt::format("cvt.s{}.s{}", 8 * in.dstBytes, 8 * in.typeBytes), pc);
    }
    emit(m, fmt::format("mov.b{}", 8 * in.typeBytes), pc);
  }

  const Program& p_;
  const uint32_t flatIndex_;
  FunctionInfo flat_;
  std::vector<Instr> code_;
  std::vector<std::string> text_;
  std::vector<uint32_t> origin_, instanceOf_, parent_;
  std::vector<uint32_t> stack_;  // functions being inlined, outermost first
  std::set<uint32_t> counted_;
  std::map<uint32_t, uint32_t> storeWidth_;  // param slot -> width of its stores
  uint32_t ptxInstructions_ = 0, current_ = 0, maxLocal_ = 0, zero_ = kNoSlot;
  std::set<uint32_t> recursive_;  // functions called with CALL
  std::map<uint32_t, Body> bodies_;
  std::vector<uint32_t> bodyQueue_;
  std::vector<Site> sites_;
  uint32_t sp_ = kNoSlot, spBase_ = kNoSlot, limit_ = kNoSlot, maxFrame_ = 0, instances_ = 0, flatten_ = 0;
};

}  // namespace

RegisterSharing::RegisterSharing(const InlinedKernel& k, const Dataflow& df)
    : parent_(k.parent), owner_(k.program.functions[k.function].numSlots, kNoSlot) {
  const FunctionInfo& f = k.program.functions[k.function];
  for (uint32_t i = 0; i < f.endPc - f.entryPc; ++i) {
    if (df.dropped[i]) continue;
    const Instr& in = k.program.code[f.entryPc + i];
    auto own = [&](uint32_t slot) {
      if (slot == kNoSlot) return;
      slot = df.resolve(slot);
      owner_[slot] = owner_[slot] == kNoSlot ? k.instance[i] : common(owner_[slot], k.instance[i]);
    };
    for (uint32_t d : in.d) own(d);
    for (uint32_t s : in.s) own(s);
    own(in.guard);
  }
}

uint32_t RegisterSharing::depth(uint32_t i) const {
  uint32_t d = 0;
  for (; i != 0; i = parent_[i]) ++d;
  return d;
}

uint32_t RegisterSharing::common(uint32_t a, uint32_t b) const {
  uint32_t da = depth(a), db = depth(b);
  for (; da > db; --da) a = parent_[a];
  for (; db > da; --db) b = parent_[b];
  while (a != b) {
    a = parent_[a];
    b = parent_[b];
  }
  return a;
}

bool hasCalls(const Program& program, uint32_t entry) {
  const FunctionInfo& f = program.functions[entry];
  for (uint32_t pc = f.entryPc; pc < f.endPc; ++pc)
    if (program.code[pc].flow == Flow::Call) return true;
  return false;
}

InlinedKernel inlineCalls(const Program& program, uint32_t entry) { return Inliner(program).run(entry); }

}  // namespace qgpu::machine
