// qgpu_model_cli: the model subcommands alone (`qgpu_model_cli model info DIR`), a binary
// that needs only qgpu_model; `qgpu model ...` runs the same commands.
#include <CLI/CLI.hpp>

#include "model_commands.h"

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
