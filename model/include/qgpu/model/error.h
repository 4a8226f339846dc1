// The one exception type the engine throws for bad input (config, checkpoint
// files, token ids). Messages always say where (file / tensor / field) and why,
// so the CLI can print them verbatim and exit 2.
#pragma once

#include <stdexcept>
#include <string>

namespace qgpu::model {

class ModelError : public std::runtime_error {
public:
    explicit ModelError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace qgpu::model
