#pragma once
// Helpers shared by the model tests: repository paths, temporary directories,
// and a tiny config for checkpoints built in C++.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "qgpu/model/config.h"

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

}  // namespace qgpu::model::test
