#include "qgpu/backend.h"

#include <map>
#include <mutex>

#include <fmt/format.h>

#include "qgpu/interp/error.h"
#include "qgpu/interp/ptx_parser.h"

namespace qgpu {

std::unique_ptr<Backend> makeInterpBackend();
std::unique_ptr<Backend> makeHostRefBackend();
std::unique_ptr<Backend> makeCudaBackend();
std::unique_ptr<Backend> makeMachineBackend();

std::vector<std::string> backendNames() { return {"interp", "host-ref", "cuda", "machine"}; }

std::unique_ptr<Backend> makeBackend(const std::string& name) {
  if (name == "interp") return makeInterpBackend();
  if (name == "host-ref") return makeHostRefBackend();
  if (name == "cuda") return makeCudaBackend();
  if (name == "machine") return makeMachineBackend();
  throw Error(ErrorKind::Input, fmt::format("unknown backend '{}' (interp, host-ref, cuda, machine)", name));
}

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
