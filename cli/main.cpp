// qgpu: the command line. Thin over the libraries: parse options, call, print,
// and map outcomes to exit codes (0 success, 1 conformance divergence,
// 2 bad input or usage).
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_commands.h"
#include "qgpu/interp/error.h"

int main(int argc, char** argv) {
  CLI::App app{"qgpu: reference PTX interpreter and conformance gate for weight-embedded GPUs"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  qgpu::cli::Context ctx;
  for (int i = 0; i < argc; ++i) ctx.command += (i ? " " : "") + std::string(argv[i]);
  qgpu::cli::addRunCommand(app, ctx);
  qgpu::cli::addCheckCommand(app, ctx);
  qgpu::cli::addRecordCommand(app, ctx);
  qgpu::cli::addNumericsCommands(app, ctx);
  qgpu::cli::addExtraCommands(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const qgpu::Error& e) {
    std::cerr << fmt::format("qgpu: {}: {}\n", qgpu::errorKindName(e.kind()), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::cerr << fmt::format("qgpu: error: {}\n", e.what());
    return 2;
  }
  return ctx.exitCode;
}
