// qgpu check: the conformance gate over the corpus (or named kernels).
#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "qgpu/backend.h"
#include "qgpu/gate.h"
#include "qgpu/interp/error.h"

namespace qgpu::cli {

void addCheckCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("check", "Run the conformance gate: interpreter (or --backend) vs goldens");
  struct Opts {
    std::vector<std::string> kernels;
    std::string kernelsDir = "kernels", goldensDir = "goldens";
    std::vector<uint32_t> warps{4, 32};
    std::vector<std::string> flavours;
    std::string backend = "interp", checkpoint;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("kernels", o->kernels, "Kernel names (default: every kernel folder)");
  cmd->add_option("--kernels-dir", o->kernelsDir, "Corpus folder")->capture_default_str();
  cmd->add_option("--goldens-dir", o->goldensDir, "Goldens folder")->capture_default_str();
  cmd->add_option("--warp", o->warps, "Warp widths to check")->check(CLI::IsMember({4u, 32u}))
      ->capture_default_str();
  cmd->add_option("--flavour", o->flavours, "PTX flavours (default: all the spec has)");
  cmd->add_option("--backend", o->backend,
                  "Backend checked against the goldens: " + joinBackendNames(backendNames()) +
                      " (a launch it cannot run is listed as not run; the compiled machine's circuit and model run "
                      "W=4 only)")
      ->capture_default_str();
  cmd->add_option("--checkpoint", o->checkpoint,
                  "--backend model: run this checkpoint folder (qgpu compile machine or splice --out), loaded once "
                  "for every launch, instead of compiling the machine in memory");
  cmd->add_flag("--json", o->json, "Print outcomes as JSON");
  cmd->callback([o, &ctx] {
    const BackendInfo& info = backendInfo(o->backend);  // bad name: input error naming the backends
    if (!o->checkpoint.empty() && o->backend != "model") throw Error(ErrorKind::Input, "--checkpoint needs --backend model");
    std::vector<uint32_t> warps;
    for (uint32_t w : o->warps)
      if (info.warpWidths.empty() || std::find(info.warpWidths.begin(), info.warpWidths.end(), w) != info.warpWidths.end())
        warps.push_back(w);
    if (warps.empty())
      throw Error(ErrorKind::Input, fmt::format("--backend {} runs no warp width asked for (it runs {})", o->backend,
                                                fmt::join(info.warpWidths, ", ")));
    const std::vector<std::filesystem::path> dirs = resolveKernels(o->kernels, o->kernelsDir);
    int passed = 0, failed = 0, errors = 0, notRun = 0;
    nlohmann::json all = nlohmann::json::array();
    for (const auto& dir : dirs) {
      LaunchSpec spec = loadLaunchSpec(dir);
      std::vector<std::string> flavours = o->flavours.empty() ? spec.flavours() : o->flavours;
      for (const std::string& fl : flavours) {
        if (!spec.ptx.count(fl)) continue;
        for (uint32_t w : warps) {
          GateOutcome g = runGate(spec, fl, w, o->goldensDir, 200'000'000, o->backend, o->checkpoint);
          if (g.pass) ++passed;
          else if (g.notRun) ++notRun;
          else if (g.error) ++errors;
          else ++failed;
          if (o->json) {
            all.push_back({{"kernel", g.kernel}, {"flavour", g.flavour}, {"warp", g.warpWidth},
                           {"pass", g.pass}, {"error", g.error}, {"not_run", g.notRun}, {"message", g.message},
                           {"goldens", g.goldensUsed}, {"stale", g.staleGoldens}});
          } else {
            std::cout << (g.pass ? "PASS " : g.notRun ? "NOT RUN " : g.error ? "ERROR " : "FAIL ") << g.message << "\n";
            for (const std::string& s : g.staleGoldens) std::cout << "  stale golden ignored: " << s << "\n";
          }
        }
      }
    }
    if (o->json)
      std::cout << nlohmann::json{{"backend", o->backend}, {"outcomes", all}, {"passed", passed}, {"failed", failed},
                                  {"errors", errors}, {"not_run", notRun}}
                           .dump(2)
                << "\n";
    else
      std::cout << fmt::format("{} passed, {} failed{}\n", passed, failed + errors,
                               notRun ? fmt::format(", {} not run by --backend {}", notRun, o->backend) : "");
    ctx.exitCode = errors ? 2 : failed ? 1 : 0;
  });
}

}  // namespace qgpu::cli
