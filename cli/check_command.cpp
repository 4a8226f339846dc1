// qgpu check: the conformance gate over the corpus (or named kernels).
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "qgpu/gate.h"
#include "qgpu/interp/error.h"

namespace qgpu::cli {

void addCheckCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("check", "Run the conformance gate: interpreter vs goldens");
  struct Opts {
    std::vector<std::string> kernels;
    std::string kernelsDir = "kernels", goldensDir = "goldens";
    std::vector<uint32_t> warps{4, 32};
    std::vector<std::string> flavours;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("kernels", o->kernels, "Kernel names (default: every kernel folder)");
  cmd->add_option("--kernels-dir", o->kernelsDir, "Corpus folder")->capture_default_str();
  cmd->add_option("--goldens-dir", o->goldensDir, "Goldens folder")->capture_default_str();
  cmd->add_option("--warp", o->warps, "Warp widths to check")->check(CLI::IsMember({4u, 32u}))
      ->capture_default_str();
  cmd->add_option("--flavour", o->flavours, "PTX flavours (default: all the spec has)");
  cmd->add_flag("--json", o->json, "Print outcomes as JSON");
  cmd->callback([o, &ctx] {
    std::vector<std::filesystem::path> dirs;
    if (o->kernels.empty()) {
      dirs = discoverKernels(o->kernelsDir);
    } else {
      for (const std::string& k : o->kernels)
        dirs.push_back(std::filesystem::exists(k) ? std::filesystem::path(k)
                                                  : std::filesystem::path(o->kernelsDir) / k);
    }
    int passed = 0, failed = 0, errors = 0;
    nlohmann::json all = nlohmann::json::array();
    for (const auto& dir : dirs) {
      LaunchSpec spec = loadLaunchSpec(dir);
      std::vector<std::string> flavours = o->flavours.empty() ? spec.flavours() : o->flavours;
      for (const std::string& fl : flavours) {
        if (!spec.ptx.count(fl)) continue;
        for (uint32_t w : o->warps) {
          GateOutcome g = runGate(spec, fl, w, o->goldensDir);
          if (g.pass) ++passed;
          else if (g.error) ++errors;
          else ++failed;
          if (o->json) {
            all.push_back({{"kernel", g.kernel}, {"flavour", g.flavour}, {"warp", g.warpWidth},
                           {"pass", g.pass}, {"error", g.error}, {"message", g.message},
                           {"goldens", g.goldensUsed}, {"stale", g.staleGoldens}});
          } else {
            std::cout << (g.pass ? "PASS " : g.error ? "ERROR " : "FAIL ") << g.message << "\n";
            for (const std::string& s : g.staleGoldens) std::cout << "  stale golden ignored: " << s << "\n";
          }
        }
      }
    }
    if (o->json)
      std::cout << nlohmann::json{{"outcomes", all}, {"passed", passed}, {"failed", failed}, {"errors", errors}}.dump(2) << "\n";
    else
      std::cout << fmt::format("{} passed, {} failed\n", passed, failed + errors);
    ctx.exitCode = errors ? 2 : failed ? 1 : 0;
  });
}

}  // namespace qgpu::cli
