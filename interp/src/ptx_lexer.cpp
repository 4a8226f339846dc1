// The PTX lexer: source text to tokens with file:line:column.
#include "ptx_lexer.h"

#include <cctype>

#include <fmt/format.h>

#include "qgpu/interp/error.h"

namespace qgpu::ptx {
namespace {

bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
         c == '.';
}
// Identifiers may contain "::" (ld.param::entry) but a single ':' ends a label.
size_t scanIdentifier(std::string_view text, size_t i) {
  while (i < text.size()) {
    if (isIdentChar(text[i])) {
      ++i;
    } else if (text[i] == ':' && i + 1 < text.size() && text[i + 1] == ':') {
      i += 2;
    } else {
      break;
    }
  }
  return i;
}

}  // namespace

std::vector<Token> tokenize(std::string_view text, const std::string& fileName) {
  std::vector<Token> tokens;
  uint32_t line = 1;
  size_t lineStart = 0;
  size_t i = 0;
  auto here = [&](size_t pos) {
    return SourceLoc{line, static_cast<uint32_t>(pos - lineStart + 1)};
  };
  auto fail = [&](size_t pos, const std::string& what) {
    SourceLoc loc = here(pos);
    throw Error(ErrorKind::Parse, fmt::format("{}:{}:{}: {}", fileName, loc.line, loc.col, what));
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const SourceLoc open = here(i);  // before the comment's newlines move lineStart past it
      i += 2;
      while (i + 1 < text.size() && !(text[i] == '*' && text[i + 1] == '/')) {
        if (text[i] == '\n') {
          ++line;
          lineStart = i + 1;
        }
        ++i;
      }
      if (i + 1 >= text.size())
        throw Error(ErrorKind::Parse,
                    fmt::format("{}:{}:{}: unterminated /* comment", fileName, open.line, open.col));
      i += 2;
      continue;
    }
    Token tok;
    tok.loc = here(i);
    size_t start = i;
    if (c == '"') {
      ++i;
      while (i < text.size() && text[i] != '"' && text[i] != '\n') ++i;
      if (i >= text.size() || text[i] != '"') fail(start, "unterminated string");
      tok.kind = Token::Kind::String;
      tok.text = std::string(text.substr(start + 1, i - start - 1));
      ++i;
    } else if (c == '.' && i + 1 < text.size() && isIdentStart(text[i + 1])) {
      // Directives may be written without a space: ".reg.u64 x" is ".reg .u64 x"
      // (ptxas accepts it), so a directive token ends at the next '.'.
      ++i;
      while (i < text.size() && isIdentChar(text[i]) && text[i] != '.') ++i;
      tok.kind = Token::Kind::Directive;
      tok.text = std::string(text.substr(start, i - start));
    } else if (isIdentStart(c)) {
      i = scanIdentifier(text, i);
      tok.kind = Token::Kind::Identifier;
      tok.text = std::string(text.substr(start, i - start));
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      // 0x.., 0f../0d.. (exact float bits), decimal integers and decimal floats.
      if (c == '0' && i + 1 < text.size() &&
          (text[i + 1] == 'x' || text[i + 1] == 'X' || text[i + 1] == 'f' || text[i + 1] == 'F' ||
           text[i + 1] == 'd' || text[i + 1] == 'D')) {
        i += 2;
        while (i < text.size() && std::isxdigit(static_cast<unsigned char>(text[i]))) ++i;
      } else {
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        if (i < text.size() && text[i] == '.') {
          ++i;
          while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        }
        if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
          ++i;
          if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
          while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        }
      }
      if (i < text.size() && (text[i] == 'U' || text[i] == 'u')) ++i;
      if (i < text.size() && isIdentChar(text[i]) && text[i] != '.')
        fail(start, fmt::format("malformed number '{}'",
                                std::string(text.substr(start, i - start + 1))));
      tok.kind = Token::Kind::Number;
      tok.text = std::string(text.substr(start, i - start));
    } else if (std::string_view("{}()[];,:@!+-<>|=").find(c) != std::string_view::npos) {
      tok.kind = Token::Kind::Punct;
      tok.text = std::string(1, c);
      ++i;
    } else {
      fail(start, fmt::format("unexpected character '{}'", c));
    }
    tokens.push_back(std::move(tok));
  }
  Token end;
  end.kind = Token::Kind::End;
  end.loc = here(i);
  tokens.push_back(end);
  return tokens;
}

}  // namespace qgpu::ptx
