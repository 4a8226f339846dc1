// qgpu record: write goldens with provenance from a backend (host references
// or a real GPU through the CUDA driver). The only writer of goldens/; results of
// the tests' stand-in CUDA driver are refused there (docs/limits.md).
#include <iostream>

#include <fmt/format.h>

#include "cli_commands.h"
#include "qgpu/backend.h"
#include "qgpu/gate.h"
#include "qgpu/golden.h"
#include "qgpu/interp/error.h"

namespace qgpu::cli {
namespace {

// Whether `dir` is a folder called goldens (the corpus' own, from wherever qgpu runs).
bool isGoldensFolder(const std::string& dir) {
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(dir));
  if (p.filename().empty()) p = p.parent_path();
  return p.filename() == "goldens";
}

}  // namespace

void addRecordCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("record", "Record goldens (with provenance) from a backend");
  struct Opts {
    std::vector<std::string> kernels;
    bool all = false;
    std::string backend, source, kernelsDir = "kernels", goldensDir = "goldens";
    std::vector<std::string> flavours{"nvcc"};
  };
  auto o = std::make_shared<Opts>();
  const std::vector<std::string> references =
      backendNames([](const BackendInfo& b) { return b.provenance == ProvenanceKind::HostReference; });
  if (!references.empty()) o->backend = references.front();
  cmd->add_option("kernels", o->kernels, "Kernel names or folders");
  cmd->add_flag("--all", o->all, "Every kernel under --kernels-dir");
  const std::vector<std::string> recorders = backendNames([](const BackendInfo& b) { return b.recordsGoldens; });
  cmd->add_option("--backend", o->backend, joinBackendNames(recorders))->check(CLI::IsMember(recorders))
      ->capture_default_str();
  cmd->add_option("--source", o->source, "Golden name (default: host-ref, or the GPU's model, e.g. t4, h200)");
  cmd->add_option("--flavour", o->flavours, "PTX flavours to run on hardware")->capture_default_str();
  cmd->add_option("--kernels-dir", o->kernelsDir, "Corpus folder")->capture_default_str();
  cmd->add_option("--goldens-dir", o->goldensDir, "Goldens folder")->capture_default_str();
  cmd->callback([o, &ctx] {
    if (o->all == !o->kernels.empty())
      throw Error(ErrorKind::Input, "record: name kernels or pass --all (not both)");
    const std::vector<std::filesystem::path> dirs = resolveKernels(o->kernels, o->kernelsDir);  // --all: none named
    const BackendInfo& info = backendInfo(o->backend);
    auto backend = info.make();
    int written = 0, failed = 0;
    for (const auto& dir : dirs) {
      LaunchSpec spec = loadLaunchSpec(dir);
      std::vector<std::string> flavours = info.runsPtx ? o->flavours : std::vector<std::string>{""};
      for (const std::string& fl : flavours) {
        if (!fl.empty() && !spec.ptx.count(fl)) continue;
        RunOptions ro;
        if (!fl.empty()) ro.flavour = fl;
        auto report = [&](const Error& e) {
          std::cerr << fmt::format("qgpu record: {}{}: {}: {}\n", spec.name, fl.empty() ? "" : " [" + fl + "]",
                                   errorKindName(e.kind()), e.what());
          ++failed;
        };
        RunResult r;
        try {
          r = backend->run(spec, ro);
        } catch (const Error& e) {
          report(e);
          continue;
        }
        // Not a failure of this kernel: nothing the stand-in produces may enter the corpus.
        if (fromStandInDriver(r) && isGoldensFolder(o->goldensDir))
          throw Error(ErrorKind::Input,
                      fmt::format("record: {} came from the stand-in CUDA driver ({}), not from hardware; its results "
                                  "are never goldens, so they are not written into {} (name a scratch folder with "
                                  "--goldens-dir)",
                                  spec.name, r.provenance.value("driver_library", "?"), o->goldensDir));
        try {
          std::string source = o->source;
          if (source.empty())
            source = fromStandInDriver(r) ? "standin"
                     : info.provenance == ProvenanceKind::Hardware ? sourceNameForDevice(r.provenance.value("device", "gpu"))
                                                                  : info.name;
          std::string file = fl.empty() || fl == "nvcc" ? source : source + "-" + fl;
          stampProvenance(r, spec, source, ctx.command);
          std::filesystem::path path = std::filesystem::path(o->goldensDir) / spec.name / (file + ".json");
          writeResultFile(path, r);
          std::cout << fmt::format("wrote {}\n", path.string());
          ++written;
        } catch (const Error& e) {
          report(e);
        }
      }
    }
    std::cout << fmt::format("{} goldens written, {} failed\n", written, failed);
    ctx.exitCode = failed ? 2 : 0;
  });
}

}  // namespace qgpu::cli
