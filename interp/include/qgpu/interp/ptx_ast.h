// The PTX syntax tree: what the front end read, before any meaning is given.
//
// Every node keeps its source location so that decoding errors, faults and the
// diff reporter can point at file:line:column. Instruction opcodes are kept as
// text split at '.', e.g. "ld.global.v2.f32" -> opcode "ld", modifiers
// {"global", "v2", "f32"}; the decoder assigns meaning.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace qgpu::ptx {

struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
};

enum class StateSpace { Reg, Sreg, Const, Global, Local, Param, Shared, Generic };
const char* stateSpaceName(StateSpace space);

/// One instruction operand as written.
struct Operand {
  enum class Kind {
    Register,   // %r1, %tid.x (name), or a predicate pair %r7|%p2 (name + pairName)
    Immediate,  // integer literal (value) or float literal (isFloat, floatBits/value)
    Symbol,     // variable, label or function name
    Address,    // [base+offset] where base is a register or symbol, or [imm]
    Vector,     // {a, b, ...} or (a, b, ...) in calls
    Sink,       // _
  };
  Kind kind = Kind::Immediate;
  std::string name;           // register or symbol name; Address: base ("" for [imm])
  std::string pairName;       // second half of a|b
  bool negated = false;       // !%p
  bool minus = false;         // -%r (vmad's operand negation; other decoders refuse it)
  int64_t value = 0;          // integer immediate or Address offset
  bool isFloat = false;       // float immediate
  bool floatIsDouble = true;  // 0d.. or decimal (double) vs 0f.. (single)
  uint64_t floatBits = 0;     // exact bits for 0f/0d; bits of the double for decimals
  bool parenthesised = false; // Vector written with ( )
  bool hasOffset = false;     // Symbol written name+off (off may be 0)
  bool isGeneric = false;     // generic(name) in an initialiser
  std::vector<Operand> elements;
  SourceLoc loc;
};

struct Instruction {
  std::string opcode;
  std::vector<std::string> modifiers;
  std::vector<Operand> operands;
  std::string guard;  // predicate register name, empty if unguarded
  bool guardNegated = false;
  SourceLoc loc;
  std::string text;  // the instruction as written, for messages
};

/// .reg declaration, possibly a range %r<17> (count = 17 => %r0..%r16).
struct RegisterDecl {
  std::string type;  // "pred", "b32", "f32", ...
  std::string name;
  uint32_t count = 0;  // 0: a single register called `name`
  uint32_t vectorWidth = 1;
  SourceLoc loc;
};

/// A state-space variable (.global/.const/.shared/.local/.param).
struct VariableDecl {
  StateSpace space = StateSpace::Global;
  std::string name;
  std::string type;  // element type, "b8", "u32", ...
  uint32_t align = 0;  // 0: natural alignment of the element type
  uint32_t vectorWidth = 1;
  std::vector<uint64_t> dims;  // array dimensions; a 0 dim means [] (unsized)
  bool isArray = false;
  bool isExtern = false;
  std::vector<Operand> initializer;  // flattened scalar initialisers
  bool hasInitializer = false;
  std::string pointerSpace;  // .ptr.<space> attribute of kernel params
  SourceLoc loc;
};

struct Statement {
  enum class Kind { Instruction, Label, Registers, Variable, BlockBegin, BlockEnd, Loc };
  Kind kind = Kind::Instruction;
  Instruction instruction;
  std::string label;
  RegisterDecl registers;
  VariableDecl variable;
  uint32_t locFile = 0, locLine = 0, locCol = 0;  // .loc
  SourceLoc loc;
};

struct Function {
  bool isEntry = false;
  bool isDeclarationOnly = false;
  std::string name;
  std::vector<VariableDecl> params;
  std::vector<VariableDecl> returns;
  std::vector<Statement> body;
  uint32_t maxntid[3] = {0, 0, 0};
  uint32_t reqntid[3] = {0, 0, 0};
  SourceLoc loc;
};

struct Module {
  std::string fileName;
  std::string version;  // "9.0"
  std::string target;   // "sm_75"
  uint32_t addressSize = 64;
  bool hasAddressSize = false;  // an .address_size directive was given
  std::vector<VariableDecl> globals;  // module-scope .global/.const/.shared
  std::vector<Function> functions;
  std::map<uint32_t, std::string> files;  // .file index -> path
  std::vector<std::string> sourceLines;   // the PTX text, for messages
};

}  // namespace qgpu::ptx
