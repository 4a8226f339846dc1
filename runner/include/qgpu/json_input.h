// Parsing JSON inputs (launch specs, results, goldens, trace lines) within docs/limits.md:
// bounded nesting depth, no duplicated object keys, errors that name the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace qgpu {

/// Deepest nesting of arrays and objects accepted in any JSON input (docs/limits.md). The
/// formats need at most 6; the limit keeps every later copy and dump of the value shallow.
inline constexpr int kMaxJsonDepth = 64;

/// Parses `text`. Throws Error(ErrorKind::Input) "<source>: ..." for malformed JSON, nesting
/// deeper than kMaxJsonDepth, or an object that names a key twice (JSON leaves that
/// undefined; a silently kept last value is a wrong answer). `format` names what the text is
/// in the "malformed ..." message (e.g. "trace").
nlohmann::json parseJsonInput(std::string_view text, const std::string& source, const char* format = "JSON");

/// Reads (a regular file of at most kMaxJsonFileBytes, `what` names it in errors) and parses
/// `path`.
nlohmann::json readJsonFile(const std::filesystem::path& path, const std::string& what);

}  // namespace qgpu
