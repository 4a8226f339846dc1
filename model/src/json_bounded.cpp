// JSON with a nesting limit (json_bounded.h).
#include "qgpu/model/json_bounded.h"

#include "qgpu/model/error.h"

namespace qgpu::model {
namespace {

nlohmann::json::parser_callback_t depthLimit(const std::string& origin) {
    return [origin](int level, nlohmann::json::parse_event_t event, nlohmann::json&) {
        if ((event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start) &&
            level >= kMaxJsonDepth)
            throw ModelError(origin + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (docs/limits.md)");
        return true;
    };
}

}  // namespace

nlohmann::json parseJsonBounded(const char* begin, const char* end, const std::string& origin) {
    return nlohmann::json::parse(begin, end, depthLimit(origin), /*allow_exceptions=*/false);
}

nlohmann::json parseJsonBounded(std::istream& in, const std::string& origin) {
    return nlohmann::json::parse(in, depthLimit(origin), /*allow_exceptions=*/false);
}

}  // namespace qgpu::model
