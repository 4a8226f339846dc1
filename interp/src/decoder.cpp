// Lowers the syntax tree into a Program: lays out module variables, kernel
// parameters and per-lane param areas, allocates register slots per
// function (honouring nested { } scopes), decodes each instruction through
// the ISA table (ptx_isa.def), resolves labels and computes reconvergence points.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "cfg.h"
#include "decode_state.h"
#include "desugar.h"
#include "qgpu/interp/address_space.h"
#include "qgpu/interp/error.h"

namespace qgpu {

// ---------------------------------------------------------------- Modifiers
bool Modifiers::take(std::string_view m) {
  for (size_t i = 0; i < mods_.size(); ++i)
    if (!used_[i] && mods_[i] == m) {
      used_[i] = true;
      return true;
    }
  return false;
}

int Modifiers::takeOneOf(std::initializer_list<std::string_view> options) {
  for (size_t i = 0; i < mods_.size(); ++i) {
    if (used_[i]) continue;
    int k = 0;
    for (std::string_view o : options) {
      if (mods_[i] == o) {
        used_[i] = true;
        return k;
      }
      ++k;
    }
  }
  return -1;
}

void Modifiers::takeMemoryHints() {
  static const ModSet kHints = memoryHintMods();
  for (size_t i = 0; i < mods_.size(); ++i)
    if (auto m = findMod(mods_[i]); m && kHints.has(*m)) used_[i] = true;
}

std::vector<ScalarType> Modifiers::takeTypes() {
  std::vector<ScalarType> types;
  for (size_t i = 0; i < mods_.size(); ++i) {
    if (used_[i]) continue;
    if (auto t = parseScalarType(mods_[i])) {
      used_[i] = true;
      types.push_back(*t);
    }
  }
  return types;
}

std::vector<std::string> Modifiers::unused() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < mods_.size(); ++i)
    if (!used_[i]) out.push_back(mods_[i]);
  return out;
}

// ------------------------------------------------------------------ Decoder
namespace {

uint32_t alignUp(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

uint32_t typeBytesOrFail(const std::string& type) {
  auto t = parseScalarType(type);
  return t ? scalarTypeBytes(*t) : (type == "b128" ? 16u : 0u);
}

}  // namespace

struct Symbol {
  enum class Kind { Register, Local, FrameParam, KernelParam, Shared, Const, Global, Function };
  Kind kind = Kind::Register;
  uint32_t slot = kNoSlot;  // Register
  uint64_t address = 0;     // Local/FrameParam/KernelParam/Shared/Const: space offset; Global: generic
  uint32_t size = 0;
  ScalarType type = ScalarType::B32;  // Register: as declared (operand type checks)
};

class Decoder {
 public:
  explicit Decoder(ptx::Module module) { program_.module = std::move(module); }

  uint32_t ptxVersion() const { return version_; }
  uint32_t smTarget() const { return sm_; }

  Program run() {
    desugarModule(program_.module);
    checkVersionAndTarget();
    layoutModuleVariables();
    layoutFunctionScopeShared();
    placeDynamicShared();
    fillInitializers();
    for (const ptx::Function& f : program_.module.functions) declareFunction(f);
    for (size_t i = 0; i < program_.module.functions.size(); ++i)
      if (!program_.module.functions[i].isDeclarationOnly) decodeFunction(i);
    for (const auto& [name, index] : functionIndex_) {
      const ptx::Function& f = program_.module.functions[index];
      if (f.isDeclarationOnly && calledFunctions_.count(name))
        throw Error(ErrorKind::Decode,
                    fmt::format("{}:{}:{}: function '{}' is declared but never defined",
                                program_.module.fileName, f.loc.line, f.loc.col, name));
    }
    // Calls name module functions; map them to decoded function indices.
    for (CallSite& cs : program_.callSites) {
      const std::string& name = program_.module.functions[cs.callee].name;
      for (size_t i = 0; i < program_.functions.size(); ++i)
        if (program_.functions[i].name == name) cs.callee = static_cast<uint32_t>(i);
    }
    return std::move(program_);
  }

  // Used by DecodeState.
  Program& program() { return program_; }
  const Symbol* lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return &found->second;
    }
    auto g = moduleSymbols_.find(name);
    return g == moduleSymbols_.end() ? nullptr : &g->second;
  }
  uint32_t constantSlot(FunctionInfo& f, uint64_t value) {
    auto it = constantSlots_.find(value);
    if (it != constantSlots_.end()) return it->second;
    uint32_t slot = newSlot(f, fmt::format("{:#x}", value), 8);
    f.constants.emplace_back(slot, value);
    constantSlots_[value] = slot;
    return slot;
  }
  uint32_t specialSlot(FunctionInfo& f, SpecialReg r, const std::string& name) {
    auto it = specialSlots_.find(r);
    if (it != specialSlots_.end()) return it->second;
    uint32_t slot = newSlot(f, name, r == SpecialReg::Clock64 || r == SpecialReg::FrameLocalBase ? 8 : 4);
    f.specials.emplace_back(slot, r);
    specialSlots_[r] = slot;
    return slot;
  }
  uint32_t carrySlot(FunctionInfo& f) {
    if (f.carrySlot == kNoSlot) f.carrySlot = newSlot(f, "CC.CF", 4);
    return f.carrySlot;
  }
  void addLabelFixup(uint32_t pc, const std::string& label, const ptx::Operand& op) {
    labelFixups_.push_back({pc, label, op.loc});
  }
  uint32_t functionIndexOf(const std::string& name) const {
    auto it = functionIndex_.find(name);
    return it == functionIndex_.end() ? kNoSlot : static_cast<uint32_t>(it->second);
  }
  void noteCalled(const std::string& name) { calledFunctions_.insert({name, 1}); }

 private:
  uint32_t newSlot(FunctionInfo& f, std::string name, uint32_t bytes) {
    f.slotNames.push_back(std::move(name));
    f.slotBytes.push_back(static_cast<uint8_t>(bytes));
    return f.numSlots++;
  }

  bool ptxVersionAtLeast(unsigned major, unsigned minor) const {
    unsigned ma = 0, mi = 0;
    if (std::sscanf(program_.module.version.c_str(), "%u.%u", &ma, &mi) != 2) return true;
    return ma > major || (ma == major && mi >= minor);
  }

  [[noreturn]] void failAt(ptx::SourceLoc loc, const std::string& what) const {
    throw Error(ErrorKind::Decode,
                fmt::format("{}:{}:{}: {}", program_.module.fileName, loc.line, loc.col, what));
  }

  // .version and .target as ptxas 13.0 checks them: PTX ISA 9.0 at most, and each target
  // needs the PTX ISA version that introduced it (PTX ISA "Target ISA Notes"; the values
  // are the ones ptxas 13.0 enforces, checked by the grammar corpus).
  void checkVersionAndTarget() {
    const ptx::Module& m = program_.module;
    ptx::SourceLoc top{1, 1};
    const std::string& v = m.version;
    size_t dot = v.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 >= v.size() ||
        v.find_first_not_of("0123456789.") != std::string::npos || v.find('.', dot + 1) != std::string::npos)
      failAt(top, fmt::format("malformed .version '{}'", v));
    // Digits only (checked above), but of any length: more than 2 is no version ptxas knows
    // (std::stoul threw out_of_range on 20 digits, and a cast to 32 bits took 4294967297 for 1).
    auto number = [&](size_t from, size_t to) -> uint32_t {
      if (to - from > 2) failAt(top, fmt::format("unsupported .version {}; the newest is 9.0 (ptxas 13.0)", v));
      uint32_t n = 0;
      for (size_t i = from; i < to; ++i) n = 10 * n + static_cast<uint32_t>(v[i] - '0');
      return n;
    };
    const uint32_t major = number(0, dot);
    const uint32_t minor = number(dot + 1, v.size());
    // The released minors of each major (ptxas 13.0 rejects e.g. 7.9 and 5.1 too).
    static constexpr uint32_t kLastMinor[] = {4, 3, 2, 3, 0, 5, 8, 8, 0};  // majors 1..9
    if (major < 1 || major > 9 || minor > kLastMinor[major - 1])
      failAt(top, fmt::format("unsupported .version {}; the newest is 9.0 (ptxas 13.0)", v));
    version_ = major * 10 + minor;
    struct TargetRow {
      const char* name;
      uint32_t sm, ptx;
    };
    static constexpr TargetRow kTargets[] = {
        {"sm_10", 10, 10}, {"sm_11", 11, 10}, {"sm_12", 12, 12}, {"sm_13", 13, 12},
        {"sm_20", 20, 20}, {"sm_21", 21, 20}, {"sm_30", 30, 30}, {"sm_32", 32, 40},
        {"sm_35", 35, 31}, {"sm_37", 37, 41}, {"sm_50", 50, 40}, {"sm_52", 52, 41},
        {"sm_53", 53, 42}, {"sm_60", 60, 50}, {"sm_61", 61, 50}, {"sm_62", 62, 50},
        {"sm_70", 70, 60}, {"sm_72", 72, 61}, {"sm_75", 75, 63}, {"sm_80", 80, 70},
        {"sm_86", 86, 71}, {"sm_87", 87, 74}, {"sm_89", 89, 78}, {"sm_90", 90, 78},
        {"sm_90a", 90, 80},
    };
    const TargetRow* row = nullptr;
    for (const TargetRow& t : kTargets)
      if (m.target == t.name) row = &t;
    if (!row)
      failAt(top, fmt::format("unsupported .target {} (qgpu knows sm_10 to sm_90a)", m.target));
    if (version_ < row->ptx)
      failAt(top, fmt::format("PTX .version {} does not support .target {} (needs {}.{})", v, m.target,
                              row->ptx / 10, row->ptx % 10));
    if (m.hasAddressSize && version_ < 23)
      failAt(top, fmt::format(".address_size needs PTX ISA .version 2.3 or later (module: {})", v));
    sm_ = row->sm;
  }

  // An instruction the module's .version or .target lacks is rejected as ptxas rejects it.
  void checkAvailable(const DecodeState& ds, Opcode op) const {
    const IsaRow& row = isaRows()[static_cast<size_t>(op) - 1];
    uint32_t needPtx = row.ptx, needSm = row.sm;
    const auto& mods = ds.in.modifiers;
    const bool sync = std::find(mods.begin(), mods.end(), "sync") != mods.end();
    // The .sync forms of the warp collectives came with PTX ISA 6.0.
    if ((op == Opcode::Shfl || op == Opcode::Vote) && sync) needPtx = std::max(needPtx, 60u);
    // bar.red came with PTX ISA 2.0 and sm_20; bar.cta/barrier.cta with PTX ISA 7.8.
    if ((op == Opcode::Bar || op == Opcode::Barrier) &&
        std::find(mods.begin(), mods.end(), "red") != mods.end()) {
      needPtx = std::max(needPtx, 20u);
      needSm = std::max(needSm, 20u);
    }
    if ((op == Opcode::Bar || op == Opcode::Barrier) && std::find(mods.begin(), mods.end(), "cta") != mods.end())
      needPtx = std::max(needPtx, 78u);
    // fma.f32 and the IEEE-rounded f32 div/sqrt/rcp need sm_20 (ptxas: "Instruction
    // 'fma.f32' requires .target sm_20 or higher", "'sqrt.rnd.f32' ...").
    auto has = [&](const char* m) { return std::find(mods.begin(), mods.end(), m) != mods.end(); };
    const bool rounded = has("rn") || has("rz") || has("rm") || has("rp");
    if (has("f32") && (op == Opcode::Fma || (rounded && (op == Opcode::Div || op == Opcode::Sqrt ||
                                                         op == Opcode::Rcp))))
      needSm = std::max(needSm, 20u);
    if (needSm > sm_)
      ds.fail(fmt::format("'{}' requires .target sm_{} or higher (module: {})", row.mnemonic, needSm,
                          program_.module.target));
    if (needPtx > version_)
      ds.fail(fmt::format("'{}' requires PTX ISA .version {}.{} or later (module: {})", row.mnemonic,
                          needPtx / 10, needPtx % 10, program_.module.version));
    // ptxas: "Instruction 'shfl' without '.sync' is not supported on .target sm_70 and
    // higher from PTX ISA version 6.4".
    if ((op == Opcode::Shfl || op == Opcode::Vote) && !sync && sm_ >= 70 && version_ >= 64)
      ds.fail(fmt::format("'{}' without .sync is not supported on .target sm_70 and higher from "
                          "PTX ISA version 6.4",
                          row.mnemonic));
  }

  std::vector<uint8_t> initializerBytes(const ptx::VariableDecl& v, uint64_t size) {
    std::vector<uint8_t> bytes(size, 0);
    if (!v.hasInitializer) return bytes;
    auto type = parseScalarType(v.type);
    if (!type) failAt(v.loc, fmt::format("cannot initialise variable of type .{}", v.type));
    uint32_t elem = scalarTypeBytes(*type);
    if (v.initializer.size() * elem > size)
      failAt(v.loc, fmt::format("initialiser of '{}' has {} elements, more than its size", v.name,
                                v.initializer.size()));
    for (size_t i = 0; i < v.initializer.size(); ++i) {
      const ptx::Operand& op = v.initializer[i];
      uint64_t value = 0;
      if (op.kind == ptx::Operand::Kind::Immediate) {
        if (op.isFloat) {
          double d = op.floatIsDouble ? std::bit_cast<double>(op.floatBits)
                                      : static_cast<double>(std::bit_cast<float>(
                                            static_cast<uint32_t>(op.floatBits)));
          if (*type == ScalarType::F32)
            value = std::bit_cast<uint32_t>(static_cast<float>(d));
          else if (*type == ScalarType::F64)
            value = std::bit_cast<uint64_t>(d);
          else
            value = op.floatBits;
        } else if (*type == ScalarType::F32) {
          value = std::bit_cast<uint32_t>(static_cast<float>(op.value));
        } else if (*type == ScalarType::F64) {
          value = std::bit_cast<uint64_t>(static_cast<double>(op.value));
        } else {
          value = static_cast<uint64_t>(op.value);
        }
      } else if (op.kind == ptx::Operand::Kind::Symbol) {
        // The address of a variable: in its own state space, or generic with generic(x)
        // (a .global address is its generic address).
        // Only variables declared before this one (ptxas: "Invalid initial value symbol").
        const Symbol* s = lookup(op.name);
        auto declared = declaredAt_.find(op.name);
        const bool before = declared != declaredAt_.end() &&
                            (declared->second.line < v.loc.line ||
                             (declared->second.line == v.loc.line && declared->second.col < v.loc.col));
        if (!s || !before || (s->kind != Symbol::Kind::Global && s->kind != Symbol::Kind::Const &&
                              s->kind != Symbol::Kind::Shared))
          failAt(op.loc, fmt::format("initialiser refers to '{}', which is not a variable declared before '{}'",
                                     op.name, v.name));
        if (elem != 8 && elem != 4)
          failAt(op.loc, fmt::format("the address of '{}' needs a 32- or 64-bit element", op.name));
        value = s->address + static_cast<uint64_t>(op.value);
        if (op.isGeneric && s->kind == Symbol::Kind::Const) value += kConstWindowBase;
        if (op.isGeneric && s->kind == Symbol::Kind::Shared) value += kSharedWindowBase;
      } else {
        failAt(op.loc, "unsupported initialiser element");
      }
      std::memcpy(bytes.data() + i * elem, &value, elem);
    }
    return bytes;
  }

  // Bytes of a variable, saturating at UINT64_MAX (dimensions up to 2^32 - 1 each).
  static uint64_t variableBytes(const ptx::VariableDecl& v, uint32_t elemBytes) {
    uint64_t n = uint64_t{elemBytes} * v.vectorWidth;
    for (uint64_t d : v.dims)
      if (__builtin_mul_overflow(n, d, &n)) return ~uint64_t{0};
    return n;
  }
  // variableBytes, failing past `limit` (the space's total, docs/limits.md) from `used`.
  uint64_t boundedBytes(const ptx::VariableDecl& v, uint32_t elemBytes, uint64_t used, uint64_t limit,
                        const char* what) const {
    const uint64_t n = variableBytes(v, elemBytes);
    if (used > limit || n > limit - used)
      failAt(v.loc, fmt::format("'{}' needs {} bytes of {}, more than the limit of {} bytes", v.name,
                                n == ~uint64_t{0} ? std::string("over 2^64") : std::to_string(n), what, limit));
    return n;
  }

  // Shared memory is laid out in three parts, each variable aligned: module-scope
  // variables (here), then the function-scope ones of every function (nvcc and clang
  // "demote" a kernel's __shared__ arrays into its body), then the dynamic area that
  // every extern array starts at. The dynamic offset is fixed only once both static
  // parts are known: placing it earlier let a function-scope array overlap it.
  void layoutModuleVariables() {
    for (const ptx::VariableDecl& v : program_.module.globals) {
      uint32_t elem = typeBytesOrFail(v.type);
      if (!elem) failAt(v.loc, fmt::format("unknown type .{}", v.type));
      if (moduleSymbols_.count(v.name)) failAt(v.loc, fmt::format("'{}' declared twice", v.name));
      GlobalVariable g;
      g.name = v.name;
      g.space = v.space;
      g.align = v.align ? v.align : elem;
      bool unsized = std::find(v.dims.begin(), v.dims.end(), 0u) != v.dims.end();
      Symbol sym;
      if (v.space == ptx::StateSpace::Shared && unsized) {
        g.dynamicShared = true;
        dynamicShared_.push_back(program_.globals.size());
        sym.kind = Symbol::Kind::Shared;
      } else {
        if (unsized) failAt(v.loc, fmt::format("'{}' has no size", v.name));
        g.size = v.space == ptx::StateSpace::Const
                     ? boundedBytes(v, elem, alignUp(program_.constBytes, g.align), kMaxConstBytes, "constant memory")
                 : v.space == ptx::StateSpace::Global
                     ? boundedBytes(v, elem, globalBytes_, kMaxGlobalVariableBytes, "global memory")
                     : boundedBytes(v, elem, 0, kMaxSharedBytes, "shared memory");
        if (v.space == ptx::StateSpace::Shared) {
          g.offset = reserveStaticShared(v.loc, g.size, g.align);
          sym.kind = Symbol::Kind::Shared;
          sym.address = g.offset;
          if (v.hasInitializer) failAt(v.loc, ".shared variables cannot be initialised");
        } else {
          if (v.space == ptx::StateSpace::Global) globalBytes_ += g.size;
          sym = placeGlobalOrConst(g);
          if (v.hasInitializer) pendingInit_.emplace_back(&v, program_.globals.size());
        }
      }
      sym.size = static_cast<uint32_t>(g.size);
      moduleSymbols_[v.name] = sym;
      declaredAt_[v.name] = v.loc;
      program_.globals.push_back(std::move(g));
    }
    // Function-scope .global and .const variables live as long as the module does:
    // laid out like module-scope ones (named function::variable).
    for (const ptx::Function& f : program_.module.functions) {
      if (f.isDeclarationOnly) continue;
      for (const ptx::Statement& st : f.body) {
        if (st.kind != ptx::Statement::Kind::Variable) continue;
        const ptx::VariableDecl& v = st.variable;
        if (v.space != ptx::StateSpace::Global && v.space != ptx::StateSpace::Const) continue;
        uint32_t elem = typeBytesOrFail(v.type);
        if (!elem) failAt(v.loc, fmt::format("unknown type .{}", v.type));
        if (std::find(v.dims.begin(), v.dims.end(), 0u) != v.dims.end())
          failAt(v.loc, fmt::format("'{}' has no size", v.name));
        GlobalVariable g;
        g.name = f.name + "::" + v.name;
        g.space = v.space;
        g.align = v.align ? v.align : elem;
        g.size = v.space == ptx::StateSpace::Const
                     ? boundedBytes(v, elem, alignUp(program_.constBytes, g.align), kMaxConstBytes, "constant memory")
                     : boundedBytes(v, elem, globalBytes_, kMaxGlobalVariableBytes, "global memory");
        if (v.space == ptx::StateSpace::Global) globalBytes_ += g.size;
        Symbol sym = placeGlobalOrConst(g);
        sym.size = static_cast<uint32_t>(g.size);
        functionVariables_[&v] = sym;
        if (v.hasInitializer) pendingInit_.emplace_back(&v, program_.globals.size());
        program_.globals.push_back(std::move(g));
      }
    }
  }

  // A .const variable's offset in the const bank, or a .global variable's own region.
  Symbol placeGlobalOrConst(GlobalVariable& g) {
    Symbol sym;
    if (g.space == ptx::StateSpace::Const) {
      g.offset = alignUp(program_.constBytes, g.align);
      program_.constBytes = static_cast<uint32_t>(g.offset + g.size);
      sym.kind = Symbol::Kind::Const;
      sym.address = g.offset;
    } else {
      g.offset = globalRegions_++;
      sym.kind = Symbol::Kind::Global;
      sym.address = kGlobalBase + ((kFirstModuleGlobalRegion + g.offset) << 32);
    }
    return sym;
  }

  // Initial bytes of every .global/.const variable, once every variable has its address
  // (an initialiser may name a variable declared after it).
  void fillInitializers() {
    for (const auto& [decl, index] : pendingInit_) {
      GlobalVariable& g = program_.globals[index];
      g.init = initializerBytes(*decl, g.size);
    }
    for (GlobalVariable& g : program_.globals)
      if (g.init.empty() && (g.space == ptx::StateSpace::Const || g.space == ptx::StateSpace::Global) &&
          !g.dynamicShared)
        g.init.assign(g.size, 0);
  }

  // Static shared bytes for one variable; a layout past the hardware's 48 KiB can never
  // launch (ptxas rejects it), and checking here keeps the 32-bit offsets from wrapping.
  uint64_t reserveStaticShared(const ptx::SourceLoc& loc, uint64_t size, uint32_t align) {
    uint64_t offset = alignUp(program_.staticSharedBytes, align);
    if (size > kMaxSharedBytes || offset + size > kMaxSharedBytes)
      failAt(loc, fmt::format("{} bytes of static shared memory exceed {} KiB", offset + size,
                              kMaxSharedBytes / 1024));
    program_.staticSharedBytes = static_cast<uint32_t>(offset + size);
    return offset;
  }

  // The function-scope .shared variables of every defined function, in module order,
  // after the module-scope ones.
  void layoutFunctionScopeShared() {
    for (const ptx::Function& f : program_.module.functions) {
      if (f.isDeclarationOnly) continue;
      for (const ptx::Statement& st : f.body) {
        if (st.kind != ptx::Statement::Kind::Variable || st.variable.space != ptx::StateSpace::Shared)
          continue;
        const ptx::VariableDecl& v = st.variable;
        uint32_t elem = typeBytesOrFail(v.type);
        if (!elem) failAt(v.loc, fmt::format("unknown type .{}", v.type));
        if (v.hasInitializer) failAt(v.loc, ".shared variables cannot be initialised");
        GlobalVariable g;
        g.name = f.name + "::" + v.name;
        g.space = v.space;
        g.align = v.align ? v.align : elem;
        // ptxas: "Non-external variable has incomplete type" (and .extern is module-only).
        if (std::find(v.dims.begin(), v.dims.end(), 0u) != v.dims.end())
          failAt(v.loc, fmt::format("'{}' has no size", v.name));
        g.size = boundedBytes(v, elem, 0, kMaxSharedBytes, "shared memory");
        g.offset = reserveStaticShared(v.loc, g.size, g.align);
        functionShared_[&v] = program_.globals.size();
        program_.globals.push_back(std::move(g));
      }
    }
  }

  // Dynamic shared memory starts after all static shared memory, at a 16-byte boundary
  // (or the largest alignment an extern array asks for).
  void placeDynamicShared() {
    uint32_t align = 16;
    for (size_t i : dynamicShared_) align = std::max(align, program_.globals[i].align);
    program_.dynamicSharedOffset = alignUp(program_.staticSharedBytes, align);
    for (size_t i : dynamicShared_) {
      GlobalVariable& g = program_.globals[i];
      g.offset = program_.dynamicSharedOffset;
      auto sym = moduleSymbols_.find(g.name);
      if (sym != moduleSymbols_.end()) sym->second.address = g.offset;
    }
  }

  void declareFunction(const ptx::Function& f) {
    if (functionIndex_.count(f.name)) {
      // A prototype followed by the definition is fine.
      size_t prev = functionIndex_[f.name];
      if (!program_.module.functions[prev].isDeclarationOnly && !f.isDeclarationOnly)
        failAt(f.loc, fmt::format("function '{}' defined twice", f.name));
      if (!f.isDeclarationOnly) functionIndex_[f.name] = indexOf(f);
      return;
    }
    functionIndex_[f.name] = indexOf(f);
    Symbol sym;
    sym.kind = Symbol::Kind::Function;
    moduleSymbols_[f.name] = sym;
  }
  size_t indexOf(const ptx::Function& f) const {
    return static_cast<size_t>(&f - program_.module.functions.data());
  }

  void declareRegisters(FunctionInfo& fi, const ptx::RegisterDecl& r) {
    auto type = parseScalarType(r.type);
    if (!type) failAt(r.loc, fmt::format("unsupported register type .{}", r.type));
    if (r.vectorWidth != 1) failAt(r.loc, "vector registers are not supported");
    uint32_t bytes = scalarTypeBytes(*type);
    auto declare = [&](const std::string& name) {
      if (scopes_.back().count(name)) failAt(r.loc, fmt::format("register '{}' declared twice", name));
      Symbol s;
      s.kind = Symbol::Kind::Register;
      s.slot = newSlot(fi, name, bytes);
      s.size = bytes;
      s.type = *type;
      scopes_.back()[name] = s;
    };
    if (uint64_t{fi.numSlots} + std::max(r.count, 1u) > kMaxRegistersPerFunction)
      failAt(r.loc, fmt::format("'{}' declares more than {} registers in function '{}' (docs/limits.md)",
                                r.count ? fmt::format("{}<{}>", r.name, r.count) : r.name,
                                kMaxRegistersPerFunction, fi.name));
    if (r.count == 0) {
      declare(r.name);
    } else {
      for (uint32_t i = 0; i < r.count; ++i) declare(r.name + std::to_string(i));
    }
  }

  void declareBodyVariable(FunctionInfo& fi, const ptx::VariableDecl& v) {
    if (auto it = functionVariables_.find(&v); it != functionVariables_.end()) {
      scopes_.back()[v.name] = it->second;  // .global / .const (layoutModuleVariables)
      return;
    }
    if (v.space == ptx::StateSpace::Shared) {
      // Laid out before any function was decoded (layoutFunctionScopeShared).
      const GlobalVariable& g = program_.globals.at(functionShared_.at(&v));
      Symbol s;
      s.kind = Symbol::Kind::Shared;
      s.size = static_cast<uint32_t>(g.size);
      s.address = g.offset;
      scopes_.back()[v.name] = s;
      return;
    }
    uint32_t elem = typeBytesOrFail(v.type);
    if (!elem) failAt(v.loc, fmt::format("unknown type .{}", v.type));
    if (std::find(v.dims.begin(), v.dims.end(), 0u) != v.dims.end())
      failAt(v.loc, fmt::format("'{}' has no size", v.name));
    uint32_t align = v.align ? v.align : elem;
    const uint64_t size = v.space == ptx::StateSpace::Local
                              ? boundedBytes(v, elem, alignUp(fi.localBytes, align), kMaxLocalBytes,
                                             "local memory per thread")
                              : boundedBytes(v, elem, alignUp(fi.paramAreaBytes, std::max(align, 4u)),
                                             kMaxKernelParamBytes, "call parameter space");
    Symbol s;
    s.size = static_cast<uint32_t>(size);
    switch (v.space) {
      case ptx::StateSpace::Local:
        s.kind = Symbol::Kind::Local;
        s.address = alignUp(fi.localBytes, align);
        fi.localBytes = static_cast<uint32_t>(s.address + size);
        fi.localAlign = std::max(fi.localAlign, align);
        if (v.hasInitializer) failAt(v.loc, ".local variables cannot be initialised");
        break;
      case ptx::StateSpace::Param:
        s.kind = Symbol::Kind::FrameParam;
        s.address = alignUp(fi.paramAreaBytes, std::max(align, 4u));
        fi.paramAreaBytes = static_cast<uint32_t>(s.address + size);
        break;
      default:
        failAt(v.loc, fmt::format(".{} variables inside functions are not supported",
                                  ptx::stateSpaceName(v.space)));
    }
    scopes_.back()[v.name] = s;
  }

  void decodeFunction(size_t index) {
    const ptx::Function& f = program_.module.functions[index];
    FunctionInfo fi;
    fi.name = f.name;
    fi.isEntry = f.isEntry;
    std::copy(std::begin(f.maxntid), std::end(f.maxntid), fi.maxntid);
    std::copy(std::begin(f.reqntid), std::end(f.reqntid), fi.reqntid);
    fi.entryPc = static_cast<uint32_t>(program_.code.size());
    constantSlots_.clear();
    specialSlots_.clear();
    labelFixups_.clear();
    labels_.clear();
    scopes_.assign(1, {});

    // Parameters.
    if (f.isEntry) {
      uint32_t offset = 0;
      // ptxas: "Entry function uses too much parameter space".
      const uint32_t paramLimit = ptxVersionAtLeast(8, 1) ? kMaxKernelParamBytes : kMaxKernelParamBytesBeforePtx81;
      for (const ptx::VariableDecl& p : f.params) {
        uint32_t elem = typeBytesOrFail(p.type);
        if (!elem) failAt(p.loc, fmt::format("unknown parameter type .{}", p.type));
        uint32_t align = p.align ? p.align : elem;
        uint32_t size = static_cast<uint32_t>(
            boundedBytes(p, elem, alignUp(offset, align), paramLimit, "kernel parameter space"));
        offset = alignUp(offset, align);
        fi.kernelParams.push_back({p.name, p.type, offset, size, align});
        Symbol s;
        s.kind = Symbol::Kind::KernelParam;
        s.address = offset;
        s.size = size;
        scopes_.back()[p.name] = s;
        offset += size;
      }
      fi.kernelParamBytes = offset;
    } else {
      auto layout = [&](const std::vector<ptx::VariableDecl>& decls, std::vector<ParamSlot>& out) {
        for (const ptx::VariableDecl& p : decls) {
          uint32_t elem = typeBytesOrFail(p.type);
          if (!elem) failAt(p.loc, fmt::format("unknown parameter type .{}", p.type));
          uint32_t align = std::max(p.align ? p.align : elem, 4u);
          uint32_t size = static_cast<uint32_t>(
              boundedBytes(p, elem, alignUp(fi.paramAreaBytes, align), kMaxKernelParamBytes,
                           "call parameter space"));
          uint32_t offset = alignUp(fi.paramAreaBytes, align);
          fi.paramAreaBytes = offset + size;
          out.push_back({p.name, offset, size});
          Symbol s;
          s.kind = Symbol::Kind::FrameParam;
          s.address = offset;
          s.size = size;
          scopes_.back()[p.name] = s;
        }
      };
      layout(f.returns, fi.returns);
      layout(f.params, fi.params);
    }

    uint32_t fnIndex = static_cast<uint32_t>(program_.functions.size());
    uint32_t locFile = 0, locLine = 0;
    for (const ptx::Statement& st : f.body) {
      switch (st.kind) {
        case ptx::Statement::Kind::BlockBegin:
          scopes_.emplace_back();
          break;
        case ptx::Statement::Kind::BlockEnd:
          scopes_.pop_back();
          break;
        case ptx::Statement::Kind::Registers:
          declareRegisters(fi, st.registers);
          break;
        case ptx::Statement::Kind::Variable:
          declareBodyVariable(fi, st.variable);
          break;
        case ptx::Statement::Kind::Loc:
          locFile = st.locFile;
          locLine = st.locLine;
          break;
        case ptx::Statement::Kind::Label:
          if (labels_.count(st.label)) failAt(st.loc, fmt::format("label '{}' defined twice", st.label));
          labels_[st.label] = static_cast<uint32_t>(program_.code.size());
          break;
        case ptx::Statement::Kind::Instruction: {
          const ptx::Instruction& in = st.instruction;
          Instr out;
          out.function = fnIndex;
          out.ptxLine = in.loc.line;
          out.ptxCol = in.loc.col;
          out.srcFile = locFile;
          out.srcLine = locLine;
          program_.code.push_back(out);
          program_.opcodeText.push_back(in.opcode);
          for (const std::string& m : in.modifiers) program_.opcodeText.back() += "." + m;
          Instr& slot = program_.code.back();
          DecodeState ds{*this, program_, fi, in, Modifiers(in.modifiers), slot};
          if (!in.guard.empty()) {
            ptx::Operand g;
            g.kind = ptx::Operand::Kind::Register;
            g.name = in.guard;
            g.loc = in.loc;
            slot.guard = ds.predicate(g);
            slot.guardNegated = in.guardNegated;
          }
          const std::optional<Opcode> op = findOpcode(in.opcode);
          if (!op) {
            const auto missing = unsupportedOpcodes();
            if (!std::binary_search(missing.begin(), missing.end(), in.opcode))
              ds.fail(fmt::format("unknown instruction '{}'", in.opcode));
            const bool warpMatrix = in.opcode == "wmma";
            ds.fail(fmt::format("unknown instruction '{}' (a PTX ISA instruction qgpu does not support{}; "
                                "docs/semantics.md)",
                                in.opcode,
                                warpMatrix ? ": its matrix fragments are defined over a 32-lane warp, so it "
                                             "could only ever run at --warp 32, and no handler exists yet"
                                           : ""));
          }
          slot.opcode = *op;
          checkAvailable(ds, *op);
          if (*op != Opcode::Vmad)
            for (const ptx::Operand& o : in.operands)
              if (o.minus) ds.fail(fmt::format("operand negation ('-{}') is not allowed for '{}' (only vmad has it)", o.name, in.opcode));
          opcodeDecoder(*op)(ds);
          ds.finish();
          // The typed form: every accepted modifier is a type or a row of ptx_isa.def.
          for (const std::string& m : in.modifiers) {
            if (auto t = parseScalarType(m)) {
              // mma.dtype.atype.btype.ctype: ctype equals dtype in every supported form; not kept.
              if (slot.typeCount == 3 && slot.opcode == Opcode::Mma) continue;
              if (slot.typeCount == 3) ds.fail("internal: more than three type modifiers");
              if (slot.typeCount == 2 && slot.opcode == Opcode::Cvt) {
                // cvt.pack.sat.u8.s32.b32: the third type, cType, is always .b32; not kept.
                if (slot.opcode == Opcode::Cvt && *t == ScalarType::B32) continue;
                ds.fail("internal: more than two type modifiers");
              }
              slot.types[slot.typeCount++] = *t;
            } else if (auto md = findMod(m)) {
              slot.mods.set(*md);
            } else {
              ds.fail(fmt::format("internal: modifier .{} is accepted but has no QGPU_PTX_MOD row", m));
            }
          }
          if (!slot.fn && slot.flow == Flow::None) ds.fail("internal: no handler selected");
          break;
        }
      }
    }
    fi.endPc = static_cast<uint32_t>(program_.code.size());
    if (fi.endPc == fi.entryPc)
      failAt(f.loc, fmt::format("function '{}' has no instructions", f.name));
    for (const LabelFixup& fix : labelFixups_) {
      auto it = labels_.find(fix.label);
      if (it == labels_.end())
        failAt(fix.loc, fmt::format("branch to undefined label '{}'", fix.label));
      program_.code[fix.pc].target = it->second;
    }
    const Instr& last = program_.code.back();
    bool endsFlow = last.guard == kNoSlot &&
                    (last.flow == Flow::Return || last.flow == Flow::Exit ||
                     last.flow == Flow::Branch || last.flow == Flow::Trap);
    if (!endsFlow)
      failAt(f.loc, fmt::format("function '{}' can run past its last instruction (no ret/exit)",
                                f.name));
    program_.functions.push_back(std::move(fi));
    computeReconvergence(program_, program_.functions.back());
  }

  struct LabelFixup {
    uint32_t pc;
    std::string label;
    ptx::SourceLoc loc;
  };

  Program program_;
  std::map<std::string, Symbol> moduleSymbols_;
  std::vector<size_t> dynamicShared_;  // globals[] of the extern .shared arrays
  std::map<const ptx::VariableDecl*, size_t> functionShared_;  // body .shared -> globals[]
  std::map<const ptx::VariableDecl*, Symbol> functionVariables_;  // body .global/.const
  std::vector<std::pair<const ptx::VariableDecl*, size_t>> pendingInit_;  // -> globals[]
  uint32_t globalRegions_ = 0;  // .global variables placed so far
  std::map<std::string, ptx::SourceLoc> declaredAt_;  // module-scope variables
  uint32_t version_ = 0;        // .version times 10
  uint64_t globalBytes_ = 0;    // of all .global variables (their initial bytes are allocated)
  uint32_t sm_ = 0;             // .target sm_<sm_>
  std::map<std::string, size_t> functionIndex_;
  std::map<std::string, int> calledFunctions_;
  std::vector<std::map<std::string, Symbol>> scopes_;
  std::map<uint64_t, uint32_t> constantSlots_;
  std::map<SpecialReg, uint32_t> specialSlots_;
  std::map<std::string, uint32_t> labels_;
  std::vector<LabelFixup> labelFixups_;

  friend struct DecodeState;
};

// -------------------------------------------------------------- DecodeState
void DecodeState::fail(const std::string& what) const {
  throw Error(ErrorKind::Decode, fmt::format("{}:{}:{}: {}\n    {}", program.module.fileName,
                                             in.loc.line, in.loc.col, what, in.text));
}

void DecodeState::requireFeature(const std::string& feature, uint32_t ptx, uint32_t sm) const {
  // ptxas: "Feature 'min.f16 or min.f16x2' requires .target sm_80 or higher".
  if (decoder.smTarget() < sm)
    fail(fmt::format("'{}' requires .target sm_{} or higher (module: {})", feature, sm, program.module.target));
  if (decoder.ptxVersion() < ptx)
    fail(fmt::format("'{}' requires PTX ISA .version {}.{} or later (module: {})", feature, ptx / 10, ptx % 10,
                     program.module.version));
}

uint32_t DecodeState::smTarget() const { return decoder.smTarget(); }

void DecodeState::finish() const {
  auto rest = mods.unused();
  if (!rest.empty()) {
    std::string list;
    for (const auto& m : rest) list += (list.empty() ? "." : ", .") + m;
    fail(fmt::format("unsupported modifier {} for '{}'", list, in.opcode));
  }
}

void DecodeState::expectOperands(size_t n) const { expectOperands(n, n); }
void DecodeState::expectOperands(size_t lo, size_t hi) const {
  size_t n = in.operands.size();
  if (n < lo || n > hi)
    fail(lo == hi ? fmt::format("'{}' takes {} operands, got {}", in.opcode, lo, n)
                  : fmt::format("'{}' takes {} to {} operands, got {}", in.opcode, lo, hi, n));
}

namespace {
struct SpecialName {
  const char* name;
  SpecialReg reg;
};
constexpr SpecialName kSpecials[] = {
    {"%tid.x", SpecialReg::TidX},           {"%tid.y", SpecialReg::TidY},
    {"%tid.z", SpecialReg::TidZ},           {"%ntid.x", SpecialReg::NtidX},
    {"%ntid.y", SpecialReg::NtidY},         {"%ntid.z", SpecialReg::NtidZ},
    {"%ctaid.x", SpecialReg::CtaidX},       {"%ctaid.y", SpecialReg::CtaidY},
    {"%ctaid.z", SpecialReg::CtaidZ},       {"%nctaid.x", SpecialReg::NctaidX},
    {"%nctaid.y", SpecialReg::NctaidY},     {"%nctaid.z", SpecialReg::NctaidZ},
    {"%laneid", SpecialReg::LaneId},        {"%warpid", SpecialReg::WarpId},
    {"%nwarpid", SpecialReg::NWarpId},      {"%lanemask_eq", SpecialReg::LanemaskEq},
    {"%lanemask_lt", SpecialReg::LanemaskLt}, {"%lanemask_le", SpecialReg::LanemaskLe},
    {"%lanemask_gt", SpecialReg::LanemaskGt}, {"%lanemask_ge", SpecialReg::LanemaskGe},
    {"WARP_SZ", SpecialReg::WarpSize},      {"%clock", SpecialReg::Clock},
    {"%clock64", SpecialReg::Clock64},      {"%smid", SpecialReg::SmId},
    {"%nsmid", SpecialReg::NSmId},          {"%gridid", SpecialReg::GridId},
    {"%dynamic_smem_size", SpecialReg::DynamicSmemSize},
    {"%total_smem_size", SpecialReg::TotalSmemSize},
};

uint64_t convertImmediate(const ptx::Operand& op, ScalarType t) {
  uint32_t bytes = scalarTypeBytes(t);
  uint64_t mask = bytes >= 8 ? ~0ull : ((1ull << (8 * bytes)) - 1);
  if (op.isFloat) {
    double d = op.floatIsDouble ? std::bit_cast<double>(op.floatBits)
                                : static_cast<double>(std::bit_cast<float>(
                                      static_cast<uint32_t>(op.floatBits)));
    if (t == ScalarType::F32) {
      if (!op.floatIsDouble) return op.floatBits;  // exact bits, NaN payloads too
      return std::bit_cast<uint32_t>(static_cast<float>(d));
    }
    if (t == ScalarType::F64) {
      if (op.floatIsDouble) return op.floatBits;
      return std::bit_cast<uint64_t>(d);
    }
    return op.floatBits & mask;  // bit types take the literal's bits
  }
  if (t == ScalarType::F32) return std::bit_cast<uint32_t>(static_cast<float>(op.value));
  if (t == ScalarType::F64) return std::bit_cast<uint64_t>(static_cast<double>(op.value));
  if (t == ScalarType::Pred) return op.value != 0 ? 1 : 0;
  return static_cast<uint64_t>(op.value) & mask;
}
}  // namespace

void DecodeState::destinationAndSources(ScalarType t, size_t nsrc) {
  expectOperands(nsrc + 1);
  out.d[0] = destination(in.operands[0]);
  for (size_t i = 0; i < nsrc; ++i) out.s[i] = source(in.operands[i + 1], t);
}

uint32_t DecodeState::carry() { return decoder.carrySlot(function); }

uint32_t DecodeState::constant(uint64_t value) { return decoder.constantSlot(function, value); }

uint32_t DecodeState::slotBytes(uint32_t slot) const { return function.slotBytes[slot]; }

namespace {
// Registers need not start with '%' (`.reg .pred q;` in inline PTX): a bare
// identifier that names a register is a register operand.
ptx::Operand asRegisterIfDeclared(const Decoder& d, const ptx::Operand& op) {
  if (op.kind != ptx::Operand::Kind::Symbol || op.value != 0) return op;
  const Symbol* sym = d.lookup(op.name);
  if (!sym || sym->kind != Symbol::Kind::Register) return op;
  ptx::Operand reg = op;
  reg.kind = ptx::Operand::Kind::Register;
  return reg;
}
}  // namespace

void DecodeState::requireRegisterBytes(uint32_t bytes, size_t n, size_t first) {
  for (size_t i = first; i < n && i < in.operands.size(); ++i) {
    const ptx::Operand op = asRegisterIfDeclared(decoder, in.operands[i]);
    if (op.kind != ptx::Operand::Kind::Register) continue;
    // Special registers keep their own widths; undeclared names fail in source()/destination().
    const Symbol* sym = decoder.lookup(op.name);
    if (!sym || sym->kind != Symbol::Kind::Register) continue;
    const uint32_t have = sym->size;
    if (have != bytes)
      fail(fmt::format("'{}' is a {}-bit register; '{}' needs {}-bit operands", op.name, 8 * have,
                       in.text, 8 * bytes));
  }
}

namespace {
// Whether ptxas takes a register declared `reg` (already of a width it takes) as an operand
// of type `t`, as measured with ptxas 13.0 (Arguments mismatch otherwise): a float operand
// (.f16, .f16x2, .bf16, .bf16x2, .f32, .f64) takes a register of its own type or a bit type
// (.u16/.s16 registers are refused for .f16 and .bf16, .u32/.s32/.f32 for .f16x2 and
// .bf16x2, .f16 for .bf16, .f16x2 for .bf16x2: ptxas declares no .bf16/.bf16x2 registers);
// a signed or unsigned operand takes any integer or bit type, and .f16x2, but no other float
// type; a bit operand takes anything.
bool registerTypeFits(ScalarType t, ScalarType reg) {
  if (isFloat(t)) return reg == t || isBits(reg);
  const bool integer = isSigned(t) || t == ScalarType::U8 || t == ScalarType::U16 || t == ScalarType::U32 ||
                       t == ScalarType::U64;
  if (integer) return !isFloat(reg) || reg == ScalarType::F16x2;
  return true;
}

// What an operand of type `t` needs, for the messages.
std::string registerTypeWanted(ScalarType t) {
  const uint32_t bits = 8 * scalarTypeBytes(t);
  if (t == ScalarType::BF16 || t == ScalarType::BF16x2) return fmt::format(".b{}", bits);  // no .bf16 registers
  if (isFloat(t)) return fmt::format(".{} or .b{}", scalarTypeName(t), bits);
  return fmt::format("integer or .b{}", bits);
}
}  // namespace

void DecodeState::requireRegisterType(ScalarType t, size_t first, size_t end) {
  requireRegisterBytes(scalarTypeBytes(t), end, first);
  for (size_t i = first; i < end && i < in.operands.size(); ++i) {
    const ptx::Operand op = asRegisterIfDeclared(decoder, in.operands[i]);
    if (op.kind != ptx::Operand::Kind::Register) continue;
    const Symbol* sym = decoder.lookup(op.name);
    if (!sym || sym->kind != Symbol::Kind::Register || registerTypeFits(t, sym->type)) continue;
    fail(fmt::format("'{}' is a .{} register; '{}' needs {} operands", op.name, scalarTypeName(sym->type), in.text,
                     registerTypeWanted(t)));
  }
}

void DecodeState::requireOperandType(size_t i, ScalarType t, bool wider, const char* role) {
  if (i >= in.operands.size()) return;
  const ptx::Operand op = asRegisterIfDeclared(decoder, in.operands[i]);
  if (op.kind != ptx::Operand::Kind::Register) return;
  // Special registers keep their own widths; undeclared names fail in source()/destination().
  const Symbol* sym = decoder.lookup(op.name);
  if (!sym || sym->kind != Symbol::Kind::Register) return;
  const uint32_t bytes = scalarTypeBytes(t);
  if (sym->size != bytes && !(wider && sym->size > bytes))
    fail(fmt::format("'{}' is a {}-bit register; the {} of '{}' needs a {}-bit{} register", op.name, 8 * sym->size,
                     role, in.text, 8 * bytes, wider ? " (or wider)" : ""));
  if (!registerTypeFits(t, sym->type))
    fail(fmt::format("'{}' is a .{} register; the {} of '{}' needs {}{}", op.name, scalarTypeName(sym->type), role,
                     in.text, registerTypeWanted(t), wider && isFloat(t) ? " (or a wider .bN)" : ""));
}

std::optional<ScalarType> DecodeState::declaredRegisterType(size_t i) const {
  if (i >= in.operands.size()) return std::nullopt;
  return declaredRegisterType(in.operands[i]);
}

std::optional<ScalarType> DecodeState::declaredRegisterType(const ptx::Operand& operand) const {
  const ptx::Operand op = asRegisterIfDeclared(decoder, operand);
  if (op.kind != ptx::Operand::Kind::Register) return std::nullopt;
  const Symbol* sym = decoder.lookup(op.name);
  if (!sym || sym->kind != Symbol::Kind::Register) return std::nullopt;
  return sym->type;
}

bool DecodeState::namesRegister(const ptx::Operand& op) const {
  return asRegisterIfDeclared(decoder, op).kind == ptx::Operand::Kind::Register;
}

uint32_t DecodeState::source(const ptx::Operand& operand, ScalarType t) {
  using K = ptx::Operand::Kind;
  const ptx::Operand op = asRegisterIfDeclared(decoder, operand);
  if (op.kind == K::Immediate) return constant(convertImmediate(op, t));
  if (op.kind == K::Register) {
    if (op.negated) fail("'!' is only allowed on predicate operands");
    for (const SpecialName& s : kSpecials)
      if (op.name == s.name) return decoder.specialSlot(function, s.reg, s.name);
    const Symbol* sym = decoder.lookup(op.name);
    if (!sym) fail(fmt::format("undeclared register '{}'", op.name));
    if (sym->kind != Symbol::Kind::Register) fail(fmt::format("'{}' is not a register", op.name));
    return sym->slot;
  }
  if (op.kind == K::Symbol) fail(fmt::format("'{}' cannot be used as a value here", op.name));
  fail("expected a register or an immediate operand");
}

uint32_t DecodeState::destination(const ptx::Operand& operand) {
  const ptx::Operand op = asRegisterIfDeclared(decoder, operand);
  if (op.kind != ptx::Operand::Kind::Register)
    fail("destination must be a register");
  for (const SpecialName& s : kSpecials)
    if (op.name == s.name) fail(fmt::format("special register '{}' is read-only", op.name));
  const Symbol* sym = decoder.lookup(op.name);
  if (!sym) fail(fmt::format("undeclared register '{}'", op.name));
  if (sym->kind != Symbol::Kind::Register) fail(fmt::format("'{}' is not a register", op.name));
  return sym->slot;
}

uint32_t DecodeState::predicate(const ptx::Operand& operand, bool* negated) {
  const ptx::Operand op = asRegisterIfDeclared(decoder, operand);
  if (op.kind == ptx::Operand::Kind::Immediate) {
    if (negated) *negated = false;
    return constant(op.value != 0 ? 1 : 0);
  }
  if (op.kind != ptx::Operand::Kind::Register) fail("expected a predicate register");
  if (op.negated && !negated) fail("'!' is not allowed here");
  if (negated) *negated = op.negated;
  const Symbol* sym = decoder.lookup(op.name);
  if (!sym) fail(fmt::format("undeclared register '{}'", op.name));
  if (sym->kind != Symbol::Kind::Register) fail(fmt::format("'{}' is not a register", op.name));
  if (function.slotBytes[sym->slot] != 1)
    fail(fmt::format("'{}' is not a predicate register", op.name));
  return sym->slot;
}

void DecodeState::address(const ptx::Operand& op, int baseIndex, MemSpace declaredSpace) {
  using K = ptx::Operand::Kind;
  if (op.kind != K::Address && op.kind != K::Symbol) fail("expected an address operand [..]");
  out.imm = op.value;
  if (op.kind == K::Address && op.name.empty()) {  // [imm]
    out.s[baseIndex] = constant(0);
    return;
  }
  const Symbol* named = decoder.lookup(op.name);
  if (op.name[0] == '%' || (named && named->kind == Symbol::Kind::Register)) {
    ptx::Operand reg = op;
    reg.kind = K::Register;
    uint32_t slot = source(reg, ScalarType::U64);
    if (slot != kNoSlot && function.slotBytes[slot] < 4)
      fail(fmt::format("address register '{}' is too narrow", op.name));
    out.s[baseIndex] = slot;
    if (declaredSpace == MemSpace::FrameParam || declaredSpace == MemSpace::KernelParam)
      out.space = function.isEntry ? MemSpace::KernelParam : MemSpace::FrameParam;
    return;
  }
  const Symbol* sym = decoder.lookup(op.name);
  if (!sym) fail(fmt::format("undeclared symbol '{}'", op.name));
  MemSpace symSpace;
  uint64_t addr = sym->address;
  switch (sym->kind) {
    case Symbol::Kind::Local: symSpace = MemSpace::Local; break;
    case Symbol::Kind::FrameParam: symSpace = MemSpace::FrameParam; break;
    case Symbol::Kind::KernelParam: symSpace = MemSpace::KernelParam; break;
    case Symbol::Kind::Shared: symSpace = MemSpace::Shared; break;
    case Symbol::Kind::Const: symSpace = MemSpace::Const; break;
    case Symbol::Kind::Global: symSpace = MemSpace::Global; break;
    default: fail(fmt::format("'{}' is not a variable", op.name));
  }
  bool paramSpace = declaredSpace == MemSpace::FrameParam || declaredSpace == MemSpace::KernelParam;
  if (paramSpace) {
    if (symSpace != MemSpace::FrameParam && symSpace != MemSpace::KernelParam)
      fail(fmt::format("'{}' is not a .param variable", op.name));
    out.space = symSpace;
  } else if (declaredSpace == MemSpace::Generic) {
    // A symbol in a generic access: use its generic address.
    switch (symSpace) {
      case MemSpace::Shared: addr += kSharedWindowBase; break;
      case MemSpace::Const: addr += kConstWindowBase; break;
      case MemSpace::KernelParam: addr += kParamWindowBase; break;
      case MemSpace::Local:
        out.s[baseIndex] = decoder.specialSlot(function, SpecialReg::FrameLocalBase, "%frame_local");
        out.imm = static_cast<int64_t>(kLocalWindowBase + addr) + op.value;
        return;
      case MemSpace::FrameParam: fail("a call parameter cannot be accessed generically");
      default: break;
    }
  } else if (declaredSpace != symSpace) {
    fail(fmt::format("'{}' is a .{} variable, not .{}", op.name,
                     symSpace == MemSpace::Shared ? "shared" : symSpace == MemSpace::Const ? "const" :
                     symSpace == MemSpace::Local ? "local" : symSpace == MemSpace::Global ? "global" : "param",
                     declaredSpace == MemSpace::Shared ? "shared" : declaredSpace == MemSpace::Const ? "const" :
                     declaredSpace == MemSpace::Local ? "local" : declaredSpace == MemSpace::Global ? "global" : "param"));
  }
  if (symSpace == MemSpace::Local) {
    out.s[baseIndex] = decoder.specialSlot(function, SpecialReg::FrameLocalBase, "%frame_local");
    out.imm = static_cast<int64_t>(addr) + op.value;
    return;
  }
  out.s[baseIndex] = constant(0);
  out.imm = static_cast<int64_t>(addr) + op.value;
}

void DecodeState::symbolValue(const ptx::Operand& op, int baseIndex) {
  const Symbol* sym = decoder.lookup(op.name);
  if (!sym) fail(fmt::format("undeclared symbol '{}'", op.name));
  switch (sym->kind) {
    case Symbol::Kind::Local:
      out.s[baseIndex] = decoder.specialSlot(function, SpecialReg::FrameLocalBase, "%frame_local");
      out.imm = static_cast<int64_t>(sym->address) + op.value;
      return;
    case Symbol::Kind::KernelParam:
    case Symbol::Kind::Shared:
    case Symbol::Kind::Const:
    case Symbol::Kind::Global:
      out.s[baseIndex] = constant(0);
      out.imm = static_cast<int64_t>(sym->address) + op.value;
      return;
    case Symbol::Kind::FrameParam:
      fail(fmt::format("taking the address of call parameter '{}' is not supported", op.name));
    case Symbol::Kind::Function:
      fail(fmt::format("function addresses ('{}') are not supported (no indirect calls)", op.name));
    case Symbol::Kind::Register:
      break;
  }
  fail(fmt::format("'{}' is not a variable", op.name));
}

void DecodeState::branchTarget(const ptx::Operand& op) {
  if (op.kind != ptx::Operand::Kind::Symbol) fail("branch target must be a label");
  decoder.addLabelFixup(static_cast<uint32_t>(&out - program.code.data()), op.name, op);
}

uint32_t DecodeState::callSite(const ptx::Operand& returns, const ptx::Operand& callee,
                               const ptx::Operand& args) {
  if (callee.kind != ptx::Operand::Kind::Symbol)
    fail("indirect calls (through a register) are not supported");
  uint32_t fidx = decoder.functionIndexOf(callee.name);
  if (fidx == kNoSlot) fail(fmt::format("call to undeclared function '{}'", callee.name));
  const ptx::Function& target = program.module.functions[fidx];
  if (target.isEntry) fail(fmt::format("cannot call kernel entry '{}'", callee.name));
  decoder.noteCalled(callee.name);
  CallSite cs;
  cs.callee = fidx;  // module function index; the executor maps it to a FunctionInfo
  auto collect = [&](const ptx::Operand& list, std::vector<uint32_t>& offs,
                     std::vector<uint32_t>& sizes, size_t expected, const char* what) {
    if (list.elements.size() != expected)
      fail(fmt::format("call passes {} {}, '{}' takes {}", list.elements.size(), what,
                       callee.name, expected));
    for (const ptx::Operand& e : list.elements) {
      if (e.kind != ptx::Operand::Kind::Symbol)
        fail("call arguments must be .param variables");
      const Symbol* sym = decoder.lookup(e.name);
      if (!sym || sym->kind != Symbol::Kind::FrameParam)
        fail(fmt::format("'{}' is not a .param variable", e.name));
      offs.push_back(static_cast<uint32_t>(sym->address));
      sizes.push_back(sym->size);
    }
  };
  ptx::Operand none;
  none.kind = ptx::Operand::Kind::Vector;
  collect(returns.kind == ptx::Operand::Kind::Vector ? returns : none, cs.retOffsets, cs.retSizes,
          target.returns.size(), "return values");
  collect(args, cs.argOffsets, cs.argSizes, target.params.size(), "arguments");
  program.callSites.push_back(std::move(cs));
  return static_cast<uint32_t>(program.callSites.size() - 1);
}

// ------------------------------------------------------------------ Program
uint32_t Program::findEntry(const std::string& name) const {
  for (size_t i = 0; i < functions.size(); ++i)
    if (functions[i].isEntry && functions[i].name == name) return static_cast<uint32_t>(i);
  std::string available;
  for (const FunctionInfo& f : functions)
    if (f.isEntry) available += (available.empty() ? "" : ", ") + f.name;
  throw Error(ErrorKind::Launch, fmt::format("{}: no .entry named '{}' (entries: {})",
                                             module.fileName, name,
                                             available.empty() ? "none" : available));
}

std::string Program::describePc(uint32_t pc) const {
  if (pc >= code.size()) return fmt::format("pc {}", pc);
  const Instr& in = code[pc];
  // The statement's text: its first line, and the following ones up to the ';' for
  // statements compilers spread over several lines (nvcc's calls).
  std::string text;
  for (size_t line = in.ptxLine; line >= 1 && line <= module.sourceLines.size() && line < in.ptxLine + 8; ++line) {
    const std::string& src = module.sourceLines[line - 1];
    const size_t b = src.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    std::string part = src.substr(b);
    while (!part.empty() && (part.back() == ' ' || part.back() == '\t' || part.back() == '\r')) part.pop_back();
    if (!text.empty() && !part.empty() && text.back() != '(' && part != ")" && part != ");") text += ' ';
    text += part;
    if (part.find(';') != std::string::npos) break;
  }
  return fmt::format("pc {} ({}:{}: {})", pc, module.fileName, in.ptxLine, text);
}

Program decodeModule(ptx::Module module) { return Decoder(std::move(module)).run(); }

}  // namespace qgpu
