// `qgpu compile coverage`: which corpus launches the compiled machine step can run, and for
// the rest what they wait for — the machine ops the step does not run yet (with how many of
// the program's instructions use each), a capacity of the step the launch exceeds, or the
// lowering's own refusal. Static: nothing is generated (the circuit and model backends run
// what this says may run; a control token the step does not spell yet still stops them).
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "qgpu/compiler/circuit_run.h"
#include "qgpu/gate.h"
#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"
#include "token_launch.h"

namespace qgpu::cli {
namespace {

struct Coverage {
  std::string kernel, flavour;
  std::string verdict;  // "compiled" (every op), "ops", "capacity", "lowering"
  std::vector<std::pair<machine::MOp, uint32_t>> ops;
  std::string message;
};

Coverage coverageOf(const LaunchSpec& spec, const std::string& flavour) {
  Coverage c{spec.name, flavour, "compiled", {}, {}};
  RunOptions options;
  options.flavour = flavour;
  options.warpWidth = machine::kLanes;
  try {
    const machine::TokenLaunch tl = machine::prepareTokenLaunch(spec, options, "coverage");
    c.ops = compiler::opsNotRun(tl.program);
    if (!c.ops.empty()) {
      c.verdict = "ops";
    } else if (const auto what = compiler::firstCapacityExceeded(tl.program, tl.machineLaunch)) {
      c.verdict = "capacity";
      c.message = *what;
    }
  } catch (const Error& e) {
    c.verdict = "lowering";
    c.message = e.what();
  }
  return c;
}

}  // namespace

int compileCoverageCommand(const std::vector<std::string>& kernels, const std::string& kernelsDir, bool json) {
  const std::vector<std::filesystem::path> dirs = resolveKernels(kernels, kernelsDir);
  std::vector<Coverage> rows;
  for (const auto& dir : dirs) {
    const LaunchSpec spec = loadLaunchSpec(dir);  // bad input: qgpu::Error, exit 2
    for (const std::string& fl : spec.flavours()) rows.push_back(coverageOf(spec, fl));
  }
  std::map<machine::MOp, uint32_t> waiting;  // op -> launches it keeps from running
  size_t runs = 0;
  for (const Coverage& c : rows) {
    runs += c.verdict == "compiled";
    for (const auto& [op, n] : c.ops) ++waiting[op];
  }
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const Coverage& c : rows) {
      nlohmann::json ops = nlohmann::json::object();
      for (const auto& [op, n] : c.ops) ops[machine::opName(op)] = n;
      j.push_back({{"kernel", c.kernel}, {"flavour", c.flavour}, {"verdict", c.verdict}, {"ops_not_run", ops},
                   {"message", c.message}});
    }
    nlohmann::json w = nlohmann::json::object();
    for (const auto& [op, n] : waiting) w[machine::opName(op)] = n;
    std::cout << nlohmann::json{{"launches", j}, {"compiled", runs}, {"total", rows.size()}, {"launches_waiting_on", w}}
                     .dump(2)
              << "\n";
    return 0;
  }
  for (const Coverage& c : rows) {
    std::string what;
    if (c.verdict == "compiled") what = "every op compiled";
    else if (c.verdict == "ops") {
      what = "waits for";
      for (const auto& [op, n] : c.ops) what += fmt::format(" {}x{}", machine::opName(op), n);
    } else {
      what = fmt::format("{}: {}", c.verdict, c.message);
    }
    std::cout << fmt::format("{:<18} {:<6} {}\n", c.kernel, c.flavour, what);
  }
  std::cout << fmt::format("{} of {} launches have every op compiled (a control token the step does not spell yet can "
                           "still stop one); ops that keep launches from running:",
                           runs, rows.size());
  std::vector<std::pair<uint32_t, machine::MOp>> byCount;
  for (const auto& [op, n] : waiting) byCount.push_back({n, op});
  std::sort(byCount.rbegin(), byCount.rend());
  for (const auto& [n, op] : byCount) std::cout << fmt::format(" {} {}", machine::opName(op), n);
  std::cout << "\n";
  return 0;
}

}  // namespace qgpu::cli
