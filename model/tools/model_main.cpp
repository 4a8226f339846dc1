// Stand-alone CLI for testing the model subcommands before the lead hooks
// addModelCommands into the real qgpu binary: `qgpu_model_cli model info DIR`.
#include <CLI/CLI.hpp>

#include "qgpu/model/cli.h"

int main(int argc, char** argv) {
    CLI::App app{"qgpu (model commands only)"};
    app.require_subcommand(1);
    int exitCode = 0;
    qgpu::model::addModelCommands(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    return exitCode;
}
