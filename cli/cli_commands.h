// The qgpu subcommands, one add*Command per file in cli/.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace qgpu::cli {

struct Context {
  int exitCode = 0;
  std::string command;  // the full command line, for provenance
};

/// For unsigned integer options: decimal digits only, within 0..2^64-1, at least `min`. CLI11
/// alone turns "-1" into 2^64-1 and 2^64 into the largest value without a word.
CLI::Validator unsignedOption(uint64_t min = 0);

void addRunCommand(CLI::App& app, Context& ctx);
void addCheckCommand(CLI::App& app, Context& ctx);
void addRecordCommand(CLI::App& app, Context& ctx);
/// lint, coverage, sfu-probe (cli/numerics_commands.cpp).
void addNumericsCommands(CLI::App& app, Context& ctx);
/// Commands contributed by other layers (model, diff, ...).
void addExtraCommands(CLI::App& app, Context& ctx);
/// qgpu compile coverage (compile_coverage.cpp): which corpus launches the compiled step runs.
int compileCoverageCommand(const std::vector<std::string>& kernels, const std::string& kernelsDir, bool json);
/// qgpu diff --tokens A B (token_diff.cpp): exit 0 identical, 1 different.
int diffTokensCommand(const std::string& a, const std::string& b, const std::string& spec, const std::string& flavour,
                      bool json);

}  // namespace qgpu::cli
