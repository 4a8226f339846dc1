// Helpers shared by the model tests: repository paths, temporary directories,
// and a tiny config for checkpoints built in C++.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "qgpu/model/config.h"
#include "qgpu/model/random_model.h"
#include "qgpu/model/safetensors_writer.h"

namespace qgpu::model::test {

std::filesystem::path sourceDir();  // repository root
nlohmann::json readJson(const std::filesystem::path& file);
void writeJson(const std::filesystem::path& file, const nlohmann::json& j);

// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

// The flat text config of the documented minimal tiny model (hidden 64, 4 layers).
nlohmann::json tinyConfigJson();

// Writes DIR/config.json and DIR/model.safetensors.
void writeCheckpoint(const std::filesystem::path& dir, const nlohmann::json& config, const std::vector<TensorToWrite>& tensors);

// Random f32 tensors for `config` (seeded), ready to write or to tamper with.
std::vector<TensorToWrite> randomTensors(const nlohmann::json& config, std::uint64_t seed = 7, double density = 1.0,
                                         float scale = 0.3f);

// Finds a tensor by name in a list (throws if absent).
TensorToWrite& tensorNamed(std::vector<TensorToWrite>& tensors, const std::string& name);

// Runs a shell command, returning its exit code and combined stdout+stderr.
struct CommandResult {
    int exitCode;
    std::string output;
};
CommandResult runCommand(const std::string& command);

}  // namespace qgpu::model::test
