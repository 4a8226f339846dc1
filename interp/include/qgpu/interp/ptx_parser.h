// PTX front end: text -> syntax tree.
#pragma once

#include <string>
#include <string_view>

#include "qgpu/interp/ptx_ast.h"

namespace qgpu::ptx {

/// Parses PTX as emitted by nvcc 13 (PTX ISA 9.0) and clang/LLVM 14 (PTX 6.x).
/// Throws qgpu::Error(ErrorKind::Parse) naming file:line:column and the
/// offending text for anything it does not understand.
Module parseModule(std::string_view text, std::string fileName);

/// Reads and parses a PTX file (ErrorKind::Input if it cannot be read).
Module parseFile(const std::string& path);

}  // namespace qgpu::ptx
