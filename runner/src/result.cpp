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
  try {
    r.kernel = j.at("kernel").get<std::string>();
    r.backend = j.at("backend").get<std::string>();
    r.flavour = j.value("flavour", "");
    r.warpWidth = j.value("warp_width", 0u);
    if (j.contains("provenance")) r.provenance = j["provenance"];
    if (j.contains("stats")) {
      r.warpInstructions = j["stats"].value("warp_instructions", uint64_t{0});
      r.threadInstructions = j["stats"].value("thread_instructions", uint64_t{0});
    }
    const json& outs = j.at("outputs");
    if (!outs.is_array()) bad("\"outputs\" must be an array");
    for (const json& o : outs) {
      OutputBuffer b;
      b.name = o.at("name").get<std::string>();
      auto t = parseScalarType(o.at("type").get<std::string>());
      if (!t) bad(fmt::format("output '{}': unknown type", b.name));
      b.type = *t;
      b.count = o.at("count").get<uint64_t>();
      const json& bits = o.at("bits");
      if (!bits.is_array() || bits.size() != b.count)
        bad(fmt::format("output '{}': {} bit patterns for count {}", b.name, bits.is_array() ? bits.size() : 0, b.count));
      uint32_t eb = scalarTypeBytes(b.type);
      b.bytes.assign(b.count * eb, 0);
      for (uint64_t i = 0; i < b.count; ++i) {
        std::string s = bits[i].get<std::string>();
        if (s.size() < 3 || s[0] != '0' || s[1] != 'x') bad(fmt::format("output '{}'[{}]: \"{}\" is not a 0x bit pattern", b.name, i, s));
        char* end = nullptr;
        errno = 0;
        uint64_t v = std::strtoull(s.c_str() + 2, &end, 16);
        if (errno || *end || (eb < 8 && (v >> (8 * eb))))
          bad(fmt::format("output '{}'[{}]: \"{}\" is not a valid .{} bit pattern", b.name, i, s, scalarTypeName(b.type)));
        std::memcpy(b.bytes.data() + i * eb, &v, eb);
      }
      r.outputs.push_back(std::move(b));
    }
  } catch (const json::exception& e) {
    bad(fmt::format("malformed result: {}", e.what()));
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
