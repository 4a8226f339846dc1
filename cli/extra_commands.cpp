// Subcommands of the debugging tools (qgpu diff) and the model engine (qgpu model).
#include "cli_commands.h"
#include "model_commands.h"

namespace qgpu::cli {

void addDiffCommand(CLI::App& app, Context& ctx);  // cli/diff_command.cpp

void addExtraCommands(CLI::App& app, Context& ctx) {
  addDiffCommand(app, ctx);                          // qgpu diff
  qgpu::model::addModelCommands(app, ctx.exitCode);  // qgpu model info|generate
}

}  // namespace qgpu::cli
