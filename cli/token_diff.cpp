// qgpu diff --tokens A B: two generated token streams compared token by token. A side is a
// token file (`qgpu run --tokens`, or one a user edited or another runtime wrote) or a live
// run of a token backend (BACKEND:SPEC: machine, circuit, model). The first difference — an
// edited id, or one stream ending before the other (a truncated file) — is reported with what
// the reference executor says there: the step, its pc, the expected token and its meaning
// (given a spec: a live side's, or --spec). Exit 0 identical, 1 different, 2 bad input.
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "qgpu/compiler/circuit_run.h"
#include "qgpu/interp/error.h"
#include "qgpu/machine/tokens.h"
#include "token_launch.h"

namespace qgpu::cli {
namespace {

struct TokenSide {
  std::string label;
  std::vector<uint32_t> ids;
  std::optional<LaunchSpec> spec;
};

TokenSide loadTokenSide(const std::string& arg, const std::string& flavour, const char* which) {
  const size_t colon = arg.find(':');
  if (colon != std::string::npos) {
    if (const BackendInfo* backend = findBackend(arg.substr(0, colon))) {
      if (!backend->tokens)
        throw Error(ErrorKind::Input, fmt::format("{}: --tokens compares token streams; {} has none (use {})", arg,
                                                  backend->name,
                                                  joinBackendNames(backendNames([](const BackendInfo& b) { return b.tokens; }))));
      TokenSide s;
      s.spec = loadLaunchSpec(arg.substr(colon + 1));
      RunOptions ro;
      ro.flavour = flavour;
      const std::filesystem::path tmp =
          std::filesystem::temp_directory_path() / fmt::format("qgpu-diff-{}-{}.tokens", ::getpid(), which);
      ro.tokensFile = tmp.string();
      backend->make()->run(*s.spec, ro);
      s.ids = machine::readTokenFile(tmp.string());
      std::filesystem::remove(tmp);
      s.label = fmt::format("{} (live, {})", arg, flavour);
      return s;
    }
  }
  return TokenSide{arg, machine::readTokenFile(arg), std::nullopt};
}

std::string describeId(const std::vector<uint32_t>& ids, size_t k) {
  return k < ids.size() ? fmt::format("{} {}", ids[k], machine::tokenName(ids[k]))
                        : fmt::format("nothing: its stream ends after {} tokens{}", ids.size(),
                                      !ids.empty() && ids.back() == machine::ctl(machine::Ctl::Halt) ? "" : " without HALT");
}

}  // namespace

int diffTokensCommand(const std::string& a, const std::string& b, const std::string& specArg, const std::string& flavour,
                      bool json) {
  const TokenSide A = loadTokenSide(a, flavour, "a"), B = loadTokenSide(b, flavour, "b");
  size_t k = 0;
  while (k < A.ids.size() && k < B.ids.size() && A.ids[k] == B.ids[k]) ++k;
  const bool identical = k == A.ids.size() && k == B.ids.size();
  // What the reference executor says at the difference: the launch's step, pc and token.
  std::string context;
  std::optional<LaunchSpec> spec = !specArg.empty() ? std::optional<LaunchSpec>(loadLaunchSpec(specArg)) : A.spec ? A.spec : B.spec;
  if (!identical && spec) {
    RunOptions ro;
    ro.flavour = flavour;
    const machine::TokenLaunch tl = machine::prepareTokenLaunch(*spec, ro, "diff");
    const machine::MachineResult ref = machine::execute(tl.program, tl.machineLaunch, ro.maxSteps);
    context = compiler::describeGenerated("the reference", tl.prompt, ref.trace, k);
  } else if (!identical) {
    context = "no launch spec: pass --spec for the step and the reference executor's token there";
  }
  if (json) {
    nlohmann::json j = {{"a", A.label}, {"b", B.label}, {"a_tokens", A.ids.size()}, {"b_tokens", B.ids.size()},
                        {"identical", identical}};
    if (!identical)
      j["first_difference"] = {{"generated_token", k}, {"a", describeId(A.ids, k)}, {"b", describeId(B.ids, k)},
                               {"context", context}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("A: {} ({} tokens)\nB: {} ({} tokens)\n", A.label, A.ids.size(), B.label, B.ids.size());
    if (identical) {
      std::cout << "identical token streams\n";
    } else {
      std::cout << fmt::format("first difference at generated token {} ({} equal before it)\n  A: {}\n  B: {}\n  {}\n", k, k,
                               describeId(A.ids, k), describeId(B.ids, k), context);
    }
  }
  return identical ? 0 : 1;
}

}  // namespace qgpu::cli
