// The `qgpu model ...` subcommands (cli/model_commands.cpp), hooked into the qgpu CLI by
// cli/extra_commands.cpp and into the stand-alone qgpu_model_cli by cli/model_main.cpp:
//   qgpu model info DIR [--json]
//   qgpu model generate DIR --ids 1,2,3 --max-new N [--json] [--token-by-token] [--dense]
// Errors go to stderr as "qgpu model: error: ..." and set exitCode to 2.
#pragma once

#include <CLI/CLI.hpp>

namespace qgpu::model {

void addModelCommands(CLI::App& app, int& exitCode);

}  // namespace qgpu::model
