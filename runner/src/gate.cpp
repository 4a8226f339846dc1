#include "qgpu/gate.h"

#include <algorithm>

#include <fmt/format.h>

#include "qgpu/backend.h"
#include "qgpu/compare.h"
#include "qgpu/golden.h"
#include "qgpu/interp/error.h"

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

GateOutcome runGate(const LaunchSpec& spec, const std::string& flavour, uint32_t warpWidth,
                    const std::filesystem::path& goldensDir, uint64_t maxSteps) {
  GateOutcome o;
  o.kernel = spec.name;
  o.flavour = flavour;
  o.warpWidth = warpWidth;
  std::string repro = fmt::format("build/bin/qgpu check {} --flavour {} --warp {}", spec.name, flavour, warpWidth);
  std::string label = fmt::format("{} [{}, W={}]", spec.name, flavour, warpWidth);
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
  RunResult actual;
  try {
    actual = makeBackend("interp")->run(spec, ro);
  } catch (const Error& e) {
    o.error = true;
    o.message = fmt::format("{}: interpreter failed: {} ({})\n  reproduce: {}", label, e.what(),
                            errorKindName(e.kind()), repro);
    return o;
  }
  o.pass = true;
  std::string details;
  for (const Golden* g : usable) {
    o.goldensUsed.push_back(g->source);
    Comparison c = compareResults(g->result, actual);
    if (!c.equal) {
      o.pass = false;
      details += "\n" + describeComparison(c, "golden " + g->path.string(), "interp " + label);
    }
  }
  if (o.pass)
    o.message = fmt::format("{}: matches {}", label, fmt::join(o.goldensUsed, ", "));
  else
    o.message = fmt::format("{}: DIVERGES from a golden{}\n  reproduce: {}", label, details, repro);
  return o;
}

}  // namespace qgpu
