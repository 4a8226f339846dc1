// Bounded JSON parsing: nesting depth and duplicate keys checked while parsing (json_input.h).
#include "qgpu/json_input.h"

#include <set>
#include <vector>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/interp/input_file.h"

namespace qgpu {

using nlohmann::json;

json parseJsonInput(std::string_view text, const std::string& source, const char* format) {
  // nlohmann's parser is iterative; the callback sees each container open (at the depth of
  // its parent) and each key, before anything recursive (copies, dumps) touches the value.
  std::vector<std::set<std::string>> keys;  // keys seen, per open object
  std::vector<bool> isObject;               // the open containers
  json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth + 1 > kMaxJsonDepth)
          throw Error(ErrorKind::Input, fmt::format("{}: JSON nested deeper than {} levels (docs/limits.md)",
                                                    source, kMaxJsonDepth));
        isObject.push_back(event == json::parse_event_t::object_start);
        if (isObject.back()) keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!isObject.empty()) {
          if (isObject.back()) keys.pop_back();
          isObject.pop_back();
        }
        break;
      case json::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
          throw Error(ErrorKind::Input, fmt::format("{}: duplicate key \"{}\" in one JSON object", source,
                                                    parsed.get<std::string>()));
        break;
      case json::parse_event_t::value: break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), check);
  } catch (const json::exception& e) {
    throw Error(ErrorKind::Input, fmt::format("{}: malformed {}: {}", source, format, e.what()));
  }
}

json readJsonFile(const std::filesystem::path& path, const std::string& what) {
  return parseJsonInput(readInputFile(path, what, kMaxJsonFileBytes), path.string());
}

}  // namespace qgpu
