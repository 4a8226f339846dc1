// The backend registry, and what every backend shares: output collection and the cache of
// decoded programs.
#include "qgpu/backend.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/interp/ptx_parser.h"

namespace qgpu {

namespace {

std::map<std::string, BackendInfo>& registry() {
  static std::map<std::string, BackendInfo> backends;
  return backends;
}

}  // namespace

const char* provenanceKindName(ProvenanceKind kind) {
  switch (kind) {
    case ProvenanceKind::Interpreter: return "interpreter";
    case ProvenanceKind::HostReference: return "host reference";
    case ProvenanceKind::Hardware: return "hardware";
    case ProvenanceKind::Model: return "model";
  }
  return "?";
}

bool registerBackend(BackendInfo info) {
  std::string name = info.name;
  if (!registry().emplace(name, std::move(info)).second)
    throw std::logic_error(fmt::format("backend '{}' registered twice", name));
  return true;
}

std::vector<const BackendInfo*> registeredBackends() {
  std::vector<const BackendInfo*> out;
  for (const auto& [name, info] : registry()) out.push_back(&info);
  return out;
}

const BackendInfo* findBackend(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<std::string> backendNames(const std::function<bool(const BackendInfo&)>& has) {
  std::vector<std::string> names;
  for (const BackendInfo* b : registeredBackends())
    if (!has || has(*b)) names.push_back(b->name);
  return names;
}

std::string joinBackendNames(const std::vector<std::string>& names, const char* last) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? last : ", ") + names[i];
  return s;
}

const BackendInfo& backendInfo(const std::string& name) {
  if (const BackendInfo* b = findBackend(name)) return *b;
  throw Error(ErrorKind::Input, fmt::format("unknown backend '{}' ({})", name, joinBackendNames(backendNames(), ", ")));
}

std::unique_ptr<Backend> makeBackend(const std::string& name) { return backendInfo(name).make(); }

bool producedBy(const RunResult& r, ProvenanceKind kind) {
  const BackendInfo* b = findBackend(r.backend);
  if (kind == ProvenanceKind::Hardware && fromStandInDriver(r)) return false;
  return b && b->provenance == kind;
}

bool fromStandInDriver(const RunResult& r) { return r.provenance.contains("stand_in"); }

std::vector<OutputBuffer> collectOutputs(const LaunchSpec& spec, const Launch& launch) {
  std::vector<OutputBuffer> outs;
  for (const std::string& name : spec.outputs) {
    const ParamSpec& p = spec.param(name);
    for (size_t i = 0; i < spec.params.size(); ++i) {
      if (spec.params[i].name != name) continue;
      const LaunchArg& arg = launch.args[i];
      OutputBuffer o;
      o.name = name;
      o.type = p.buffer.type;
      o.count = p.buffer.count;
      o.bytes = launch.buffers[arg.buffer].data;
      outs.push_back(std::move(o));
    }
  }
  return outs;
}

const Program& loadProgram(const std::filesystem::path& ptx) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Program>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::string key = std::filesystem::weakly_canonical(ptx).string();
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  auto program = std::make_unique<Program>(decodeModule(ptx::parseFile(ptx.string())));
  return *cache.emplace(key, std::move(program)).first->second;
}

}  // namespace qgpu
