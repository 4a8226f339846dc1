#pragma once
// The `qgpu model ...` subcommands, hooked into the qgpu CLI by runner/main.cpp:
//   qgpu model info DIR [--json]
//   qgpu model generate DIR --ids 1,2,3 --max-new N [--json] [--token-by-token] [--dense]
// Errors go to stderr as "qgpu model: error: ..." and set exitCode to 2.
#include <CLI/CLI.hpp>

namespace qgpu::model {

void addModelCommands(CLI::App& app, int& exitCode);

}  // namespace qgpu::model
