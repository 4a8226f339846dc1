// Recursive-descent parser for the PTX that nvcc 13 and clang 14 emit.
// Grammar subset: module directives, variables with initialisers, .entry and
// .func definitions/prototypes, and function bodies (register declarations,
// local variables, nested { } scopes, labels, guarded instructions, .loc).
#include "qgpu/interp/ptx_parser.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "ptx_lexer.h"
#include "qgpu/interp/error.h"
#include "qgpu/interp/input_file.h"

namespace qgpu::ptx {

const char* stateSpaceName(StateSpace space) {
  switch (space) {
    case StateSpace::Reg: return "reg";
    case StateSpace::Sreg: return "sreg";
    case StateSpace::Const: return "const";
    case StateSpace::Global: return "global";
    case StateSpace::Local: return "local";
    case StateSpace::Param: return "param";
    case StateSpace::Shared: return "shared";
    case StateSpace::Generic: return "generic";
  }
  return "?";
}

namespace {

bool isTypeName(std::string_view t) {
  static const char* kTypes[] = {"pred", "b8",  "b16", "b32", "b64", "b128", "u8",  "u16",
                                 "u32",  "u64", "s8",  "s16", "s32", "s64",  "f16", "f16x2",
                                 "bf16", "bf16x2", "f32", "f64", "tf32"};
  for (const char* k : kTypes)
    if (t == k) return true;
  return false;
}

std::vector<std::string> splitDots(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    parts.push_back(s.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

class Parser {
 public:
  Parser(std::string_view text, std::string fileName)
      : fileName_(std::move(fileName)), tokens_(tokenize(text, fileName_)) {
    module_.fileName = fileName_;
    std::string line;
    std::istringstream in{std::string(text)};
    while (std::getline(in, line)) module_.sourceLines.push_back(line);
  }

  Module parse() {
    while (!peek().kind_is(Token::Kind::End)) parseTopLevel();
    if (module_.version.empty()) failAt(peek(), "missing .version directive");
    if (module_.target.empty()) failAt(peek(), "missing .target directive");
    return std::move(module_);
  }

 private:
  // --- token helpers -------------------------------------------------------
  struct TokenRef {
    const Token& t;
    bool kind_is(Token::Kind k) const { return t.kind == k; }
  };
  TokenRef peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return {tokens_[i < tokens_.size() ? i : tokens_.size() - 1]};
  }
  const Token& cur() const { return tokens_[pos_]; }
  const Token& next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool accept(char c) {
    if (cur().is(c)) {
      next();
      return true;
    }
    return false;
  }
  bool acceptDirective(std::string_view d) {
    if (cur().kind == Token::Kind::Directive && cur().text == d) {
      next();
      return true;
    }
    return false;
  }
  [[noreturn]] void failAt(TokenRef t, const std::string& what) const { failAt(t.t, what); }
  [[noreturn]] void failAt(const Token& t, const std::string& what) const {
    std::string lineText;
    if (t.loc.line >= 1 && t.loc.line <= module_.sourceLines.size())
      lineText = module_.sourceLines[t.loc.line - 1];
    std::string shown = t.kind == Token::Kind::End ? "end of file" : "'" + t.text + "'";
    throw Error(ErrorKind::Parse, fmt::format("{}:{}:{}: {} (at {})\n    {}", fileName_, t.loc.line,
                                              t.loc.col, what, shown, lineText));
  }
  void expect(char c, const char* context) {
    if (!accept(c)) failAt(cur(), fmt::format("expected '{}' {}", c, context));
  }
  std::string expectIdentifier(const char* what) {
    if (cur().kind != Token::Kind::Identifier) failAt(cur(), fmt::format("expected {}", what));
    return next().text;
  }
  uint64_t expectUnsigned(const char* what) {
    if (cur().kind != Token::Kind::Number) failAt(cur(), fmt::format("expected {}", what));
    const Token& t = next();
    return parseIntegerText(t);
  }
  /// The N of `.align N`: a power of two below 2^32 (ptxas: "Constant overflow" past it,
  /// "Alignment must be a power of two" for 0 and the rest; a plain cast wrapped 2^32 to 0).
  uint32_t expectAlignment() {
    const size_t at = pos_;
    const uint64_t a = expectUnsigned("alignment");
    if (a > 0xffffffffu) failAt(tokens_[at], "constant overflow: an alignment must fit 32 bits");
    if (a == 0 || (a & (a - 1)) != 0) failAt(tokens_[at], fmt::format("alignment {} is not a power of two", a));
    return static_cast<uint32_t>(a);
  }
  uint64_t parseIntegerText(const Token& t) const {
    std::string s = t.text;
    if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.pop_back();
    errno = 0;
    char* end = nullptr;
    uint64_t v;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      v = std::strtoull(s.c_str() + 2, &end, 16);
    } else if (s.size() > 1 && s[0] == '0' && std::all_of(s.begin(), s.end(), ::isdigit)) {
      v = std::strtoull(s.c_str(), &end, 8);  // PTX octal literal
    } else {
      v = std::strtoull(s.c_str(), &end, 10);
    }
    if (errno != 0 || end == nullptr || *end != '\0')
      failAt(t, "malformed integer literal");
    return v;
  }

  // --- module level --------------------------------------------------------
  void parseTopLevel() {
    const Token& t = cur();
    if (t.kind != Token::Kind::Directive) failAt(t, "expected a directive at module scope");
    if (acceptDirective(".version")) {
      if (cur().kind != Token::Kind::Number) failAt(cur(), "expected version number");
      module_.version = next().text;
      return;
    }
    if (acceptDirective(".target")) {
      module_.target = expectIdentifier("target name");
      while (accept(',')) expectIdentifier("target option");
      return;
    }
    if (acceptDirective(".address_size")) {
      module_.addressSize = static_cast<uint32_t>(expectUnsigned("address size"));
      module_.hasAddressSize = true;
      if (module_.addressSize != 64) failAt(tokens_[pos_ - 1], "only .address_size 64 is supported");
      return;
    }
    if (acceptDirective(".file")) {
      uint32_t index = static_cast<uint32_t>(expectUnsigned("file index"));
      if (cur().kind != Token::Kind::String) failAt(cur(), "expected file name string");
      module_.files[index] = next().text;
      while (accept(',')) next();  // optional timestamp, size
      return;
    }
    if (acceptDirective(".section")) {
      // DWARF sections (nvcc -G) carry no semantics for execution; skip the block.
      next();
      expect('{', "after .section name");
      int depth = 1;
      while (depth > 0) {
        if (cur().kind == Token::Kind::End) failAt(cur(), "unterminated .section");
        if (cur().is('{')) ++depth;
        if (cur().is('}')) --depth;
        next();
      }
      return;
    }
    bool isExtern = false;
    while (cur().kind == Token::Kind::Directive &&
           (cur().text == ".visible" || cur().text == ".extern" || cur().text == ".weak" ||
            cur().text == ".common")) {
      if (cur().text == ".extern") isExtern = true;
      next();
    }
    if (acceptDirective(".entry")) return parseFunction(true, isExtern);
    if (acceptDirective(".func")) return parseFunction(false, isExtern);
    if (cur().kind == Token::Kind::Directive &&
        (cur().text == ".global" || cur().text == ".const" || cur().text == ".shared")) {
      VariableDecl v = parseVariable();
      v.isExtern = v.isExtern || isExtern;
      expect(';', "after variable declaration");
      module_.globals.push_back(std::move(v));
      return;
    }
    failAt(cur(), "unknown or unsupported module-level directive");
  }

  StateSpace spaceOf(const Token& t) {
    if (t.text == ".global") return StateSpace::Global;
    if (t.text == ".const") return StateSpace::Const;
    if (t.text == ".shared") return StateSpace::Shared;
    if (t.text == ".local") return StateSpace::Local;
    if (t.text == ".param") return StateSpace::Param;
    if (t.text == ".reg") return StateSpace::Reg;  // .func parameters only
    failAt(t, "expected a state space");
  }

  /// .space [.align N] [.ptr...] [.vN] .type name[dims] [= init]
  VariableDecl parseVariable() {
    VariableDecl v;
    v.loc = cur().loc;
    v.space = spaceOf(next());
    while (cur().kind == Token::Kind::Directive) {
      const std::string& d = cur().text;
      if (d == ".align") {
        next();
        v.align = expectAlignment();
      } else if (d == ".v2" || d == ".v4" || d == ".v8") {
        v.vectorWidth = static_cast<uint32_t>(d[2] - '0');
        next();
      } else if (d.rfind(".ptr", 0) == 0) {
        next();
        // .ptr .global .align 4 (space and alignment of the pointee: a hint)
        if (cur().kind == Token::Kind::Directive && cur().text != ".align" &&
            !isTypeName(cur().text.substr(1)))
          v.pointerSpace = next().text.substr(1);
        if (acceptDirective(".align")) expectAlignment();
      } else if (isTypeName(d.substr(1))) {
        v.type = d.substr(1);
        next();
      } else if (d == ".attribute") {
        next();
        expect('(', "after .attribute");
        while (!accept(')')) next();
      } else {
        failAt(cur(), "unexpected directive in variable declaration");
      }
    }
    if (v.type.empty()) failAt(cur(), "variable declaration without a type");
    v.name = expectIdentifier("variable name");
    while (accept('[')) {
      v.isArray = true;
      if (accept(']')) {
        v.dims.push_back(0);
        continue;
      }
      v.dims.push_back(expectUnsigned("array size"));
      expect(']', "after array size");
    }
    if (accept('=')) {
      v.hasInitializer = true;
      parseInitializer(v.initializer);
    }
    return v;
  }

  // Braces nest at most kMaxNesting deep in initialisers and operand lists (docs/limits.md):
  // the parser recurses per level.
  static constexpr int kMaxNesting = 64;
  struct NestingGuard {
    Parser& p;
    NestingGuard(Parser& parser, const char* what) : p(parser) {
      if (++p.nesting_ > kMaxNesting)
        p.failAt(p.cur(), fmt::format("{} nested deeper than {} levels", what, kMaxNesting));
    }
    ~NestingGuard() { --p.nesting_; }
  };

  void parseInitializer(std::vector<Operand>& out) {
    NestingGuard guard(*this, "initialiser");
    // generic(var): the generic address of a variable.
    if (cur().kind == Token::Kind::Identifier && cur().text == "generic" && peek(1).t.is('(')) {
      next();
      next();
      Operand op = parseScalarOperand();
      if (op.kind != Operand::Kind::Symbol) failAt(cur(), "generic() takes a variable name");
      op.isGeneric = true;
      expect(')', "closing generic(");
      out.push_back(std::move(op));
      return;
    }
    if (accept('{')) {
      if (accept('}')) return;
      do {
        parseInitializer(out);
      } while (accept(','));
      expect('}', "closing initializer list");
      return;
    }
    out.push_back(parseScalarOperand());
  }

  void parseParamList(std::vector<VariableDecl>& out) {
    expect('(', "opening parameter list");
    if (accept(')')) return;
    do {
      if (cur().kind != Token::Kind::Directive ||
          (cur().text != ".param" && cur().text != ".reg"))
        failAt(cur(), "expected .param or .reg in parameter list");
      out.push_back(parseVariable());
    } while (accept(','));
    expect(')', "closing parameter list");
  }

  void parseFunction(bool isEntry, bool isExtern) {
    Function f;
    f.isEntry = isEntry;
    f.loc = cur().loc;
    if (!isEntry && cur().is('(')) parseParamList(f.returns);
    f.name = expectIdentifier("function name");
    if (cur().is('(')) parseParamList(f.params);
    // Performance directives.
    while (cur().kind == Token::Kind::Directive) {
      const std::string d = next().text;
      if (d == ".maxntid" || d == ".reqntid") {
        uint32_t* dst = d == ".maxntid" ? f.maxntid : f.reqntid;
        dst[0] = static_cast<uint32_t>(expectUnsigned("thread count"));
        dst[1] = dst[2] = 1;
        for (int k = 1; k < 3 && accept(','); ++k)
          dst[k] = static_cast<uint32_t>(expectUnsigned("thread count"));
      } else if (d == ".minnctapersm" || d == ".maxnreg" || d == ".maxnctapersm") {
        expectUnsigned("count");
      } else if (d == ".noreturn") {
      } else if (d == ".pragma") {
        if (cur().kind != Token::Kind::String) failAt(cur(), "expected pragma string");
        next();
        expect(';', "after .pragma");
      } else {
        failAt(tokens_[pos_ - 1], "unknown function directive");
      }
    }
    if (accept(';') || isExtern) {
      f.isDeclarationOnly = true;
      module_.functions.push_back(std::move(f));
      return;
    }
    expect('{', "opening function body");
    parseBody(f.body);
    module_.functions.push_back(std::move(f));
  }

  // --- function bodies -----------------------------------------------------
  void parseBody(std::vector<Statement>& body) {
    int depth = 1;
    while (depth > 0) {
      const Token& t = cur();
      if (t.kind == Token::Kind::End) failAt(t, "unterminated function body");
      Statement s;
      s.loc = t.loc;
      if (accept('{')) {
        ++depth;
        s.kind = Statement::Kind::BlockBegin;
        body.push_back(std::move(s));
        continue;
      }
      if (accept('}')) {
        --depth;
        if (depth > 0) {
          s.kind = Statement::Kind::BlockEnd;
          body.push_back(std::move(s));
        }
        continue;
      }
      if (t.kind == Token::Kind::Directive) {
        if (t.text == ".reg") {
          parseRegisterDecls(body);
          continue;
        }
        if (t.text == ".loc") {
          next();
          s.kind = Statement::Kind::Loc;
          s.locFile = static_cast<uint32_t>(expectUnsigned("file index"));
          s.locLine = static_cast<uint32_t>(expectUnsigned("line"));
          s.locCol = static_cast<uint32_t>(expectUnsigned("column"));
          // Optional ", function_name ..., inlined_at ..." tail.
          while (accept(',')) {
            while (cur().kind != Token::Kind::End && !cur().is(',') &&
                   cur().loc.line == s.loc.line)
              next();
          }
          body.push_back(std::move(s));
          continue;
        }
        if (t.text == ".pragma") {
          next();
          if (cur().kind != Token::Kind::String) failAt(cur(), "expected pragma string");
          next();
          expect(';', "after .pragma");
          continue;
        }
        if (t.text == ".local" || t.text == ".shared" || t.text == ".param" ||
            t.text == ".const" || t.text == ".global") {
          s.kind = Statement::Kind::Variable;
          s.variable = parseVariable();
          expect(';', "after variable declaration");
          body.push_back(std::move(s));
          continue;
        }
        failAt(t, "unknown directive in function body");
      }
      if (t.kind == Token::Kind::Identifier && peek(1).t.is(':')) {
        s.kind = Statement::Kind::Label;
        s.label = next().text;
        next();
        body.push_back(std::move(s));
        continue;
      }
      s.kind = Statement::Kind::Instruction;
      s.instruction = parseInstruction();
      body.push_back(std::move(s));
    }
  }

  void parseRegisterDecls(std::vector<Statement>& body) {
    SourceLoc loc = next().loc;  // .reg
    uint32_t vectorWidth = 1;
    if (cur().kind == Token::Kind::Directive &&
        (cur().text == ".v2" || cur().text == ".v4")) {
      vectorWidth = static_cast<uint32_t>(cur().text[2] - '0');
      next();
    }
    if (cur().kind != Token::Kind::Directive || !isTypeName(cur().text.substr(1)))
      failAt(cur(), "expected register type");
    std::string type = next().text.substr(1);
    do {
      Statement s;
      s.kind = Statement::Kind::Registers;
      s.loc = cur().loc;
      s.registers.loc = cur().loc;
      s.registers.type = type;
      s.registers.vectorWidth = vectorWidth;
      s.registers.name = expectIdentifier("register name");
      if (accept('<')) {
        const uint64_t count = expectUnsigned("register count");
        if (count > 0xffffffffu) failAt(tokens_[pos_ - 1], "constant overflow: a register count must fit 32 bits");
        s.registers.count = static_cast<uint32_t>(count);
        expect('>', "closing register range");
      }
      body.push_back(std::move(s));
    } while (accept(','));
    (void)loc;
    expect(';', "after register declaration");
  }

  Instruction parseInstruction() {
    Instruction in;
    in.loc = cur().loc;
    size_t firstTok = pos_;
    if (accept('@')) {
      in.guardNegated = accept('!');
      in.guard = expectIdentifier("guard predicate");
    }
    if (cur().kind != Token::Kind::Identifier) failAt(cur(), "expected an instruction");
    const Token& opTok = next();
    std::vector<std::string> parts = splitDots(opTok.text);
    in.opcode = parts[0];
    for (size_t k = 1; k < parts.size(); ++k) {
      if (parts[k].empty()) failAt(opTok, "empty instruction modifier");
      in.modifiers.push_back(parts[k]);
    }
    // Some modifiers may be tokenised separately (e.g. "setp.lt.s32" never is,
    // but a directive-like ".uni" after a space would be); accept them.
    while (cur().kind == Token::Kind::Directive) in.modifiers.push_back(next().text.substr(1));
    if (cur().is('}') || cur().kind == Token::Kind::End || cur().kind == Token::Kind::Directive)
      failAt(cur(), "expected ';' after the instruction");
    if (!cur().is(';')) {
      do {
        in.operands.push_back(parseOperand());
      } while (accept(','));
    }
    if (!cur().is(';')) failAt(cur(), "expected ',' or ';' after operand");
    size_t lastTok = pos_;
    next();
    // Reconstruct the instruction text from the source line for messages.
    const Token& a = tokens_[firstTok];
    const Token& b = tokens_[lastTok];
    if (a.loc.line == b.loc.line && a.loc.line <= module_.sourceLines.size())
      in.text = module_.sourceLines[a.loc.line - 1].substr(a.loc.col - 1, b.loc.col - a.loc.col + 1);
    else
      in.text = opTok.text;
    return in;
  }

  Operand parseOperand() {
    NestingGuard guard(*this, "operand list");
    Operand op;
    op.loc = cur().loc;
    if (accept('[')) {
      op.kind = Operand::Kind::Address;
      if (cur().kind == Token::Kind::Identifier) {
        op.name = next().text;
        if (accept('+')) {
          op.value = parseSignedInteger();
        } else if (cur().is('-')) {
          op.value = parseSignedInteger();
        }
      } else {
        op.value = parseSignedInteger();
      }
      expect(']', "closing address");
      return op;
    }
    if (cur().is('{') || cur().is('(')) {
      char close = cur().is('{') ? '}' : ')';
      op.parenthesised = close == ')';
      next();
      op.kind = Operand::Kind::Vector;
      if (!accept(close)) {
        do {
          op.elements.push_back(parseOperand());
        } while (accept(','));
        if (!accept(close)) failAt(cur(), fmt::format("expected '{}' closing operand list", close));
      }
      return op;
    }
    if (accept('!')) {
      if (cur().is('!')) failAt(cur(), "a predicate is negated with one '!'");
      Operand inner = parseScalarOperand();
      // A bare identifier (Symbol) may name a predicate register too; the decoder decides.
      if (inner.kind != Operand::Kind::Register &&
          !(inner.kind == Operand::Kind::Symbol && inner.value == 0))
        failAt(cur(), "'!' applies only to predicates");
      inner.negated = true;
      inner.loc = op.loc;
      return inner;
    }
    return parseScalarOperand();
  }

  int64_t parseSignedInteger() {
    bool neg = false;
    while (cur().is('-') || cur().is('+')) {
      if (next().text[0] == '-') neg = !neg;
    }
    if (cur().kind != Token::Kind::Number) failAt(cur(), "expected integer");
    const Token& t = next();
    uint64_t v = parseIntegerText(t);
    return neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  }

  Operand parseScalarOperand() {
    Operand op;
    op.loc = cur().loc;
    if (cur().kind == Token::Kind::Identifier) {
      std::string name = next().text;
      if (name == "_") {
        op.kind = Operand::Kind::Sink;
        return op;
      }
      if (name[0] == '%') {
        op.kind = Operand::Kind::Register;
        op.name = name;
        if (accept('|')) op.pairName = expectIdentifier("predicate after '|'");
        return op;
      }
      if (name == "WARP_SZ") {
        op.kind = Operand::Kind::Register;  // resolved by the decoder to the warp width
        op.name = name;
        return op;
      }
      op.kind = Operand::Kind::Symbol;
      op.name = name;
      // A register pair written with a bare register name (r|p); the decoder checks
      // that both name registers.
      if (accept('|')) {
        op.kind = Operand::Kind::Register;
        op.pairName = expectIdentifier("predicate after '|'");
        return op;
      }
      // sym+off (also reg+off outside brackets: the decoder adds it); ptxas has no
      // sym-off outside brackets.
      if (cur().is('+')) {
        op.value = parseSignedInteger();
        op.hasOffset = true;
      }
      return op;
    }
    bool neg = false;
    while (cur().is('-') || cur().is('+')) {
      if (next().text[0] == '-') neg = !neg;
    }
    if (cur().kind == Token::Kind::Identifier && neg) {  // -%r: a negated register (vmad)
      Operand inner = parseScalarOperand();
      if (inner.kind != Operand::Kind::Register && inner.kind != Operand::Kind::Symbol)
        failAt(cur(), "'-' applies only to registers and numbers");
      inner.minus = true;
      inner.loc = op.loc;
      return inner;
    }
    if (cur().kind != Token::Kind::Number) failAt(cur(), "expected an operand");
    const Token& t = next();
    op.kind = Operand::Kind::Immediate;
    const std::string& s = t.text;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
      bool single = s[1] == 'f' || s[1] == 'F';
      size_t digits = s.size() - 2;
      if (digits != (single ? 8u : 16u))
        failAt(t, fmt::format("hex float literal needs {} hex digits", single ? 8 : 16));
      op.isFloat = true;
      op.floatIsDouble = !single;
      op.floatBits = std::strtoull(s.c_str() + 2, nullptr, 16);
      if (neg) op.floatBits ^= single ? 0x80000000ull : 0x8000000000000000ull;
      return op;
    }
    bool isDecimalFloat = s.find('.') != std::string::npos ||
                          (s.find_first_of("eE") != std::string::npos && s[1] != 'x' && s[1] != 'X');
    if (isDecimalFloat) {
      op.isFloat = true;
      op.floatIsDouble = true;
      errno = 0;
      double d = std::strtod(s.c_str(), nullptr);
      if (errno == ERANGE && (std::isinf(d) || d == 0))
        failAt(t, "constant overflow: the literal is outside the range of .f64");
      if (neg) d = -d;
      op.floatBits = std::bit_cast<uint64_t>(d);
      return op;
    }
    uint64_t v = parseIntegerText(t);
    op.value = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    return op;
  }

  std::string fileName_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int nesting_ = 0;  // open NestingGuards
  Module module_;
};

}  // namespace

Module parseModule(std::string_view text, std::string fileName) {
  return Parser(text, std::move(fileName)).parse();
}

Module parseFile(const std::string& path) {
  return parseModule(readInputFile(path, "PTX file", kMaxPtxFileBytes), path);
}

}  // namespace qgpu::ptx
