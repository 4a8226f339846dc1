// Speed of compiled units in the engine (Google Benchmark): decoding one token of the
// four-lane memory unit lsu32 (16 layers of 16 DeltaNet memory heads, one-hot keys), and of
// the machine step's sequencer and fetch (8 layers: counters, fields, the ROM lookup), with
// the engine's one-hot DeltaNet fast path on and off (the same sparse projections either way).
//   build/bin/bench_compiled --benchmark_filter=MemoryUnitDecode
//   build/bin/bench_compiled --benchmark_filter=FetchDecode
#include <benchmark/benchmark.h>

#include <random>

#include "qgpu/compiler/catalogue.h"
#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/units.h"
#include "qgpu/model/model.h"

namespace {

using namespace qgpu;

const compiler::CompiledUnit& lsu32() {
  static const compiler::CompiledUnit cu = compiler::compileCircuit(compiler::loadStoreUnit(4).circuit);
  return cu;
}

void BM_MemoryUnitDecode(benchmark::State& state) {
  const compiler::CompiledUnit& cu = lsu32();
  model::ModelOptions o;
  o.linear.oneHotDeltaNet = state.range(0) != 0;
  const model::Model m = model::Model::fromStore(cu.config, cu.store, o);
  // Random inputs in range: loads and stores at random words (what the unit computes does not
  // change the work per token).
  std::mt19937_64 rng(5);
  std::vector<Eigen::MatrixXf> xs;
  for (int i = 0; i < 64; ++i) {
    std::vector<int64_t> in;
    for (uint32_t w : cu.plan.inputChannels) {
      const auto& r = cu.plan.channels[w].range;
      in.push_back(r.lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(r.hi - r.lo + 1)));
    }
    xs.push_back(cu.residual(in));
  }
  model::DecodeState st = m.newState();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(m.forwardEmbeddings(st, xs[i++ % xs.size()]));
  }
  state.SetItemsProcessed(state.iterations());  // tokens
  state.SetLabel(o.linear.oneHotDeltaNet ? "one-hot fast path" : "every head dense");
}
BENCHMARK(BM_MemoryUnitDecode)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// A unit after its catalogue samples' prompt of `promptLength` positions: one generated
// token at a time (the samples' random machine tokens); the state restarts from the prompt
// every 2,048 tokens so that the attention layer's cache stays the size of a short launch.
void decodeAfterPrompt(benchmark::State& state, const compiler::UnitSpec& spec, const compiler::CompiledUnit& cu,
                       int promptLength) {
  model::ModelOptions o;
  o.linear.oneHotDeltaNet = state.range(0) != 0;
  const model::Model m = model::Model::fromStore(cu.config, cu.store, o);
  std::mt19937_64 rng(7);
  constexpr int kTokens = 2048;
  Eigen::MatrixXf prompt(cu.config.hiddenSize, promptLength);
  for (int i = 0; i < promptLength; ++i) prompt.col(i) = cu.residual(spec.sample(rng, i));
  std::vector<Eigen::MatrixXf> xs;
  for (int i = 0; i < kTokens; ++i) xs.push_back(cu.residual(spec.sample(rng, promptLength + i)));
  model::DecodeState st = m.newState();
  m.forwardEmbeddings(st, prompt);
  size_t i = 0;
  for (auto _ : state) {
    if (i > 0 && i % kTokens == 0) {
      state.PauseTiming();
      st = m.newState();
      m.forwardEmbeddings(st, prompt);
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(m.forwardEmbeddings(st, xs[i++ % xs.size()]));
  }
  state.SetItemsProcessed(state.iterations());  // tokens
  state.SetLabel(o.linear.oneHotDeltaNet ? "one-hot fast path" : "every head dense");
}

// The fetch unit (8 layers) after its samples' prompt of 20 code words.
void BM_FetchDecode(benchmark::State& state) {
  const compiler::UnitSpec& spec = compiler::findUnit("fetch");
  static const compiler::CompiledUnit cu = compiler::compileCircuit(spec.build().circuit);
  decodeAfterPrompt(state, spec, cu, 87);  // 3 + 20 x 4 + 1 AT + 3
}
BENCHMARK(BM_FetchDecode)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The step's front end (17 layers, hidden 2048: sequencer, fetch, pending write, register
// file) after its samples' prompt: fetch's and a LAUNCH section.
void BM_FrontDecode(benchmark::State& state) {
  const compiler::UnitSpec& spec = compiler::findUnit("front");
  static const compiler::CompiledUnit cu = compiler::compileCircuit(spec.build().circuit);
  decodeAfterPrompt(state, spec, cu, 90);  // fetch's 87 + LAUNCH, threads, registers
}
BENCHMARK(BM_FrontDecode)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
