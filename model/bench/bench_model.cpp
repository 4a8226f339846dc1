// Engine benchmarks (not run by ctest):
//   BM_MemoryBandwidth   streaming read bandwidth of this machine (all cores)
//   BM_Decode2B          ms/token decoding a Qwen3.5-2B-shaped model (random bf16
//                        weights made here), next to the bandwidth floor
//   BM_SparseMatVec      one 6144x2048 projection, dense bf16 vs sparse, by density
//   BM_SparseModelDecode an 8-layer, 2B-wide model (untied 32K head) decoding,
//                        dense vs automatic sparse path, by density
// Run: build/bin/bench_model --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <omp.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "qgpu/model/generate.h"
#include "qgpu/model/model.h"
#include "qgpu/model/random_model.h"

namespace qgpu::model {
namespace {

double peakRssGiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB
}

// Bandwidth measured once per process and shared with the decode benchmark, so
// the floor and the decode speed come from the same run.
double g_bandwidthBytesPerSec = 0;

// Sums 32-byte blocks with four independent AVX2 accumulators: the cheapest
// possible work per byte, so the loop runs at the memory system's speed.
__attribute__((target("avx2"))) std::uint64_t sumBlocks(const std::uint64_t* p, std::size_t words) {
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (std::size_t i = 0; i + 16 <= words; i += 16) {
        a0 = _mm256_add_epi64(a0, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i)));
        a1 = _mm256_add_epi64(a1, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 4)));
        a2 = _mm256_add_epi64(a2, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 8)));
        a3 = _mm256_add_epi64(a3, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 12)));
    }
    const __m256i s = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
    alignas(32) std::uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), s);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

// Best-of-`repeats` read bandwidth over a buffer far larger than the caches, on all threads.
double measureBandwidth(std::size_t bytes, int repeats) {
    const std::size_t words = bytes / 8;
    std::unique_ptr<std::uint64_t[], void (*)(void*)> buf(
        static_cast<std::uint64_t*>(std::aligned_alloc(64, words * 8)), std::free);
    const int threads = omp_get_max_threads();
    const std::size_t chunk = (words / threads) & ~std::size_t{15};
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < words; ++i) buf[i] = i;  // first touch from the reading threads
    double best = 0;
    for (int r = 0; r < repeats; ++r) {
        std::uint64_t sum = 0;
        const double t0 = omp_get_wtime();
#pragma omp parallel reduction(+ : sum)
        sum += sumBlocks(buf.get() + static_cast<std::size_t>(omp_get_thread_num()) * chunk, chunk);
        const double dt = omp_get_wtime() - t0;
        benchmark::DoNotOptimize(sum);
        best = std::max(best, static_cast<double>(chunk * threads * 8) / dt);
    }
    return best;
}

void BM_MemoryBandwidth(benchmark::State& state) {
    const std::size_t bytes = std::size_t{1} << 31;
    for (auto _ : state) g_bandwidthBytesPerSec = measureBandwidth(bytes, 10);
    state.counters["GB_per_s"] = g_bandwidthBytesPerSec / 1e9;
    state.counters["threads"] = omp_get_max_threads();
}
BENCHMARK(BM_MemoryBandwidth)->Iterations(1)->Unit(benchmark::kMillisecond);

// The bf16 kernel alone on a matrix the size of the 2B model's tied head (1 GB).
void BM_Bf16MatVecHead(benchmark::State& state) {
    const int rows = 248320, cols = 2048;
    std::vector<std::uint16_t> w(static_cast<std::size_t>(rows) * cols);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = floatToBf16(static_cast<float>(i % 7) * 0.01f);
    std::vector<float> x(cols, 0.5f), y(rows);
    for (auto _ : state) {
        bf16MatVec(w.data(), rows, cols, x.data(), y.data());
        benchmark::DoNotOptimize(y.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * rows * cols * 2);
}
BENCHMARK(BM_Bf16MatVecHead)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Decode2B(benchmark::State& state) {
    // The machine is shared: re-measure next to the decode and keep the best, so
    // the floor is never flattered by a slow bandwidth sample. (Before the model
    // is built, so the 2 GiB probe buffer does not add to the peak RSS.)
    g_bandwidthBytesPerSec = std::max(g_bandwidthBytesPerSec, measureBandwidth(std::size_t{1} << 31, 10));
    const ModelConfig config = qwen35_2bConfig();
    RandomWeights spec;
    spec.seed = 2026;
    spec.dtype = DType::BF16;
    const Model model = Model::fromStore(config, makeRandomTensors(config, spec));
    DecodeState decode = model.newState();
    int token = 1;
    token = argmaxToken(model.step(decode, token));  // warm the caches and page in the weights
    const double t0 = omp_get_wtime();
    for (auto _ : state) token = argmaxToken(model.step(decode, token));
    const double msPerToken = 1e3 * (omp_get_wtime() - t0) / static_cast<double>(state.iterations());
    const double bytes = static_cast<double>(model.weightBytesPerToken());
    const double floorMs = 1e3 * bytes / g_bandwidthBytesPerSec;
    state.counters["ms_per_token"] = msPerToken;
    state.counters["ratio_to_floor"] = msPerToken / floorMs;
    state.counters["weight_GB_per_token"] = bytes / 1e9;
    state.counters["bandwidth_GB_per_s"] = g_bandwidthBytesPerSec / 1e9;
    state.counters["floor_ms"] = floorMs;
    state.counters["peak_rss_GiB"] = peakRssGiB();
    state.counters["parameters_G"] = static_cast<double>(model.report().parameters) / 1e9;
}
BENCHMARK(BM_Decode2B)->Iterations(10)->Unit(benchmark::kMillisecond)->UseRealTime();

// range(0): density in parts per 10000; range(1): 1 = sparse path allowed, 0 = dense only.
void BM_SparseMatVec(benchmark::State& state) {
    const double density = static_cast<double>(state.range(0)) / 10000.0;
    ModelConfig c = qwen35_2bConfig();
    c.numLayers = 1;
    c.layerTypes = {LayerType::FullAttention};
    c.vocabSize = 16;
    RandomWeights spec;
    spec.density = density;
    auto store = makeRandomTensors(c, spec);
    LinearOptions options;
    options.sparseDensity = state.range(1) ? 0.05 : 0.0;
    const Linear w(*store->find("model.layers.0.mlp.up_proj.weight"), options);
    Eigen::VectorXf x = Eigen::VectorXf::Random(w.cols());
    for (auto _ : state) benchmark::DoNotOptimize(w.apply(x));
    state.SetLabel(w.storageName());
    state.counters["density"] = density;
}
BENCHMARK(BM_SparseMatVec)
    ->ArgsProduct({{10000, 1000, 100, 10}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_SparseModelDecode(benchmark::State& state) {
    const double density = static_cast<double>(state.range(0)) / 10000.0;
    ModelConfig c = qwen35_2bConfig();
    c.numLayers = 8;
    c.layerTypes.resize(8);
    c.vocabSize = 32768;
    c.tieWordEmbeddings = false;  // a separate (sparse) head, so the embedding is only ever row-read
    RandomWeights spec;
    spec.density = density;
    ModelOptions options;
    options.linear.sparseDensity = state.range(1) ? 0.05 : 0.0;
    const Model model = Model::fromStore(c, makeRandomTensors(c, spec), options);
    DecodeState decode = model.newState();
    int token = 1;
    for (auto _ : state) token = argmaxToken(model.step(decode, token));
    state.counters["density"] = density;
    state.SetLabel(state.range(1) ? "auto-sparse" : "dense");
}
BENCHMARK(BM_SparseModelDecode)
    ->ArgsProduct({{10000, 1000, 100, 10}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace qgpu::model

BENCHMARK_MAIN();
