// qgpu diff A B: results (files or live runs) or, with --trace, two traces (with --tokens,
// two token streams: token_diff.cpp).
// Exit 0 identical, 1 divergent, 2 bad input (main turns errors into 2).
#include <algorithm>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "cli_commands.h"
#include "qgpu/compare.h"
#include "qgpu/debug/html_report.h"
#include "qgpu/debug/result_diff.h"
#include "qgpu/debug/trace_diff.h"
#include "qgpu/interp/error.h"

namespace qgpu::cli {

namespace {

struct DiffOpts {
  std::string a, b, html, spec, kernelsDir = "kernels", flavour = "nvcc", inject, checkpoint;
  uint32_t warp = 4;
  size_t first = 8;
  bool trace = false, tokens = false, json = false, noWriters = false, writesOnly = false;
};

// One side of a result diff: a result file, or BACKEND:SPEC run now.
struct Side {
  std::string label;
  RunResult result;
  std::optional<LaunchSpec> spec;  // live runs only
};

Side loadSide(const std::string& arg, const DiffOpts& o, bool isB) {
  size_t colon = arg.find(':');
  if (colon != std::string::npos) {
    if (const BackendInfo* backend = findBackend(arg.substr(0, colon))) {
      Side s;
      s.spec = loadLaunchSpec(arg.substr(colon + 1));
      RunOptions ro;
      ro.flavour = o.flavour;
      ro.warpWidth = o.warp;
      if (backend->name == "model") ro.checkpoint = o.checkpoint;
      if (isB && !o.inject.empty()) {
        if (!backend->traces)
          throw Error(ErrorKind::Input,
                      fmt::format("--inject needs B to be a live run on {}:",
                                  joinBackendNames(backendNames([](const BackendInfo& i) { return i.traces; }), ": or ")));
        ro.inject = parseFaultInjection(o.inject);
      }
      s.result = backend->make()->run(*s.spec, ro);
      s.label = fmt::format("{} (live, {}{})", arg,
                            backend->runsPtx ? fmt::format("{}, W={}", o.flavour, o.warp) : backend->name,
                            ro.inject ? ", inject " + formatFaultInjection(*ro.inject) : "");
      return s;
    }
  }
  if (!std::filesystem::exists(arg))
    throw Error(ErrorKind::Input, fmt::format("{}: no such result file (or use BACKEND:SPEC, e.g. interp:kernels/dot)", arg));
  Side s;
  s.result = readResultFile(arg);
  const RunResult& r = s.result;
  s.label = fmt::format("{} ({}{}{})", arg, r.backend, r.flavour.empty() ? "" : ", " + r.flavour,
                        r.warpWidth ? fmt::format(", W={}", r.warpWidth) : "");
  return s;
}

// Write attribution from an interpreter re-run: of B if B is an interpreter
// result (same flavour, warp width and injected fault), else of A, else of a
// default run of the spec.
std::optional<AttributedRun> attribute(const DiffOpts& o, const Side& a, const Side& b,
                                       std::optional<LaunchSpec>& spec, std::string& note) {
  if (o.spec.size()) spec = loadLaunchSpec(o.spec);
  else if (b.spec) spec = b.spec;
  else if (a.spec) spec = a.spec;
  else if (std::filesystem::exists(std::filesystem::path(o.kernelsDir) / b.result.kernel / "launch.json"))
    spec = loadLaunchSpec(std::filesystem::path(o.kernelsDir) / b.result.kernel);
  if (!spec) {
    note = fmt::format("none (no launch spec for '{}' in {}; pass --spec)", b.result.kernel, o.kernelsDir);
    return std::nullopt;
  }
  const auto oracle = [](const Side& s) { return producedBy(s.result, ProvenanceKind::Interpreter); };
  const Side& from = oracle(b) ? b : oracle(a) ? a : b;
  const bool fromOracle = oracle(from);
  RunOptions ro;
  ro.flavour = fromOracle && !from.result.flavour.empty() ? from.result.flavour : o.flavour;
  ro.warpWidth = fromOracle && from.result.warpWidth ? from.result.warpWidth : o.warp;
  if (fromOracle && from.result.provenance.contains("inject"))
    ro.inject = parseFaultInjection(from.result.provenance["inject"].get<std::string>());
  if (!spec->ptx.count(ro.flavour)) ro.flavour = spec->flavours().front();
  AttributedRun run = runAttributed(*spec, ro);
  note = "last writers from a re-run of " + run.label;
  // A spec found by kernel name may not be the one that produced the result.
  if (fromOracle && !compareResults(from.result, run.result, 0).equal)
    note += fmt::format(" (warning: the re-run does not reproduce the outputs of {}, so these writers may not be "
                        "its writers; pass --spec)",
                        from.label);
  if (!fromOracle) note += " (the interpreter's writers; the compared runs are not the interpreter's)";
  return run;
}

int diffResultsCommand(const DiffOpts& o, const std::string& command) {
  Side a = loadSide(o.a, o, false), b = loadSide(o.b, o, true);
  std::optional<LaunchSpec> spec;
  std::optional<AttributedRun> writers;
  std::string note;
  Comparison quick = compareResults(a.result, b.result, 0);
  const Program* program = nullptr;
  if (!quick.equal && !o.noWriters) {
    try {
      writers = attribute(o, a, b, spec, note);
      if (writers) program = &loadProgram(spec->ptxPath(writers->result.flavour));
    } catch (const Error& e) {  // the diff itself is still worth printing
      writers.reset();
      note = fmt::format("none (the attribution re-run failed: {})", e.what());
    }
  }
  ResultDiff d = diffResults(a.result, b.result, a.label, b.label, o.first, writers ? &*writers : nullptr, program,
                             spec ? &*spec : nullptr);
  d.attribution = o.noWriters ? "not asked (--no-writers)" : note;
  if (!o.html.empty()) {
    std::ofstream out(o.html);
    if (!out) throw Error(ErrorKind::Input, fmt::format("{}: cannot write the HTML report", o.html));
    out << renderHtmlReport(d, program, command);
  }
  if (o.json) std::cout << resultDiffToJson(d).dump(2) << "\n";
  else std::cout << formatResultDiff(d);
  return d.equal ? 0 : 1;
}

int diffTracesCommand(const DiffOpts& o) {
  if (!o.html.empty()) throw Error(ErrorKind::Input, "--html is for result diffs (not with --trace)");
  Trace a = readTrace(o.a), b = readTrace(o.b);
  TraceDiff d = diffTraces(a, b, o.writesOnly);
  if (o.json) std::cout << traceDiffToJson(d, a, b).dump(2) << "\n";
  else std::cout << formatTraceDiff(d, a, b);
  if (!d.problems.empty()) {
    std::cerr << fmt::format("qgpu diff: traces not comparable: {}\n", d.problems[0]);
    return 2;
  }
  return d.identical() ? 0 : 1;
}

}  // namespace

void addDiffCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("diff", "Compare two results (or, with --trace, two traces) and explain the difference");
  auto o = std::make_shared<DiffOpts>();
  cmd->add_option("a", o->a, "Expected: result/golden JSON, BACKEND:SPEC (e.g. interp:kernels/dot), or a trace")->required();
  cmd->add_option("b", o->b, "Actual: same forms as A")->required();
  cmd->add_flag("--trace", o->trace, "A and B are traces (qgpu run --trace): report the first divergent event");
  cmd->add_flag("--tokens", o->tokens,
                "A and B are generated token streams (qgpu run --tokens files, or live token backends: machine:SPEC, "
                "circuit:SPEC, model:SPEC): report the first token that differs, or where one ends, with the reference "
                "executor's step and token there (needs a live side or --spec)");
  cmd->add_flag("--json", o->json, "Print the diff as JSON");
  cmd->add_option("--html", o->html, "Also write a self-contained HTML report to this file");
  cmd->add_option("--first", o->first, "Differences listed per buffer")->check(unsignedOption())->capture_default_str();
  cmd->add_option("--spec", o->spec, "Launch spec for write attribution (default: <kernels-dir>/<kernel>)");
  cmd->add_option("--kernels-dir", o->kernelsDir, "Where to look for the launch spec")->capture_default_str();
  cmd->add_option("--warp", o->warp, "Warp width of live interp runs")->check(CLI::IsMember({4u, 32u}))->capture_default_str();
  cmd->add_option("--flavour", o->flavour, "PTX flavour of live runs")->capture_default_str();
  cmd->add_option("--inject", o->inject, "Fault for a live interp B: pc=<n>,lane=<l>,bit=<b>");
  cmd->add_flag("--no-writers", o->noWriters, "Skip write attribution (no interpreter re-run)");
  cmd->add_flag("--writes-only", o->writesOnly, "--trace: compare global-memory writes only (traces of different PTX)");
  cmd->add_option("--checkpoint", o->checkpoint,
                  "A live model:SPEC side runs this compiled or spliced checkpoint folder (qgpu compile machine/splice --out)");
  cmd->callback([o, &ctx] {
    if (o->first == 0) throw Error(ErrorKind::Input, "--first must be at least 1");
    if (!o->checkpoint.empty() && o->a.rfind("model:", 0) != 0 && o->b.rfind("model:", 0) != 0)
      throw Error(ErrorKind::Input, "--checkpoint needs a live model:SPEC side");
    if (!o->checkpoint.empty() && (o->trace || o->tokens))
      throw Error(ErrorKind::Input, "--checkpoint applies to result diffs (not --trace or --tokens)");
    if (o->trace && o->tokens) throw Error(ErrorKind::Input, "--trace and --tokens exclude each other");
    ctx.exitCode = o->trace    ? diffTracesCommand(*o)
                   : o->tokens ? diffTokensCommand(o->a, o->b, o->spec, o->flavour, o->json)
                               : diffResultsCommand(*o, ctx.command);
  });
}

}  // namespace qgpu::cli
