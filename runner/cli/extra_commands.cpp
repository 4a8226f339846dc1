// Subcommands contributed by layers above the oracle.
#include "../cli_commands.h"

namespace qgpu::cli {

void addExtraCommands(CLI::App&, Context&) {}

}  // namespace qgpu::cli
