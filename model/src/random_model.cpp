// Seeded random Qwen3.5 weights built in memory, for benchmarks and tests.
#include "qgpu/model/random_model.h"

#include <cstring>

#include "qgpu/model/checkpoint_check.h"

namespace qgpu::model {
namespace {

// splitmix64: fast, seedable, and identical on every platform (unlike std:: distributions).
struct SplitMix {
    std::uint64_t s;
    std::uint64_t next() {
        std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
};

void store(DType dtype, float v, std::byte* dst) {
    if (dtype == DType::F32) {
        std::memcpy(dst, &v, 4);
    } else {  // BF16 (F16 is not generated)
        const std::uint16_t h = floatToBf16(v);
        std::memcpy(dst, &h, 2);
    }
}

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::shared_ptr<TensorStore> makeRandomTensors(const ModelConfig& config, const RandomWeights& spec) {
    auto out = std::make_shared<TensorStore>();
    const DType dtype = spec.dtype == DType::F16 ? DType::F32 : spec.dtype;
    std::uint64_t tensorIndex = 0;
    for (const ExpectedTensor& e : expectedTensors(config, "model.")) {
        SplitMix rng{spec.seed * 1000003ull + tensorIndex++};
        std::size_t n = 1;
        for (auto d : e.shape) n *= static_cast<std::size_t>(d);
        std::vector<std::byte> bytes(n * dtypeSize(dtype));
        const bool matrix = e.shape.size() == 2 && !endsWith(e.name, "embed_tokens.weight");
        const std::uint64_t keepBelow = static_cast<std::uint64_t>(spec.density * 4294967296.0);
        for (std::size_t i = 0; i < n; ++i) {
            float v = (2.0f * rng.uniform() - 1.0f) * spec.scale;
            if (endsWith(e.name, "A_log")) v = -1.0f + v;       // decays well inside (0, 1)
            if (matrix && spec.density < 1.0 && (rng.next() >> 32) >= keepBelow) v = 0.0f;
            store(dtype, v, bytes.data() + i * dtypeSize(dtype));
        }
        out->addOwned(e.name, dtype, e.shape, std::move(bytes));
    }
    return out;
}

ModelConfig qwen35_2bConfig() {
    ModelConfig c;
    c.modelType = "qwen3_5_text";
    c.vocabSize = 248320;
    c.hiddenSize = 2048;
    c.intermediateSize = 6144;
    c.numLayers = 24;
    c.layerTypes = qwen35LayerTypes(c.numLayers);
    c.numHeads = 8;
    c.numKvHeads = 2;
    c.headDim = 256;
    c.ropeTheta = 1e7;
    c.partialRotaryFactor = 0.25;
    c.linearKeyHeads = 16;
    c.linearValueHeads = 16;
    c.linearKeyHeadDim = 128;
    c.linearValueHeadDim = 128;
    c.convKernel = 4;
    c.rmsNormEps = 1e-6;
    c.tieWordEmbeddings = true;
    return c;
}

ModelConfig qwen35SmallConfig() {
    ModelConfig c = qwen35_2bConfig();
    c.vocabSize = 4096;
    c.hiddenSize = 256;
    c.numLayers = 4;
    c.layerTypes = qwen35LayerTypes(c.numLayers);
    return c;
}

std::vector<LayerType> qwen35LayerTypes(int layers) {
    std::vector<LayerType> types;
    for (int i = 0; i < layers; ++i) types.push_back((i + 1) % 4 == 0 ? LayerType::FullAttention : LayerType::LinearAttention);
    return types;
}

}  // namespace qgpu::model
