// Subcommands contributed by layers above the oracle.
#include "../cli_commands.h"
#include "qgpu/model/cli.h"

namespace qgpu::cli {

void addDiffCommand(CLI::App& app, Context& ctx);     // debug/cli/diff_command.cpp
void addCompileCommands(CLI::App& app, Context& ctx);  // compiler/cli/compile_command.cpp

void addExtraCommands(CLI::App& app, Context& ctx) {
  addDiffCommand(app, ctx);                          // qgpu diff
  addCompileCommands(app, ctx);                      // qgpu compile units|prove|unit
  qgpu::model::addModelCommands(app, ctx.exitCode);  // qgpu model info|generate
}

}  // namespace qgpu::cli
