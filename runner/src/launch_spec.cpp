// Launch specs (docs/launch-spec.md): parsing, validation, initialised launch buffers.
#include "qgpu/launch_spec.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/interp/address_space.h"
#include "qgpu/json_input.h"
#include "qgpu/result.h"

namespace qgpu {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const LaunchSpec& s, const std::string& what) {
  throw Error(ErrorKind::Input, fmt::format("{}: {}", s.file.string(), what));
}

ScalarType parseType(const LaunchSpec& s, const json& j, const std::string& where) {
  if (!j.is_string()) bad(s, fmt::format("{}: \"type\" must be a string", where));
  auto t = parseScalarType(j.get<std::string>());
  if (!t || *t == ScalarType::Pred || *t == ScalarType::F16x2 || *t == ScalarType::BF16)
    bad(s, fmt::format("{}: unknown element type \"{}\"", where, j.get<std::string>()));
  return *t;
}

Dim3 parseDim(const LaunchSpec& s, const json& j, const char* what) {
  if (!j.is_array() || j.empty() || j.size() > 3)
    bad(s, fmt::format("\"{}\" must be an array of 1 to 3 positive integers", what));
  uint32_t v[3] = {1, 1, 1};
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number_unsigned() || j[i].get<uint64_t>() == 0 || j[i].get<uint64_t>() > 0x7fffffffu)
      bad(s, fmt::format("\"{}\"[{}] must be a positive integer", what, i));
    v[i] = j[i].get<uint32_t>();
  }
  return {v[0], v[1], v[2]};
}

uint64_t maskFor(ScalarType t) {
  uint32_t b = scalarTypeBytes(t);
  return b >= 8 ? ~0ull : (1ull << (8 * b)) - 1;
}

uint64_t floatBitsOf(double d, ScalarType t) {
  switch (t) {
    case ScalarType::F32: return std::bit_cast<uint32_t>(static_cast<float>(d));
    case ScalarType::F64: return std::bit_cast<uint64_t>(d);
    default: {  // f16, nearest even via the exact double
      // Round to binary16 by scaling into the integer quantum.
      if (std::isnan(d)) return 0x7e00;
      uint16_t sign = std::signbit(d) ? 0x8000 : 0;
      double a = std::fabs(d);
      if (std::isinf(a)) return sign | 0x7c00;
      int e;
      std::frexp(a, &e);
      int q = std::max(e - 11, -24);
      double m = std::nearbyint(std::ldexp(a, -q));
      double v = std::ldexp(m, q);
      if (v > 65504.0) return sign | 0x7c00;
      if (v == 0) return sign;
      std::frexp(v, &e);
      int biased = e - 1 + 15;
      if (biased <= 0) return sign | static_cast<uint16_t>(std::ldexp(v, 24));
      return sign | static_cast<uint16_t>(biased << 10) |
             static_cast<uint16_t>(std::ldexp(v, 10 - (e - 1)) - 1024.0);
    }
  }
}

// One element value: number or string spelling ("0x..", "nan", "inf", "-inf", "-0").
uint64_t valueBits(const LaunchSpec& s, const json& v, ScalarType t, const std::string& where) {
  if (v.is_string()) {
    std::string str = v.get<std::string>();
    if (str.size() > 2 && str[0] == '0' && (str[1] == 'x' || str[1] == 'X')) {
      const std::optional<uint64_t> hex = parseHexBits(str);
      if (!hex) bad(s, fmt::format("{}: malformed hex value \"{}\" (0x and 1 to 16 hex digits)", where, str));
      const uint64_t bits = *hex;
      if (bits & ~maskFor(t)) bad(s, fmt::format("{}: \"{}\" does not fit .{}", where, str, scalarTypeName(t)));
      return bits;
    }
    if (!isFloat(t)) bad(s, fmt::format("{}: \"{}\" is only valid for float types", where, str));
    double d;
    if (str == "nan") d = std::numeric_limits<double>::quiet_NaN();
    else if (str == "inf") d = INFINITY;
    else if (str == "-inf") d = -INFINITY;
    else if (str == "-0") d = -0.0;
    else bad(s, fmt::format("{}: unknown value spelling \"{}\"", where, str));
    if (std::isnan(d)) return t == ScalarType::F32 ? 0x7fc00000u : t == ScalarType::F64 ? 0x7ff8000000000000ull : 0x7e00u;
    return floatBitsOf(d, t);
  }
  if (!v.is_number()) bad(s, fmt::format("{}: value must be a number or a string", where));
  if (isFloat(t)) return floatBitsOf(v.get<double>(), t);
  if (v.is_number_float()) bad(s, fmt::format("{}: {} is not an integer", where, v.dump()));
  // A decimal integer must be a value of the type: unsigned types take 0..2^n-1, signed ones
  // -2^(n-1)..2^(n-1)-1, bit types either (the hex spelling gives any bit pattern).
  const uint32_t bits = 8 * scalarTypeBytes(t);
  const bool bitType = t == ScalarType::B8 || t == ScalarType::B16 || t == ScalarType::B32 || t == ScalarType::B64;
  const uint64_t umax = maskFor(t);
  const int64_t smin = bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
  const uint64_t smax = umax >> 1;
  const bool fits = v.is_number_unsigned() ? v.get<uint64_t>() <= (isSigned(t) ? smax : umax)
                                           : !(!isSigned(t) && !bitType) && v.get<int64_t>() >= smin;
  if (!fits)
    bad(s, fmt::format("{}: {} is out of range for .{} (use a \"0x...\" bit pattern for raw bits)", where, v.dump(),
                       scalarTypeName(t)));
  if (v.is_number_unsigned()) return v.get<uint64_t>() & umax;
  return static_cast<uint64_t>(v.get<int64_t>()) & umax;
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void fillBuffer(const LaunchSpec& s, const ParamSpec& p, std::vector<uint8_t>& out) {
  const BufferSpec& b = p.buffer;
  const uint32_t eb = elementBytes(b.type);
  out.assign(b.count * eb, 0);
  auto put = [&](uint64_t i, uint64_t bits) { std::memcpy(out.data() + i * eb, &bits, eb); };
  const std::string where = fmt::format("param \"{}\" init", p.name);
  const json& init = b.init;
  if (init.is_null()) return;
  if (init.contains("values")) {
    const json& vals = init["values"];
    for (uint64_t i = 0; i < vals.size(); ++i)
      put(i, valueBits(s, vals[i], b.type, fmt::format("{}[{}]", where, i)));
  } else if (init.contains("fill")) {
    uint64_t bits = valueBits(s, init["fill"], b.type, where);
    for (uint64_t i = 0; i < b.count; ++i) put(i, bits);
  } else if (init.contains("iota")) {
    const json& io = init["iota"];
    if (!io.is_object() || !io.contains("start") || !io.contains("step") || !io["start"].is_number() ||
        !io["step"].is_number())
      bad(s, where + ": iota needs numeric \"start\" and \"step\"");
    for (uint64_t i = 0; i < b.count; ++i) {
      if (isFloat(b.type)) {
        put(i, floatBitsOf(io["start"].get<double>() + static_cast<double>(i) * io["step"].get<double>(), b.type));
      } else {
        if (io["start"].is_number_float() || io["step"].is_number_float())
          bad(s, where + ": integer iota needs integer start/step");
        uint64_t v = static_cast<uint64_t>(io["start"].get<int64_t>()) +
                     i * static_cast<uint64_t>(io["step"].get<int64_t>());
        put(i, v & maskFor(b.type));
      }
    }
  } else if (init.contains("random")) {
    const json& r = init["random"];
    if (!r.is_object() || !r.contains("seed") || !r.contains("min") || !r.contains("max") ||
        !r["seed"].is_number_unsigned() || !r["min"].is_number() || !r["max"].is_number())
      bad(s, where + ": random needs \"seed\" (unsigned), \"min\" and \"max\"");
    uint64_t state = r["seed"].get<uint64_t>();
    for (uint64_t i = 0; i < b.count; ++i) {
      uint64_t x = splitmix64(state);
      if (isFloat(b.type)) {
        double lo = r["min"].get<double>(), hi = r["max"].get<double>();
        if (!(hi >= lo)) bad(s, where + ": random max < min");
        double u = static_cast<double>(x >> 11) * 0x1p-53;
        put(i, floatBitsOf(lo + (hi - lo) * u, b.type));
      } else {
        if (r["min"].is_number_float() || r["max"].is_number_float())
          bad(s, where + ": integer random needs integer min/max");
        int64_t lo = r["min"].get<int64_t>(), hi = r["max"].get<int64_t>();
        if (hi < lo) bad(s, where + ": random max < min");
        uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
        uint64_t v = static_cast<uint64_t>(lo) + (span == 0 ? x : x % span);
        put(i, v & maskFor(b.type));
      }
    }
  } else if (init.contains("bits")) {
    const json& r = init["bits"];
    if (!r.is_object() || !r.contains("seed") || !r["seed"].is_number_unsigned())
      bad(s, where + ": bits needs an unsigned \"seed\"");
    uint64_t state = r["seed"].get<uint64_t>();
    for (uint64_t i = 0; i < b.count; ++i) put(i, splitmix64(state) & maskFor(b.type));
  }
}

}  // namespace

uint32_t elementBytes(ScalarType t) { return scalarTypeBytes(t); }

std::filesystem::path LaunchSpec::ptxPath(const std::string& flavour) const {
  auto it = ptx.find(flavour);
  if (it == ptx.end()) {
    std::string have;
    for (const auto& [k, v] : ptx) have += (have.empty() ? "" : ", ") + k;
    throw Error(ErrorKind::Input,
                fmt::format("{}: kernel '{}' has no '{}' PTX (has: {})", file.string(), name, flavour, have));
  }
  return dir / it->second;
}

std::vector<std::string> LaunchSpec::flavours() const {
  std::vector<std::string> out;
  if (ptx.count("nvcc")) out.push_back("nvcc");
  for (const auto& [k, v] : ptx)
    if (k != "nvcc") out.push_back(k);
  return out;
}

const ParamSpec& LaunchSpec::param(const std::string& pname) const {
  for (const ParamSpec& p : params)
    if (p.name == pname) return p;
  throw Error(ErrorKind::Input, fmt::format("{}: no parameter named '{}'", file.string(), pname));
}

LaunchSpec loadLaunchSpec(const std::filesystem::path& path) {
  LaunchSpec s;
  s.file = std::filesystem::is_directory(path) ? path / "launch.json" : path;
  s.dir = s.file.parent_path();
  const json j = readJsonFile(s.file, "launch spec");
  if (!j.is_object()) bad(s, "top level must be an object");
  static const char* kKnown[] = {"name", "description", "ptx", "entry", "grid", "block",
                                 "dynamic_shared_bytes", "params", "outputs", "budget", "model_dependent"};
  for (const auto& [k, v] : j.items())
    if (std::find(std::begin(kKnown), std::end(kKnown), k) == std::end(kKnown))
      bad(s, fmt::format("unknown field \"{}\"", k));
  auto str = [&](const char* key, bool required) -> std::string {
    if (!j.contains(key)) {
      if (required) bad(s, fmt::format("missing \"{}\"", key));
      return {};
    }
    if (!j[key].is_string()) bad(s, fmt::format("\"{}\" must be a string", key));
    return j[key].get<std::string>();
  };
  s.name = str("name", true);
  s.description = str("description", false);
  s.entry = str("entry", true);
  s.modelDependent = str("model_dependent", false);
  if (!j.contains("ptx") || !j["ptx"].is_object() || j["ptx"].empty())
    bad(s, "\"ptx\" must be an object mapping flavour to PTX file");
  for (const auto& [k, v] : j["ptx"].items()) {
    if (!v.is_string()) bad(s, fmt::format("ptx.{} must be a file name", k));
    if (k != "nvcc" && k != "clang") bad(s, fmt::format("unknown PTX flavour \"{}\" (nvcc, clang)", k));
    s.ptx[k] = v.get<std::string>();
  }
  if (!j.contains("grid")) bad(s, "missing \"grid\"");
  if (!j.contains("block")) bad(s, "missing \"block\"");
  s.grid = parseDim(s, j["grid"], "grid");
  s.block = parseDim(s, j["block"], "block");
  if (j.contains("dynamic_shared_bytes")) {
    if (!j["dynamic_shared_bytes"].is_number_unsigned()) bad(s, "\"dynamic_shared_bytes\" must be a non-negative integer");
    if (j["dynamic_shared_bytes"].get<uint64_t>() > kMaxSharedBytes)
      bad(s, fmt::format("\"dynamic_shared_bytes\" {} is more than the {} bytes of shared memory a block has",
                         j["dynamic_shared_bytes"].get<uint64_t>(), kMaxSharedBytes));
    s.dynamicSharedBytes = j["dynamic_shared_bytes"].get<uint32_t>();
  }
  if (!j.contains("params") || !j["params"].is_array()) bad(s, "\"params\" must be an array");
  uint64_t launchBytes = 0;
  for (size_t i = 0; i < j["params"].size(); ++i) {
    const json& pj = j["params"][i];
    std::string where = fmt::format("params[{}]", i);
    if (!pj.is_object() || !pj.contains("name") || !pj["name"].is_string())
      bad(s, where + ": needs a \"name\"");
    ParamSpec p;
    p.name = pj["name"].get<std::string>();
    where = fmt::format("param \"{}\"", p.name);
    for (const ParamSpec& q : s.params)
      if (q.name == p.name) bad(s, where + ": declared twice");
    bool hasBuffer = pj.contains("buffer"), hasScalar = pj.contains("scalar");
    if (hasBuffer == hasScalar) bad(s, where + ": needs exactly one of \"buffer\" or \"scalar\"");
    if (hasBuffer) {
      const json& b = pj["buffer"];
      if (!b.is_object() || !b.contains("type")) bad(s, where + ": buffer needs a \"type\"");
      p.isBuffer = true;
      p.buffer.type = parseType(s, b["type"], where);
      p.buffer.init = b.contains("init") ? b["init"] : json();
      const json& init = p.buffer.init;
      if (!init.is_null()) {
        if (!init.is_object() || init.size() != 1)
          bad(s, where + ": \"init\" must be one of values/fill/iota/random/bits");
        const std::string form = init.begin().key();
        if (form != "values" && form != "fill" && form != "iota" && form != "random" && form != "bits")
          bad(s, fmt::format("{}: unknown initialiser \"{}\"", where, form));
        if (form == "values" && !init["values"].is_array()) bad(s, where + ": \"values\" must be an array");
      }
      if (b.contains("count")) {
        if (!b["count"].is_number_unsigned() || b["count"].get<uint64_t>() == 0)
          bad(s, where + ": \"count\" must be a positive integer");
        p.buffer.count = b["count"].get<uint64_t>();
      } else if (init.is_object() && init.contains("values")) {
        p.buffer.count = init["values"].size();
      } else {
        bad(s, where + ": buffer needs a \"count\"");
      }
      if (init.is_object() && init.contains("values") && init["values"].size() > p.buffer.count)
        bad(s, fmt::format("{}: {} values for a buffer of {} elements", where, init["values"].size(), p.buffer.count));
      // Divided, not multiplied: count * element size may pass 2^64.
      if (p.buffer.count > kMaxBufferBytes / elementBytes(p.buffer.type))
        bad(s, fmt::format("{}: {} elements of .{} are more than the {} bytes a buffer may have (docs/limits.md)", where,
                           p.buffer.count, scalarTypeName(p.buffer.type), kMaxBufferBytes));
      launchBytes += p.buffer.count * elementBytes(p.buffer.type);
      if (launchBytes > kMaxLaunchBytes)
        bad(s, fmt::format("{}: the buffers so far total {} bytes, more than the {} bytes a launch may have "
                           "(docs/limits.md)", where, launchBytes, kMaxLaunchBytes));
    } else {
      const json& sc = pj["scalar"];
      if (!sc.is_object() || !sc.contains("type") || !sc.contains("value"))
        bad(s, where + ": scalar needs \"type\" and \"value\"");
      p.scalarType = parseType(s, sc["type"], where);
      p.scalarBits = valueBits(s, sc["value"], p.scalarType, where);
    }
    s.params.push_back(std::move(p));
  }
  if (!j.contains("outputs") || !j["outputs"].is_array() || j["outputs"].empty())
    bad(s, "\"outputs\" must be a non-empty array of buffer names");
  for (const json& o : j["outputs"]) {
    if (!o.is_string()) bad(s, "\"outputs\" entries must be strings");
    std::string out = o.get<std::string>();
    auto it = std::find_if(s.params.begin(), s.params.end(), [&](const ParamSpec& p) { return p.name == out; });
    if (it == s.params.end()) bad(s, fmt::format("output \"{}\" is not a parameter", out));
    if (!it->isBuffer) bad(s, fmt::format("output \"{}\" is a scalar, not a buffer", out));
    s.outputs.push_back(out);
  }
  if (j.contains("budget")) s.budget = j["budget"];
  // Validate initialisers now so errors surface at load time.
  for (const ParamSpec& p : s.params)
    if (p.isBuffer) {
      std::vector<uint8_t> scratch;
      fillBuffer(s, p, scratch);
    }
  return s;
}

Launch materializeLaunch(const LaunchSpec& spec) {
  Launch launch;
  launch.grid = spec.grid;
  launch.block = spec.block;
  launch.dynamicSharedBytes = spec.dynamicSharedBytes;
  for (const ParamSpec& p : spec.params) {
    LaunchArg arg;
    arg.name = p.name;
    if (p.isBuffer) {
      arg.kind = LaunchArg::Kind::Buffer;
      arg.buffer = static_cast<uint32_t>(launch.buffers.size());
      LaunchBuffer buf;
      buf.name = p.name;
      fillBuffer(spec, p, buf.data);
      launch.buffers.push_back(std::move(buf));
    } else {
      arg.kind = LaunchArg::Kind::Scalar;
      arg.scalarBits = p.scalarBits;
      arg.scalarBytes = elementBytes(p.scalarType);
    }
    launch.args.push_back(arg);
  }
  return launch;
}

}  // namespace qgpu
