// Helpers shared by the model tests: paths, temporary directories, commands, tiny configs.
#include "test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>

#include <fstream>
#include <stdexcept>

namespace qgpu::model::test {

std::filesystem::path sourceDir() { return QGPU_SOURCE_DIR; }

nlohmann::json readJson(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot open " + file.string());
    return nlohmann::json::parse(in);
}

void writeJson(const std::filesystem::path& file, const nlohmann::json& j) {
    std::ofstream(file) << j.dump(2);
}

TempDir::TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "qgpu-model-test-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

nlohmann::json tinyConfigJson() {
    return {
        {"architectures", {"Qwen3_5ForCausalLM"}},
        {"model_type", "qwen3_5_text"},
        {"vocab_size", 256},
        {"hidden_size", 64},
        {"intermediate_size", 128},
        {"num_hidden_layers", 4},
        {"layer_types", {"linear_attention", "linear_attention", "linear_attention", "full_attention"}},
        {"num_attention_heads", 2},
        {"num_key_value_heads", 1},
        {"head_dim", 32},
        {"linear_num_key_heads", 2},
        {"linear_num_value_heads", 4},
        {"linear_key_head_dim", 16},
        {"linear_value_head_dim", 16},
        {"linear_conv_kernel_dim", 4},
        {"hidden_act", "silu"},
        {"rms_norm_eps", 1e-6},
        {"attention_bias", false},
        {"tie_word_embeddings", true},
        {"rope_parameters",
         {{"rope_type", "default"}, {"rope_theta", 10000000}, {"partial_rotary_factor", 0.25}, {"mrope_section", {2, 1, 1}}}},
        {"dtype", "float32"},
    };
}

void writeCheckpoint(const std::filesystem::path& dir, const nlohmann::json& config, const std::vector<TensorToWrite>& tensors) {
    std::filesystem::create_directories(dir);
    writeJson(dir / "config.json", config);
    writeSafetensors(dir / "model.safetensors", tensors);
}

std::vector<TensorToWrite> randomTensors(const nlohmann::json& config, std::uint64_t seed, double density, float scale) {
    RandomWeights spec;
    spec.seed = seed;
    spec.dtype = DType::F32;
    spec.density = density;
    spec.scale = scale;
    return tensorsOf(*makeRandomTensors(parseConfig(config, "test config"), spec));
}

TensorToWrite& tensorNamed(std::vector<TensorToWrite>& tensors, const std::string& name) {
    for (auto& t : tensors)
        if (t.name == name) return t;
    throw std::runtime_error("no tensor " + name);
}

CommandResult runCommand(const std::string& command) {
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (!pipe) throw std::runtime_error("popen failed");
    std::string out;
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
    const int status = ::pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace qgpu::model::test
