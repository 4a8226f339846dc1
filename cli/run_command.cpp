// qgpu run SPEC: one launch on a backend, outputs decoded and in hex.
#include <iostream>

#include <fmt/format.h>

#include "cli_commands.h"
#include "qgpu/backend.h"
#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"
#include "qgpu/debug/source_view.h"  // --listing, --trace, --inject: docs/debugging.md
#include "qgpu/debug/tracing.h"
#include "qgpu/interp/error.h"

namespace qgpu::cli {

void addRunCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("run", "Run one kernel launch and print its outputs");
  struct Opts {
    std::string spec, backend = makeOracleBackend()->name(), flavour = "nvcc", tokens, prompt, checkpoint;
    uint32_t warp = 4;
    uint64_t maxSteps = 200'000'000;
    bool json = false;
    uint64_t limit = 64;
    std::string trace, inject;  // debugging (docs/debugging.md)
    uint64_t traceLimit = 5'000'000;
    bool listing = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("spec", o->spec, "Kernel folder or launch JSON file")->required();
  cmd->add_option("--backend", o->backend, joinBackendNames(backendNames()))->capture_default_str();
  cmd->add_option("--flavour", o->flavour, "PTX flavour: nvcc or clang")->capture_default_str();
  cmd->add_option("--warp", o->warp, "Warp width: 4 (qwenGPU) or 32 (T4)")
      ->check(CLI::IsMember({4u, 32u}))->capture_default_str();
  cmd->add_option("--max-steps", o->maxSteps, "Warp instructions of the whole launch before a runaway-loop error")
      ->check(unsignedOption(1))->capture_default_str();
  cmd->add_option("--limit", o->limit, "Elements printed per output buffer")->check(unsignedOption())->capture_default_str();
  cmd->add_option("--trace", o->trace, "Write an execution trace (qgpu-trace-1) to this file");
  cmd->add_option("--trace-limit", o->traceLimit, "Warp steps recorded before the trace stops")
      ->check(unsignedOption())->capture_default_str();
  cmd->add_option("--inject", o->inject, "Flip one result bit: pc=<n>,lane=<l>,bit=<b>[,block=<n>][,warp=<n>]");
  cmd->add_flag("--listing", o->listing, "Print the program's pcs, PTX lines and source lines; do not run");
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  cmd->add_option("--tokens", o->tokens, "backends with a token stream (machine, circuit): write the generated tokens (one line per token: id, meaning)");
  cmd->add_option("--prompt", o->prompt,
                  "backends with a token stream: write the launch's prompt tokens (one line per token: id, name)");
  cmd->add_option("--checkpoint", o->checkpoint,
                  "--backend model: run the compiled machine from this checkpoint folder (qgpu compile machine --out) "
                  "instead of compiling it in memory");
  cmd->callback([o, &ctx] {
    LaunchSpec spec = loadLaunchSpec(o->spec);
    RunOptions ro;
    ro.flavour = o->flavour;
    ro.warpWidth = o->warp;
    if (!o->inject.empty()) ro.inject = parseFaultInjection(o->inject);
    const BackendInfo& backend = backendInfo(o->backend);
    if ((!o->trace.empty() || ro.inject || o->listing) && !backend.traces)
      throw Error(ErrorKind::Input, "--trace, --inject and --listing need --backend " +
                                        joinBackendNames(backendNames([](const BackendInfo& b) { return b.traces; })));
    if (o->listing) {
      std::cout << formatListing(loadProgram(spec.ptxPath(o->flavour)));
      return;
    }
    std::optional<TraceSession> trace;
    if (!o->trace.empty()) trace.emplace(spec, ro, o->trace, o->traceLimit);
    ro.maxSteps = o->maxSteps;
    ro.tokensFile = o->tokens;
    ro.checkpoint = o->checkpoint;
    ro.promptFile = o->prompt;
    if (!o->prompt.empty() && !backend.tokens)
      throw Error(ErrorKind::Input, "--prompt needs --backend " +
                                        joinBackendNames(backendNames([](const BackendInfo& b) { return b.tokens; })));
    if (!o->checkpoint.empty() && o->backend != "model") throw Error(ErrorKind::Input, "--checkpoint needs --backend model");
    if (!o->tokens.empty() && !backend.tokens)
      throw Error(ErrorKind::Input, "--tokens needs --backend " +
                                        joinBackendNames(backendNames([](const BackendInfo& b) { return b.tokens; })));
    RunResult r = backend.make()->run(spec, ro);
    if (trace) trace->finish();
    if (o->json) {
      std::cout << resultToJson(r).dump(2) << "\n";
      return;
    }
    std::cout << fmt::format("{} [{}{}{}]", r.kernel, r.backend,
                             r.flavour.empty() ? "" : ", " + r.flavour,
                             backend.warpWidths.size() > 1 ? fmt::format(", W={}", r.warpWidth) : "");
    if (r.warpInstructions)
      std::cout << fmt::format(": {} warp instructions, {} thread instructions", r.warpInstructions,
                               r.threadInstructions);
    std::cout << "\n";
    if (r.provenance.contains("generated_tokens"))
      std::cout << fmt::format("{}: {} prompt tokens, {} generated tokens\n", r.backend,
                               r.provenance["prompt_tokens"].get<uint64_t>(),
                               r.provenance["generated_tokens"].get<uint64_t>());
    for (const OutputBuffer& b : r.outputs) {
      std::cout << fmt::format("{} (.{} x {}):\n", b.name, scalarTypeName(b.type), b.count);
      for (uint64_t i = 0; i < b.count && i < o->limit; ++i)
        std::cout << fmt::format("  [{}] {}\n", i, formatElement(b.type, b.element(i)));
      if (b.count > o->limit) std::cout << fmt::format("  ... {} more (--limit)\n", b.count - o->limit);
    }
    ctx.exitCode = 0;
  });
}

}  // namespace qgpu::cli
