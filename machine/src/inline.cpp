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
#include "inline.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/interp/types.h"

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

std::string mnemonicOf(const std::string& text) { return text.substr(0, text.find('.')); }

class Inliner {
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
    instance(entry, ParamVars{}, 0, true);

    InlinedKernel k;
    k.program = p_;
    const uint32_t base = static_cast<uint32_t>(k.program.code.size());
    for (Instr in : code_) {
      if (in.flow == Flow::Branch) {
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
      const std::string& text = p_.opcodeText[pc];
      const std::string mn = mnemonicOf(text);
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
      } else if (in.space == MemSpace::FrameParam && (mn == "st" || mn == "ld")) {
        if (mn == "st") {
          read(in.s[0]);
          write(varKey(in.imm));
        } else {
          read(varKey(in.imm));
          write(in.d[0]);
        }
      } else {
        const bool carry = mn == "addc" || mn == "subc" || mn == "madc" || text.find(".cc") != std::string::npos;
        for (int k = 0; k < 5; ++k)
          if (!(carry && k == 3)) read(in.s[k]);
        if (carry && (mn == "addc" || mn == "subc" || mn == "madc")) read(in.s[3]);  // reads CC.CF
        for (uint32_t d : in.d) write(d);
        if (carry && text.find(".cc") != std::string::npos) write(in.s[3]);  // writes CC.CF
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
      const Instr& in = p_.code[g.entryPc + i];
      const bool guarded = in.guard != kNoSlot;
      std::vector<uint32_t> next;
      switch (in.flow) {
        case Flow::Branch:
          next.push_back(in.target - g.entryPc);
          if (guarded) next.push_back(i + 1);
          break;
        case Flow::Return: case Flow::Exit: case Flow::Trap:
          if (guarded) next.push_back(i + 1);
          break;
        default:
          next.push_back(i + 1);
      }
      for (uint32_t j : next) {
        if (j >= n) continue;
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

  void instance(uint32_t fn, ParamVars vars, uint32_t localBase, bool root, uint32_t callPc = 0) {
    const FunctionInfo& f = p_.functions[fn];
    stack_.push_back(fn);
    const uint32_t caller = current_;
    current_ = static_cast<uint32_t>(parent_.size());
    parent_.push_back(root ? 0 : caller);
    const std::string prefix = root ? "" : fmt::format("{}#{}:", f.name, current_);
    std::vector<uint32_t> slot(f.numSlots);
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
    auto again = std::find(stack_.begin(), stack_.end(), cs.callee);
    if (again != stack_.end()) {
      std::string chain;
      for (auto it = again; it != stack_.end(); ++it) chain += p_.functions[*it].name + " -> ";
      fail(pc, fmt::format("recursive call to '{}' ({}{}) is not lowered (the machine has no call stack)",
                           g.name, chain, g.name));
    }
    if (counted_.insert(cs.callee).second) ptxInstructions_ += g.endPc - g.entryPc;
    const size_t first = code_.size();
    if (in.guard != kNoSlot) {  // lanes that do not call wait at the continuation
      Instr b;
      b.flow = Flow::Branch;
      b.guard = slot[in.guard];
      b.guardNegated = !in.guardNegated;
      b.target = b.reconverge = kContinuation;
      emit(b, "bra", pc);
    }
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

  /// ld.param / st.param of a call parameter: a mov (or sign-extending cvt) on its slot.
  void paramAccess(uint32_t pc, const Instr& in, const FunctionInfo& f, const std::vector<uint32_t>& slot,
                   const ParamVars& vars) {
    const std::string mn = mnemonicOf(p_.opcodeText[pc]);
    const bool store = mn == "st";
    if (!store && mn != "ld") fail(pc, fmt::format("'{}' on a call parameter is not lowered", p_.opcodeText[pc]));
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
