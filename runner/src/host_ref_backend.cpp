// Host references as a backend: the kernel's host_ref.cpp computes the
// outputs from the same initialised buffers the kernel would see.
#include <map>

#include <fmt/format.h>

#include "qgpu/backend.h"
#include "qgpu/host_ref.h"
#include "qgpu/interp/error.h"

namespace qgpu {
namespace {

std::map<std::string, HostRefFn, std::less<>>& registry() {
  static std::map<std::string, HostRefFn, std::less<>> r;
  return r;
}

class LaunchHostRefArgs : public HostRefArgs {
 public:
  LaunchHostRefArgs(const LaunchSpec& spec, Launch& launch) : spec_(spec), launch_(launch) {}
  std::span<std::byte> bufferBytes(std::string_view name) override {
    size_t i = index(name);
    if (launch_.args[i].kind != LaunchArg::Kind::Buffer)
      throw Error(ErrorKind::Input, fmt::format("host ref of '{}': '{}' is a scalar, not a buffer", spec_.name, name));
    auto& data = launch_.buffers[launch_.args[i].buffer].data;
    return {reinterpret_cast<std::byte*>(data.data()), data.size()};
  }
  uint64_t scalarBits(std::string_view name) const override {
    size_t i = index(name);
    if (launch_.args[i].kind != LaunchArg::Kind::Scalar)
      throw Error(ErrorKind::Input, fmt::format("host ref of '{}': '{}' is a buffer, not a scalar", spec_.name, name));
    return launch_.args[i].scalarBits;
  }
  HostDim3 grid() const override { return {spec_.grid.x, spec_.grid.y, spec_.grid.z}; }
  HostDim3 block() const override { return {spec_.block.x, spec_.block.y, spec_.block.z}; }
  uint32_t dynamicSharedBytes() const override { return spec_.dynamicSharedBytes; }

 private:
  size_t index(std::string_view name) const {
    for (size_t i = 0; i < spec_.params.size(); ++i)
      if (spec_.params[i].name == name) return i;
    throw Error(ErrorKind::Input, fmt::format("host ref of '{}' asks for unknown parameter '{}'", spec_.name, name));
  }
  const LaunchSpec& spec_;
  Launch& launch_;
};

class HostRefBackend : public Backend {
 public:
  std::string name() const override { return "host-ref"; }
  RunResult run(const LaunchSpec& spec, const RunOptions&) override {
    HostRefFn fn = findHostRef(spec.name);
    if (!fn)
      throw Error(ErrorKind::Input, fmt::format("kernel '{}' has no host reference compiled in "
                                                "(kernels/{}/host_ref.cpp)", spec.name, spec.name));
    Launch launch = materializeLaunch(spec);
    LaunchHostRefArgs args(spec, launch);
    fn(args);
    RunResult r;
    r.kernel = spec.name;
    r.backend = name();
    r.outputs = collectOutputs(spec, launch);
    return r;
  }
};

[[maybe_unused]] const bool kRegistered = registerBackend({
    .name = "host-ref",
    .summary = "the kernel's independent C++ reference (kernels/*/host_ref.cpp)",
    .provenance = ProvenanceKind::HostReference,
    .warpWidths = {},
    .runsPtx = false,
    .traces = false,
    .tokens = false,
    .recordsGoldens = true,
    .make = [] { return std::unique_ptr<Backend>(std::make_unique<HostRefBackend>()); },
});

}  // namespace

bool registerHostRef(std::string_view name, HostRefFn fn) {
  registry().emplace(std::string(name), fn);
  return true;
}

HostRefFn findHostRef(std::string_view name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second;
}


}  // namespace qgpu
