// PTX spellings lowered to core forms on the syntax tree (see desugar.h).
#include "desugar.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "qgpu/interp/error.h"

namespace qgpu {
namespace {

using ptx::Function;
using ptx::Instruction;
using ptx::Module;
using ptx::Operand;
using ptx::Statement;
using ptx::VariableDecl;

struct RegInfo {
  std::string type;
  uint32_t width = 1;  // > 1: a vector register
};

struct Range {
  std::string prefix;
  uint32_t count = 0;
  RegInfo info;
};

struct Scope {
  std::map<std::string, RegInfo> regs;
  std::vector<Range> ranges;
  std::set<std::string> params;  // .param variables (call arguments)
};

constexpr const char* kElements[] = {"x", "y", "z", "w"};

int elementIndex(const std::string& suffix) {
  if (suffix == "x" || suffix == "r") return 0;
  if (suffix == "y" || suffix == "g") return 1;
  if (suffix == "z" || suffix == "b") return 2;
  if (suffix == "w" || suffix == "a") return 3;
  return -1;
}

// The integer add that computes reg+offset for a register of `type` ("" if none).
std::string addTypeFor(const std::string& type) {
  if (type == "b16" || type == "u16" || type == "s16") return "s16";
  if (type == "b32" || type == "u32" || type == "s32") return "s32";
  if (type == "b64" || type == "u64" || type == "s64") return "s64";
  return "";
}

Operand regOperand(const std::string& name, ptx::SourceLoc loc) {
  Operand op;
  op.kind = Operand::Kind::Register;
  op.name = name;
  op.loc = loc;
  return op;
}
Operand immOperand(int64_t v, ptx::SourceLoc loc) {
  Operand op;
  op.kind = Operand::Kind::Immediate;
  op.value = v;
  op.loc = loc;
  return op;
}
Operand symOperand(const std::string& name, ptx::SourceLoc loc) {
  Operand op;
  op.kind = Operand::Kind::Symbol;
  op.name = name;
  op.loc = loc;
  return op;
}
Operand addrOperand(const std::string& name, ptx::SourceLoc loc) {
  Operand op;
  op.kind = Operand::Kind::Address;
  op.name = name;
  op.loc = loc;
  return op;
}

class Desugarer {
 public:
  explicit Desugarer(Module& m) : m_(m) {}

  void run() {
    for (const Function& f : m_.functions) {
      auto& sig = signatures_[f.name];
      if (sig.params.empty() && sig.returns.empty()) {
        sig.params = f.params;
        sig.returns = f.returns;
      }
    }
    for (Function& f : m_.functions) rewriteFunction(f);
  }

 private:
  struct Signature {
    std::vector<VariableDecl> params, returns;
  };

  [[noreturn]] void failAt(ptx::SourceLoc loc, const std::string& what) const {
    throw Error(ErrorKind::Decode, fmt::format("{}:{}:{}: {}", m_.fileName, loc.line, loc.col, what));
  }

  // --- names ---------------------------------------------------------------
  std::optional<RegInfo> findReg(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (auto r = it->regs.find(name); r != it->regs.end()) return r->second;
      for (const Range& range : it->ranges) {
        if (name.size() <= range.prefix.size() || name.compare(0, range.prefix.size(), range.prefix) != 0)
          continue;
        const std::string rest = name.substr(range.prefix.size());
        if (rest.find_first_not_of("0123456789") != std::string::npos) continue;
        if (rest.size() > 1 && rest[0] == '0') continue;
        if (rest.size() > 9 || std::stoul(rest) >= range.count) continue;
        return range.info;
      }
    }
    return std::nullopt;
  }
  bool isParamVariable(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (it->params.count(name)) return true;
    return false;
  }
  // "v.y" / "v.g" of a declared vector register: the canonical "v.y".
  std::optional<std::string> vectorElement(const std::string& name) const {
    size_t dot = name.rfind('.');
    if (dot == std::string::npos || dot == 0) return std::nullopt;
    int idx = elementIndex(name.substr(dot + 1));
    if (idx < 0) return std::nullopt;
    auto base = findReg(name.substr(0, dot));
    if (!base || base->width <= 1) return std::nullopt;
    return name.substr(0, dot) + "." + kElements[idx];
  }
  // The register's own information: a scalar register or one vector element.
  std::optional<RegInfo> scalarReg(const std::string& name) const {
    if (auto e = vectorElement(name)) {
      RegInfo r = *findReg(name.substr(0, name.rfind('.')));
      r.width = 1;
      return r;
    }
    auto r = findReg(name);
    if (r && r->width == 1) return r;
    return std::nullopt;
  }

  std::string newTemp(const std::string& type) {
    std::string name = fmt::format("__qgpu_t{}", counter_++);
    Statement s;
    s.kind = Statement::Kind::Registers;
    s.registers.type = type;
    s.registers.name = name;
    hiddenDecls_.push_back(std::move(s));
    scopes_.front().regs[name] = {type, 1};
    return name;
  }
  std::string newParam(const std::string& type, ptx::SourceLoc loc, std::vector<Statement>& pre) {
    std::string name = fmt::format("__qgpu_a{}", counter_++);
    Statement s;
    s.kind = Statement::Kind::Variable;
    s.loc = loc;
    s.variable.space = ptx::StateSpace::Param;
    s.variable.type = type;
    s.variable.name = name;
    s.variable.loc = loc;
    pre.push_back(std::move(s));
    scopes_.back().params.insert(name);
    return name;
  }

  // An instruction that stands in for part of `origin` (same place, text and guard).
  static Statement derived(const Statement* origin, ptx::SourceLoc loc, std::string opcode,
                           std::vector<std::string> mods, std::vector<Operand> ops) {
    Statement s;
    s.kind = Statement::Kind::Instruction;
    s.loc = loc;
    Instruction& in = s.instruction;
    in.opcode = std::move(opcode);
    in.modifiers = std::move(mods);
    in.operands = std::move(ops);
    in.loc = loc;
    if (origin) {
      in.guard = origin->instruction.guard;
      in.guardNegated = origin->instruction.guardNegated;
      in.text = origin->instruction.text;
    } else {
      in.text = in.opcode;
      for (const auto& m : in.modifiers) in.text += "." + m;
    }
    return s;
  }

  // --- declarations --------------------------------------------------------
  void declareRegisters(const Statement& s, std::vector<Statement>& out) {
    const ptx::RegisterDecl& r = s.registers;
    RegInfo info{r.type, r.vectorWidth};
    if (r.count == 0)
      scopes_.back().regs[r.name] = info;
    else
      scopes_.back().ranges.push_back({r.name, r.count, info});
    if (r.vectorWidth == 1) {
      out.push_back(s);
      return;
    }
    if (r.vectorWidth > 4) failAt(r.loc, fmt::format("vector registers have at most 4 elements (.v{})", r.vectorWidth));
    // All four element names exist: ptxas accepts v.z and v.w of a .v2 register too (as
    // registers outside the vector; what a GPU does with them is not verified).
    auto emit = [&](const std::string& base) {
      for (uint32_t e = 0; e < 4; ++e) {
        Statement el = s;
        el.registers.name = base + "." + kElements[e];
        el.registers.count = 0;
        el.registers.vectorWidth = 1;
        out.push_back(std::move(el));
      }
    };
    if (r.count == 0) {
      emit(r.name);
    } else {
      for (uint32_t i = 0; i < r.count; ++i) emit(r.name + std::to_string(i));
    }
  }

  // --- operands ------------------------------------------------------------
  void fixOperand(Operand& op, const Statement& origin, std::vector<Statement>& pre) {
    using K = Operand::Kind;
    switch (op.kind) {
      case K::Vector:
        for (Operand& e : op.elements) fixOperand(e, origin, pre);
        return;
      case K::Address:
        if (!op.name.empty())
          if (auto e = vectorElement(op.name)) op.name = *e;
        return;
      case K::Register:
      case K::Symbol: {
        if (auto e = vectorElement(op.name)) op.name = *e;
        if (!op.pairName.empty())
          if (auto e = vectorElement(op.pairName)) op.pairName = *e;
        if (!op.hasOffset) {
          auto whole = findReg(op.name);
          if (whole && whole->width > 1 && op.pairName.empty() && !op.negated) {
            Operand list;
            list.kind = K::Vector;
            list.loc = op.loc;
            for (uint32_t i = 0; i < whole->width; ++i)
              list.elements.push_back(regOperand(op.name + "." + kElements[i], op.loc));
            op = std::move(list);
          }
          return;
        }
        auto reg = scalarReg(op.name);
        if (op.kind != K::Symbol || !reg) return;  // sym+off of a variable: an address
        const std::string addType = addTypeFor(reg->type);
        if (addType.empty()) return;  // the decoder names the bad operand
        Operand base = regOperand(op.name, op.loc);
        if (op.value == 0) {
          op = base;
          return;
        }
        std::string tmp = newTemp(reg->type);
        pre.push_back(derived(&origin, origin.instruction.loc, "add", {addType},
                              {regOperand(tmp, op.loc), base, immOperand(op.value, op.loc)}));
        op = regOperand(tmp, op.loc);
        return;
      }
      default:
        return;
    }
  }

  // A value passed to a .param slot of `type` (st.param; predicates travel as u32).
  void storeParam(const Statement* origin, ptx::SourceLoc loc, const std::string& param,
                  const std::string& type, const Operand& value, std::vector<Statement>& out) {
    if (type == "pred") {
      std::string tmp = newTemp("u32");
      out.push_back(derived(origin, loc, "selp", {"u32"},
                            {regOperand(tmp, loc), immOperand(1, loc), immOperand(0, loc), value}));
      out.push_back(derived(origin, loc, "st", {"param", "u32"}, {addrOperand(param, loc), regOperand(tmp, loc)}));
      return;
    }
    out.push_back(derived(origin, loc, "st", {"param", type}, {addrOperand(param, loc), value}));
  }
  void loadParam(const Statement* origin, ptx::SourceLoc loc, const std::string& param,
                 const std::string& type, const Operand& dst, std::vector<Statement>& out) {
    if (type == "pred") {
      std::string tmp = newTemp("u32");
      out.push_back(derived(origin, loc, "ld", {"param", "u32"}, {regOperand(tmp, loc), addrOperand(param, loc)}));
      out.push_back(derived(origin, loc, "setp", {"ne", "u32"}, {dst, regOperand(tmp, loc), immOperand(0, loc)}));
      return;
    }
    out.push_back(derived(origin, loc, "ld", {"param", type}, {dst, addrOperand(param, loc)}));
  }

  // call (r...), f, (a...): register/immediate arguments and register results go
  // through hidden .param variables.
  void rewriteCall(Statement& s, std::vector<Statement>& pre, std::vector<Statement>& post) {
    auto& ops = s.instruction.operands;
    if (ops.empty()) return;
    size_t calleeAt = ops[0].kind == Operand::Kind::Vector ? 1 : 0;
    if (calleeAt >= ops.size() || ops[calleeAt].kind != Operand::Kind::Symbol) return;
    auto sig = signatures_.find(ops[calleeAt].name);
    if (sig == signatures_.end()) return;
    const ptx::SourceLoc loc = s.instruction.loc;
    auto scalarSlot = [](const VariableDecl& p) { return !p.isArray && p.vectorWidth == 1; };
    if (calleeAt + 1 < ops.size() && ops[calleeAt + 1].kind == Operand::Kind::Vector) {
      auto& args = ops[calleeAt + 1].elements;
      for (size_t i = 0; i < args.size() && i < sig->second.params.size(); ++i) {
        Operand& a = args[i];
        const VariableDecl& p = sig->second.params[i];
        if (a.kind == Operand::Kind::Symbol && !a.hasOffset && isParamVariable(a.name)) continue;
        if ((a.kind == Operand::Kind::Symbol || a.kind == Operand::Kind::Register) && vectorElement(a.name))
          failAt(a.loc, fmt::format("a vector register element ('{}') cannot be a call argument", a.name));
        if (a.kind == Operand::Kind::Vector || a.kind == Operand::Kind::Address || !scalarSlot(p)) continue;
        const std::string type = p.type == "pred" ? "u32" : p.type;
        std::string param = newParam(type, loc, pre);
        storeParam(&s, loc, param, p.type, a, pre);
        a = symOperand(param, a.loc);
      }
    }
    if (calleeAt == 1) {
      auto& rets = ops[0].elements;
      for (size_t i = 0; i < rets.size() && i < sig->second.returns.size(); ++i) {
        Operand& r = rets[i];
        const VariableDecl& p = sig->second.returns[i];
        if (r.kind != Operand::Kind::Register && r.kind != Operand::Kind::Symbol) continue;
        if (r.kind == Operand::Kind::Symbol && isParamVariable(r.name)) continue;
        if (!scalarReg(r.name) && r.name[0] != '%') continue;
        if (!scalarSlot(p)) continue;
        const std::string type = p.type == "pred" ? "u32" : p.type;
        std::string param = newParam(type, loc, pre);
        loadParam(&s, loc, param, p.type, regOperand(r.name, r.loc), post);
        r = symOperand(param, r.loc);
      }
    }
  }

  // --- functions -----------------------------------------------------------
  void rewriteFunction(Function& f) {
    scopes_.assign(1, {});
    hiddenDecls_.clear();
    std::vector<Statement> prologueDecls, prologue;
    struct RegReturn {
      std::string reg, param, type;
    };
    std::vector<RegReturn> regReturns;
    bool regSignature = false;
    auto lowerList = [&](std::vector<VariableDecl>& list, bool isReturn) {
      for (size_t i = 0; i < list.size(); ++i) {
        VariableDecl& p = list[i];
        if (p.space != ptx::StateSpace::Reg) {
          scopes_.front().params.insert(p.name);
          continue;
        }
        if (f.isEntry) failAt(p.loc, fmt::format("kernel parameter '{}' must be .param, not .reg", p.name));
        if (p.isArray || p.vectorWidth != 1)
          failAt(p.loc, fmt::format(".reg parameter '{}' must be a scalar", p.name));
        static const std::set<std::string> kNarrow = {"pred", "b8", "u8", "s8", "b16", "u16",
                                                      "s16", "f16", "bf16"};
        if (!isReturn && kNarrow.count(p.type))
          failAt(p.loc, fmt::format("parameter '{}': passing predicate, 8-bit and 16-bit parameters to "
                                    "device functions is not supported (as ptxas)",
                                    p.name));
        regSignature = true;
        const std::string reg = p.name, type = p.type;
        p.space = ptx::StateSpace::Param;
        p.name = fmt::format("__qgpu_{}{}", isReturn ? "ret" : "arg", i);
        if (p.type == "pred") p.type = "u32";
        scopes_.front().params.insert(p.name);
        if (f.isDeclarationOnly) continue;
        Statement d;
        d.kind = Statement::Kind::Registers;
        d.loc = p.loc;
        d.registers.type = type;
        d.registers.name = reg;
        d.registers.loc = p.loc;
        prologueDecls.push_back(std::move(d));
        scopes_.front().regs[reg] = {type, 1};
        if (isReturn)
          regReturns.push_back({reg, p.name, type});
        else
          loadParam(nullptr, p.loc, p.name, type, regOperand(reg, p.loc), prologue);
      }
    };
    lowerList(f.returns, true);
    lowerList(f.params, false);
    if (f.isDeclarationOnly) return;

    std::vector<Statement> body;
    if (regSignature) {
      Statement b;
      b.kind = Statement::Kind::BlockBegin;
      b.loc = f.loc;
      body.push_back(b);
      scopes_.emplace_back();
    }
    for (Statement& s : f.body) {
      switch (s.kind) {
        case Statement::Kind::BlockBegin:
          scopes_.emplace_back();
          body.push_back(std::move(s));
          break;
        case Statement::Kind::BlockEnd:
          if (scopes_.size() > 1) scopes_.pop_back();
          body.push_back(std::move(s));
          break;
        case Statement::Kind::Registers:
          declareRegisters(s, body);
          break;
        case Statement::Kind::Variable:
          if (s.variable.space == ptx::StateSpace::Param) scopes_.back().params.insert(s.variable.name);
          body.push_back(std::move(s));
          break;
        case Statement::Kind::Instruction: {
          std::vector<Statement> pre, post;
          if (!s.instruction.guard.empty())
            if (auto e = vectorElement(s.instruction.guard)) s.instruction.guard = *e;
          for (Operand& op : s.instruction.operands) fixOperand(op, s, pre);
          if (s.instruction.opcode == "call") rewriteCall(s, pre, post);
          if (s.instruction.opcode == "ret")
            for (const RegReturn& r : regReturns)
              storeParam(&s, s.instruction.loc, r.param, r.type, regOperand(r.reg, s.instruction.loc), pre);
          for (Statement& p : pre) body.push_back(std::move(p));
          body.push_back(std::move(s));
          for (Statement& p : post) body.push_back(std::move(p));
          break;
        }
        default:
          body.push_back(std::move(s));
          break;
      }
    }
    if (regSignature) {
      Statement e;
      e.kind = Statement::Kind::BlockEnd;
      e.loc = f.loc;
      body.push_back(e);
    }
    std::vector<Statement> result;
    for (Statement& s : hiddenDecls_) result.push_back(std::move(s));
    for (Statement& s : prologueDecls) result.push_back(std::move(s));
    for (Statement& s : prologue) result.push_back(std::move(s));
    for (Statement& s : body) result.push_back(std::move(s));
    f.body = std::move(result);
  }

  Module& m_;
  std::map<std::string, Signature> signatures_;
  std::vector<Scope> scopes_;
  std::vector<Statement> hiddenDecls_;
  uint32_t counter_ = 0;
};

}  // namespace

void desugarModule(ptx::Module& module) { Desugarer(module).run(); }

}  // namespace qgpu
