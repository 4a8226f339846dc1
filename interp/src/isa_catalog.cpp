// The rows of ptx_isa.def as data: opcode names and lookup, the decoder of each opcode, and
// qgpu coverage's catalogue of candidate forms with the check that the decoder accepts one.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "decode_state.h"
#include "qgpu/interp/error.h"
#include "qgpu/interp/isa.h"
#include "qgpu/interp/ptx_parser.h"

namespace qgpu {

namespace {

constexpr IsaRow kRows[] = {
#define QGPU_PTX_OP(Enum, mnemonic, ptx, sm, decoder, example) {Opcode::Enum, mnemonic, ptx, sm, example},
#define QGPU_PTX_MISSING(mnemonic, ptx, sm) {Opcode::None, mnemonic, ptx, sm, ""},
#include "qgpu/interp/ptx_isa.def"
};

constexpr OpDecoder kDecoders[] = {
    nullptr,
#define QGPU_PTX_OP(Enum, mnemonic, ptx, sm, decoder, example) &decoder,
#include "qgpu/interp/ptx_isa.def"
};
static_assert(std::size(kDecoders) == static_cast<size_t>(Opcode::Count));

struct ModRow {
  const char* spelling;
  bool hint;
};
constexpr ModRow kMods[] = {
#define QGPU_PTX_MOD(Enum, spelling, hint) {spelling, hint},
#include "qgpu/interp/ptx_isa.def"
};
static_assert(std::size(kMods) == static_cast<size_t>(Mod::Count));

const std::map<std::string, Opcode, std::less<>>& opcodeIndex() {
  static const auto index = [] {
    std::map<std::string, Opcode, std::less<>> m;
    for (const IsaRow& r : kRows)
      if (r.opcode != Opcode::None) m.emplace(r.mnemonic, r.opcode);
    return m;
  }();
  return index;
}

std::vector<std::string> words(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string w;
  while (std::getline(ss, w, sep))
    if (!w.empty() || sep != ' ') out.push_back(w);
  return out;
}

}  // namespace

std::span<const IsaRow> isaRows() { return kRows; }

const char* opcodeName(Opcode op) {
  const size_t i = static_cast<size_t>(op);
  return op == Opcode::None || op >= Opcode::Count ? "" : kRows[i - 1].mnemonic;
}

std::optional<Opcode> findOpcode(std::string_view mnemonic) {
  const auto& index = opcodeIndex();
  auto it = index.find(mnemonic);
  if (it == index.end()) return std::nullopt;
  return it->second;
}

std::optional<Mod> findMod(std::string_view spelling) {
  static const auto index = [] {
    std::map<std::string, Mod, std::less<>> m;
    for (size_t i = 0; i < std::size(kMods); ++i) m.emplace(kMods[i].spelling, static_cast<Mod>(i));
    return m;
  }();
  auto it = index.find(spelling);
  if (it == index.end()) return std::nullopt;
  return it->second;
}

const char* modName(Mod m) { return m < Mod::Count ? kMods[static_cast<size_t>(m)].spelling : ""; }

ModSet memoryHintMods() {
  ModSet out;
  for (size_t i = 0; i < std::size(kMods); ++i)
    if (kMods[i].hint) out.set(static_cast<Mod>(i));
  return out;
}

bool setSpelling(Instr& in, std::string_view spelling) {
  std::vector<std::string> parts = words(std::string(spelling), '.');
  bool all = true;
  in.opcode = Opcode::None;
  in.typeCount = 0;
  in.mods = {};
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i == 0) {
      auto op = findOpcode(parts[0]);
      in.opcode = op ? *op : Opcode::None;
      all = all && op.has_value();
    } else if (auto t = parseScalarType(parts[i]); t && in.typeCount < 3) {
      in.types[in.typeCount++] = *t;
    } else if (auto m = findMod(parts[i])) {
      in.mods.set(*m);
    } else {
      all = false;
    }
  }
  return all;
}

OpDecoder opcodeDecoder(Opcode op) { return kDecoders[static_cast<size_t>(op)]; }

bool needsFullWarp(Opcode op) { return op == Opcode::Mma || op == Opcode::Ldmatrix; }

std::vector<std::string> supportedOpcodes() {
  std::vector<std::string> out;
  for (const auto& [name, op] : opcodeIndex()) out.push_back(name);
  return out;  // std::map: already sorted
}

std::vector<std::string> unsupportedOpcodes() {
  std::vector<std::string> out;
  for (const IsaRow& r : kRows)
    if (r.opcode == Opcode::None) out.push_back(r.mnemonic);
  std::sort(out.begin(), out.end());
  return out;
}

// ------------------------------------------------------------------ the catalogue
std::vector<FormFamily> formFamilies() {
  std::vector<FormFamily> out;
#define QGPU_PTX_FORMS(mnemonics, pattern) out.push_back({words(mnemonics, ' '), pattern});
#include "qgpu/interp/ptx_isa.def"
  return out;
}

std::vector<std::string> expandForms(const FormFamily& family) {
  static const std::map<std::string, std::string> kSets = {
#define QGPU_PTX_SET(name, alternatives) {#name, alternatives},
#include "qgpu/interp/ptx_isa.def"
  };
  // One group per word: its alternatives, "" first when the group is optional.
  std::vector<std::vector<std::string>> groups;
  for (std::string w : words(family.pattern, ' ')) {
    std::vector<std::string> alts;
    const bool optional = w.size() > 2 && w.front() == '[' && w.back() == ']';
    if (optional) {
      alts.push_back("");
      w = w.substr(1, w.size() - 2);
    }
    for (const std::string& a : words(w, '|')) {
      if (a.empty() || a[0] != '$') {
        alts.push_back(a);
        continue;
      }
      auto set = kSets.find(a.substr(1));
      if (set == kSets.end()) throw Error(ErrorKind::Input, "ptx_isa.def: unknown set " + a);
      for (const std::string& s : words(set->second, '|')) alts.push_back(s);
    }
    groups.push_back(std::move(alts));
  }
  std::vector<std::string> out;
  for (const std::string& op : family.mnemonics) {
    std::vector<std::string> cur = {op};
    for (const auto& g : groups) {
      std::vector<std::string> next;
      for (const auto& c : cur)
        for (const auto& m : g) next.push_back(m.empty() ? c : c + "." + m);
      cur = std::move(next);
    }
    out.insert(out.end(), cur.begin(), cur.end());
  }
  return out;
}

namespace {

int typeBytes(const std::string& t) {
  if (t == "pred") return 0;
  if (t == "e4m3x2" || t == "e5m2x2") return 2;  // cvt's fp8 pairs live in .b16 registers
  if (t == "f16x2" || t == "bf16x2") return 4;
  int bits = std::stoi(t.substr(t[0] == 'b' && t.size() > 1 && t[1] == 'f' ? 2 : 1));
  return std::max(2, bits / 8);
}
std::string regOf(int bytes, int i) {
  return (bytes == 0 ? "%p" : bytes == 2 ? "%h" : bytes == 4 ? "%r" : "%rd") + std::to_string(i);
}
bool isTypeName(const std::string& s) {
  static const std::set<std::string> t = {"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16", "b32",
                                          "b64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred",
                                          "e4m3x2", "e5m2x2"};
  return t.count(s) > 0;
}

}  // namespace

bool decodesInKernel(const std::string& body) {
  std::string text =
      ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
      ".reg .pred %p<6>;\n.reg .b16 %h<6>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<6>;\n" +
      body + "\nret;\n}\n";
  try {
    decodeModule(ptx::parseModule(text, "coverage.ptx"));
    return true;
  } catch (const Error&) {
    return false;
  }
}

bool formAccepted(const std::string& form) {
  std::vector<std::string> parts = words(form, '.');
  // The operand shapes of the instructions with {...} fragments or two addresses.
  std::vector<std::string> special;
  if (parts.empty()) return false;
  if (parts[0] == "cp") special = {form + ";", form + " 0;", form + " [%r1], [%rd1], 16;"};
  if (parts[0] == "ldmatrix")
    special = {form + " {%r1}, [%r2];", form + " {%r1, %r2}, [%r3];", form + " {%r1, %r2, %r3, %r4}, [%r5];"};
  if (parts[0] == "mma") {
    const std::string q = "{%r0, %r1, %r2, %r3}", h = "{%r4, %r5}";
    special = {form + " " + q + ", " + q + ", " + h + ", " + q + ";",               // A 4, B 2 registers
               form + " " + q + ", " + h + ", {%r4}, " + q + ";",                   // A 2, B 1
               form + " {%r0, %r1}, {%r2}, {%r3}, {%r4, %r5};"};                    // m8n8k16
  }
  for (const auto& s : special)
    if (decodesInKernel(s)) return true;
  std::vector<std::string> types;
  for (const auto& p : parts)
    if (isTypeName(p)) types.push_back(p);
  if (types.empty()) return false;
  int first = typeBytes(types.front()), last = typeBytes(types.back());
  std::vector<std::string> shapes;
  auto regs = [&](int dst, std::vector<int> srcs, const std::string& tail = "") {
    std::string s = form + " " + regOf(dst, 4);
    int i = 1;
    for (int b : srcs) s += ", " + regOf(b, i++);
    return s + tail + ";";
  };
  for (int n = 1; n <= 3; ++n) shapes.push_back(regs(first, std::vector<int>(n, last)));
  shapes.push_back(regs(0, {last, last}));                 // setp
  shapes.push_back(regs(0, {last}));                      // testp
  shapes.push_back(regs(first, {last, 4}));               // shifts
  shapes.push_back(regs(first, {last, 4, 4}));            // bfe
  shapes.push_back(regs(first, {last, last, 4, 4}));      // bfi
  shapes.push_back(regs(4, {last}));                      // bfind/popc/clz
  shapes.push_back(regs(4, {last, 4}));                   // match.sync.b64 (a 32-bit lane mask)
  shapes.push_back(regs(first * 2, {last, last}));        // mul.wide
  shapes.push_back(regs(first * 2, {last, last, first * 2}));  // mad.wide
  shapes.push_back(regs(first, {last, last, last}, ", 0x96"));  // lop3
  shapes.push_back(regs(4, {last, last}));                // cvt.pack.sat.u16.s32
  shapes.push_back(regs(4, {last, last, last}));          // cvt.pack.sat.u8.s32.b32
  for (const auto& s : shapes)
    if (decodesInKernel(s)) return true;
  return false;
}

}  // namespace qgpu
