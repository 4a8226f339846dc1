// The qgpu subcommands, one add*Command per file in cli/.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace qgpu::cli {

struct Context {
  int exitCode = 0;
  std::string command;  // the full command line, for provenance
};

void addRunCommand(CLI::App& app, Context& ctx);
void addCheckCommand(CLI::App& app, Context& ctx);
void addRecordCommand(CLI::App& app, Context& ctx);
/// lint, coverage, sfu-probe (cli/numerics_commands.cpp).
void addNumericsCommands(CLI::App& app, Context& ctx);
/// Commands contributed by other layers (model, diff, ...).
void addExtraCommands(CLI::App& app, Context& ctx);

}  // namespace qgpu::cli
