// Subcommands of the debugging tools (qgpu diff), the weight compiler (qgpu compile) and the
// model engine (qgpu model).
#include "cli_commands.h"
#include "model_commands.h"

namespace qgpu::cli {

void addDiffCommand(CLI::App& app, Context& ctx);     // cli/diff_command.cpp
void addCompileCommands(CLI::App& app, Context& ctx);  // cli/compile_command.cpp

void addExtraCommands(CLI::App& app, Context& ctx) {
  addDiffCommand(app, ctx);                          // qgpu diff
  addCompileCommands(app, ctx);                      // qgpu compile units|prove|unit
  qgpu::model::addModelCommands(app, ctx.exitCode);  // qgpu model info|generate
}

}  // namespace qgpu::cli
