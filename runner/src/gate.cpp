// The conformance gate: interpreter results (or a named backend's) against every non-stale
// golden of a kernel.
#include "qgpu/gate.h"

#include <algorithm>

#include <fmt/format.h>

#include "qgpu/backend.h"
#include "qgpu/compare.h"
#include "qgpu/golden.h"
#include "qgpu/interp/error.h"
#include "qgpu/interp/write_attribution.h"

namespace qgpu {

std::vector<std::filesystem::path> discoverKernels(const std::filesystem::path& kernelsDir) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::is_directory(kernelsDir))
    throw Error(ErrorKind::Input, fmt::format("{}: not a directory", kernelsDir.string()));
  for (const auto& e : std::filesystem::directory_iterator(kernelsDir))
    if (e.is_directory() && std::filesystem::exists(e.path() / "launch.json")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::filesystem::path> resolveKernels(const std::vector<std::string>& names,
                                                  const std::filesystem::path& kernelsDir) {
  if (names.empty()) return discoverKernels(kernelsDir);
  std::vector<std::filesystem::path> out;
  for (const std::string& k : names)
    out.push_back(std::filesystem::exists(k) ? std::filesystem::path(k) : kernelsDir / k);
  return out;
}

namespace {

// "  first mismatch out[0] was written by block (0,0,0) thread (0,0,0) at pc 31 (...)":
// one re-run with write attribution, only when the gate already failed.
std::string firstWriter(const LaunchSpec& spec, RunOptions ro, const Comparison& c) {
  for (const BufferComparison& b : c.buffers) {
    if (b.first.empty()) continue;
    try {
      Launch sizes = materializeLaunch(spec);
      WriteAttribution attribution(sizes);
      ro.observer = &attribution;
      makeOracleBackend()->run(spec, ro);
      uint32_t buffer = 0;  // buffer params are launch buffers in declaration order
      for (const ParamSpec& p : spec.params) {
        if (p.name == b.name) break;
        if (p.isBuffer) ++buffer;
      }
      uint32_t eb = elementBytes(b.type);
      auto w = attribution.lastWriter(buffer, b.first[0].index * eb, eb);
      if (!w) return fmt::format("\n  first mismatch {}[{}] was never written by the interpreter", b.name, b.first[0].index);
      const Dim3& g = spec.grid;
      const Dim3& k = spec.block;
      return fmt::format("\n  first mismatch {}[{}] was written by block ({},{},{}) thread ({},{},{}) at {}", b.name,
                         b.first[0].index, w->blockLinear % g.x, (w->blockLinear / g.x) % g.y,
                         w->blockLinear / (g.x * g.y), w->threadInBlock % k.x, (w->threadInBlock / k.x) % k.y,
                         w->threadInBlock / (k.x * k.y), loadProgram(spec.ptxPath(ro.flavour)).describePc(w->pc));
    } catch (const Error&) {
      return "";
    }
  }
  return "";
}

}  // namespace

GateOutcome runGate(const LaunchSpec& spec, const std::string& flavour, uint32_t warpWidth,
                    const std::filesystem::path& goldensDir, uint64_t maxSteps, const std::string& backend,
                    const std::string& checkpoint) {
  GateOutcome o;
  o.kernel = spec.name;
  o.flavour = flavour;
  o.warpWidth = warpWidth;
  const bool oracle = backend == "interp";
  const std::string fromDisk = checkpoint.empty() ? "" : " --checkpoint " + checkpoint;
  std::string repro = fmt::format("build/bin/qgpu check {} --flavour {} --warp {}{}{}", spec.name, flavour, warpWidth,
                                  oracle ? "" : " --backend " + backend, fromDisk);
  // On a divergence: the full report of the first golden that differs.
  auto diffCommand = [&](const Golden& g) {
    return fmt::format("build/bin/qgpu diff {} {}:{} --flavour {} --warp {}{} --html {}-diff.html", g.path.string(), backend,
                       spec.dir.string(), flavour, warpWidth, fromDisk, spec.name);
  };
  std::string label = oracle ? fmt::format("{} [{}, W={}]", spec.name, flavour, warpWidth)
                             : fmt::format("{} [{}, {}, W={}]", spec.name, backend, flavour, warpWidth);
  std::vector<Golden> goldens;
  try {
    goldens = loadGoldens(goldensDir, spec);
  } catch (const Error& e) {
    o.error = true;
    o.message = fmt::format("{}: cannot read goldens: {}", label, e.what());
    return o;
  }
  std::vector<const Golden*> usable;
  for (const Golden& g : goldens) {
    if (g.stale) o.staleGoldens.push_back(fmt::format("{} ({})", g.path.string(), g.staleReason));
    else usable.push_back(&g);
  }
  if (usable.empty()) {
    o.message = fmt::format("{}: no usable golden in {}/{}{}", label, goldensDir.string(), spec.name,
                            o.staleGoldens.empty() ? "" : "; stale: " + fmt::format("{}", fmt::join(o.staleGoldens, "; ")));
    return o;
  }
  RunOptions ro;
  ro.flavour = flavour;
  ro.warpWidth = warpWidth;
  ro.maxSteps = maxSteps;
  ro.checkpoint = checkpoint;
  RunResult actual;
  try {
    actual = (oracle ? makeOracleBackend() : makeBackend(backend))->run(spec, ro);
  } catch (const Error& e) {
    if (!oracle && e.kind() == ErrorKind::Backend) {
      o.notRun = true;
      o.message = fmt::format("{}: not run: {}", label, e.what());
      return o;
    }
    if (e.kind() == ErrorKind::Diverged) {  // the backend checked itself against its reference
      o.message = fmt::format("{}: DIVERGES: {}\n  reproduce: build/bin/qgpu run {} --backend {} --flavour {}{}",
                              label, e.what(), spec.dir.string(), backend, flavour, fromDisk);
      return o;
    }
    o.error = true;
    o.message = fmt::format("{}: {} failed: {} ({})\n  reproduce: {}", label, oracle ? "interpreter" : backend, e.what(),
                            errorKindName(e.kind()), repro);
    return o;
  }
  o.pass = true;
  std::string details;
  for (const Golden* g : usable) {
    o.goldensUsed.push_back(g->source);
    Comparison c = compareResults(g->result, actual);
    if (!c.equal) {
      if (o.pass) repro = diffCommand(*g);
      o.pass = false;
      details += "\n" + describeComparison(c, "golden " + g->path.string(), (oracle ? "interp " : "") + label);
      details += firstWriter(spec, ro, c);
    }
  }
  if (o.pass)
    o.message = fmt::format("{}: matches {}", label, fmt::join(o.goldensUsed, ", "));
  else
    o.message = fmt::format("{}: DIVERGES from a golden{}\n  reproduce: {}", label, details, repro);
  return o;
}

}  // namespace qgpu
