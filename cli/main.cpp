// qgpu: the command line. Thin over the libraries: parse options, call, print,
// and map outcomes to exit codes (0 success, 1 conformance divergence,
// 2 bad input or usage).
#include <charconv>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_commands.h"
#include "qgpu/interp/error.h"

namespace qgpu::cli {

CLI::Validator unsignedOption(uint64_t min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ptr != end || text[0] == '+')
          return fmt::format("'{}' is not an unsigned integer", text);
        if (ec == std::errc::result_out_of_range) return fmt::format("{} is more than 2^64-1", text);
        if (ec != std::errc() || v < min) return fmt::format("{} is less than {}", text, min);
        return {};
      },
      min ? fmt::format("UINT>={}", min) : "UINT");
}

}  // namespace qgpu::cli

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
  // CLI11 answers an unknown first word with "A subcommand is required": name it instead.
  if (argc >= 2 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->check_name(argv[1]);
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << fmt::format("qgpu: unknown command '{}' (commands: {}; qgpu --help)\n", argv[1], names);
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const qgpu::Error& e) {
    std::cerr << fmt::format("qgpu: {}: {}\n", qgpu::errorKindName(e.kind()), e.what());
    return e.kind() == qgpu::ErrorKind::Diverged ? 1 : 2;  // exit 1: a divergence, not bad input
  } catch (const std::exception& e) {
    std::cerr << fmt::format("qgpu: error: {}\n", e.what());
    return 2;
  }
  return ctx.exitCode;
}
