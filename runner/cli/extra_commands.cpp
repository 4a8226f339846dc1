// Subcommands contributed by layers above the oracle.
#include "../cli_commands.h"
#include "qgpu/model/cli.h"

namespace qgpu::cli {

void addExtraCommands(CLI::App& app, Context& ctx) {
  qgpu::model::addModelCommands(app, ctx.exitCode);  // qgpu model info|generate
}

}  // namespace qgpu::cli
