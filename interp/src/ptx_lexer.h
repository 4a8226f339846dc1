// PTX tokens. Identifiers keep their dots ("ld.global.u32", "%tid.x",
// ".reg"), so the parser splits opcodes and directives itself.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "qgpu/interp/ptx_ast.h"

namespace qgpu::ptx {

struct Token {
  enum class Kind { Identifier, Directive, Number, String, Punct, End };
  Kind kind = Kind::End;
  std::string text;
  SourceLoc loc;
  bool is(char c) const { return kind == Kind::Punct && text.size() == 1 && text[0] == c; }
};

/// Splits PTX into tokens; comments are dropped. Throws ErrorKind::Parse on a
/// character that cannot start a token or an unterminated comment/string.
std::vector<Token> tokenize(std::string_view text, const std::string& fileName);

}  // namespace qgpu::ptx
