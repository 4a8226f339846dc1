// The one result format (qgpu-result-1): JSON reading and writing, element formatting.
#include "qgpu/result.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/json_input.h"

namespace qgpu {

using nlohmann::json;

uint64_t OutputBuffer::element(uint64_t i) const {
  uint32_t eb = scalarTypeBytes(type);
  uint64_t v = 0;
  std::memcpy(&v, bytes.data() + i * eb, eb);
  return v;
}

const OutputBuffer* RunResult::output(const std::string& name) const {
  for (const OutputBuffer& o : outputs)
    if (o.name == name) return &o;
  return nullptr;
}

std::string formatHex(ScalarType t, uint64_t bits) {
  return fmt::format("{:#0{}x}", bits, 2 + 2 * scalarTypeBytes(t));
}

std::optional<uint64_t> parseHexBits(std::string_view s) {
  if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
  uint64_t v = 0;
  for (char c : s.substr(2)) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

std::string formatElement(ScalarType t, uint64_t bits) {
  uint32_t b = scalarTypeBytes(t);
  std::string value;
  switch (t) {
    case ScalarType::F32: value = fmt::format("{}", std::bit_cast<float>(static_cast<uint32_t>(bits))); break;
    case ScalarType::F64: value = fmt::format("{}", std::bit_cast<double>(bits)); break;
    case ScalarType::F16: {
      uint16_t h = static_cast<uint16_t>(bits);
      int e = (h >> 10) & 0x1f, m = h & 0x3ff;
      double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(m + 1024, e - 25);
      value = fmt::format("{}", (h & 0x8000) ? -v : v);
      break;
    }
    case ScalarType::S8: case ScalarType::S16: case ScalarType::S32: case ScalarType::S64: {
      int64_t v = static_cast<int64_t>(bits << (64 - 8 * b)) >> (64 - 8 * b);
      value = fmt::format("{}", v);
      break;
    }
    default: value = fmt::format("{}", bits);
  }
  return fmt::format("{} ({})", value, formatHex(t, bits));
}

json resultToJson(const RunResult& r) {
  json outs = json::array();
  for (const OutputBuffer& o : r.outputs) {
    json bits = json::array();
    for (uint64_t i = 0; i < o.count; ++i) bits.push_back(formatHex(o.type, o.element(i)));
    outs.push_back({{"name", o.name}, {"type", scalarTypeName(o.type)}, {"count", o.count}, {"bits", bits}});
  }
  json j = {{"format", "qgpu-result-1"},
            {"kernel", r.kernel},
            {"backend", r.backend},
            {"flavour", r.flavour},
            {"warp_width", r.warpWidth},
            {"outputs", outs},
            {"provenance", r.provenance}};
  if (r.warpInstructions)
    j["stats"] = {{"warp_instructions", r.warpInstructions}, {"thread_instructions", r.threadInstructions}};
  return j;
}

RunResult resultFromJson(const json& j, const std::string& source) {
  auto bad = [&](const std::string& what) -> void {
    throw Error(ErrorKind::Input, fmt::format("{}: {}", source, what));
  };
  if (!j.is_object()) bad("not a JSON object");
  if (!j.contains("format") || j["format"] != "qgpu-result-1") bad("missing or unknown \"format\" (want qgpu-result-1)");
  RunResult r;
  // Every field is checked for its JSON type here, so that no raw json exception (which names
  // neither the file nor the field) escapes.
  auto string = [&](const json& obj, const char* key, const std::string& where) -> std::string {
    if (!obj.contains(key) || !obj[key].is_string()) bad(fmt::format("{}\"{}\" must be a string", where, key));
    return obj[key].get<std::string>();
  };
  auto counter = [&](const json& obj, const char* key, const std::string& where) -> uint64_t {
    if (!obj.contains(key)) return 0;
    if (!obj[key].is_number_unsigned())
      bad(fmt::format("{}\"{}\" must be a non-negative integer, got {}", where, key, obj[key].dump()));
    return obj[key].get<uint64_t>();
  };
  r.kernel = string(j, "kernel", "");
  r.backend = string(j, "backend", "");
  if (j.contains("flavour")) r.flavour = string(j, "flavour", "");
  if (j.contains("warp_width")) {
    const json& w = j["warp_width"];
    if (!w.is_number_unsigned() || w.get<uint64_t>() > 32)
      bad(fmt::format("\"warp_width\" must be an integer 0..32 (0: not a warp-level run), got {}", w.dump()));
    r.warpWidth = w.get<uint32_t>();
  }
  if (j.contains("provenance")) {
    if (!j["provenance"].is_object()) bad(fmt::format("\"provenance\" must be an object, got {}", j["provenance"].type_name()));
    r.provenance = j["provenance"];
  }
  if (j.contains("stats")) {
    if (!j["stats"].is_object()) bad("\"stats\" must be an object");
    r.warpInstructions = counter(j["stats"], "warp_instructions", "stats: ");
    r.threadInstructions = counter(j["stats"], "thread_instructions", "stats: ");
  }
  if (!j.contains("outputs") || !j["outputs"].is_array()) bad("\"outputs\" must be an array");
  for (const json& o : j["outputs"]) {
    if (!o.is_object()) bad("\"outputs\" entries must be objects");
    OutputBuffer b;
    b.name = string(o, "name", "output: ");
    const std::string where = fmt::format("output '{}': ", b.name);
    auto t = parseScalarType(string(o, "type", where));
    if (!t) bad(fmt::format("output '{}': unknown type", b.name));
    b.type = *t;
    if (!o.contains("count") || !o["count"].is_number_unsigned())
      bad(fmt::format("{}\"count\" must be a non-negative integer, got {}", where, o.value("count", json()).dump()));
    b.count = o["count"].get<uint64_t>();
    if (!o.contains("bits") || !o["bits"].is_array() || o["bits"].size() != b.count)
      bad(fmt::format("output '{}': {} bit patterns for count {}", b.name,
                      o.contains("bits") && o["bits"].is_array() ? o["bits"].size() : 0, b.count));
    const json& bits = o["bits"];
    uint32_t eb = scalarTypeBytes(b.type);
    b.bytes.assign(b.count * eb, 0);  // count = the number of patterns in the file: no overflow
    for (uint64_t i = 0; i < b.count; ++i) {
      if (!bits[i].is_string()) bad(fmt::format("output '{}'[{}]: {} is not a 0x bit pattern", b.name, i, bits[i].dump()));
      std::string s = bits[i].get<std::string>();
      if (s.size() < 3 || s[0] != '0' || s[1] != 'x') bad(fmt::format("output '{}'[{}]: \"{}\" is not a 0x bit pattern", b.name, i, s));
      const std::optional<uint64_t> parsed = parseHexBits(s);
      const uint64_t v = parsed.value_or(0);
      if (!parsed || (eb < 8 && (v >> (8 * eb))))
        bad(fmt::format("output '{}'[{}]: \"{}\" is not a valid .{} bit pattern", b.name, i, s, scalarTypeName(b.type)));
      std::memcpy(b.bytes.data() + i * eb, &v, eb);
    }
    r.outputs.push_back(std::move(b));
  }
  return r;
}

RunResult readResultFile(const std::filesystem::path& path) {
  return resultFromJson(readJsonFile(path, "result"), path.string());
}

void writeResultFile(const std::filesystem::path& path, const RunResult& r) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path);
  if (!out) throw Error(ErrorKind::Input, fmt::format("{}: cannot write", path.string()));
  out << resultToJson(r).dump(2) << "\n";
}

}  // namespace qgpu
