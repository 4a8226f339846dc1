// The JSON documents the engine reads (config.json, safetensors headers, the shard index),
// parsed with a nesting limit: nlohmann's parser, copies and dumps recurse once per level,
// so a hostile file of deep brackets would overflow the stack (docs/limits.md).
#pragma once

#include <istream>
#include <nlohmann/json.hpp>
#include <string>

namespace qgpu::model {

constexpr int kMaxJsonDepth = 64;

/// Parses [begin, end) or a stream; a syntax error gives a discarded value (the caller names
/// it), nesting deeper than kMaxJsonDepth throws ModelError naming `origin`.
nlohmann::json parseJsonBounded(const char* begin, const char* end, const std::string& origin);
nlohmann::json parseJsonBounded(std::istream& in, const std::string& origin);

}  // namespace qgpu::model
