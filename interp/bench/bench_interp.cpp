// Interpreter throughput in thread-instructions per second (dynamic PTX
// instructions x active lanes / second) at W=4 and W=32, on the ALU-bound
// `spin` (32 blocks x 128 threads, iters=1000) and the memory-bound `vadd`
// (4096 threads), next to a native C++ loop computing spin's outputs.
#include <benchmark/benchmark.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "qgpu/interp/launch.h"
#include "qgpu/interp/program.h"
#include "qgpu/interp/ptx_parser.h"

namespace {

const std::filesystem::path kDir = QGPU_BENCH_DIR;

const qgpu::Program& program(const char* name) {
  static std::map<std::string, qgpu::Program> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, qgpu::decodeModule(qgpu::ptx::parseFile((kDir / (std::string(name) + ".sm_75.ptx")).string()))).first;
  return it->second;
}

qgpu::LaunchArg bufferArg(uint32_t index) {
  qgpu::LaunchArg a;
  a.kind = qgpu::LaunchArg::Kind::Buffer;
  a.buffer = index;
  return a;
}
qgpu::LaunchArg scalarArg(uint32_t value) {
  qgpu::LaunchArg a;
  a.scalarBits = value;
  a.scalarBytes = 4;
  return a;
}

constexpr uint32_t kSpinBlocks = 32, kSpinThreads = 128, kSpinIters = 1000;

void BM_Spin(benchmark::State& state) {
  const qgpu::Program& p = program("spin");
  qgpu::LaunchOptions opts;
  opts.warpWidth = static_cast<uint32_t>(state.range(0));
  uint64_t threadInstr = 0;
  for (auto _ : state) {
    qgpu::Launch launch;
    launch.grid = {kSpinBlocks, 1, 1};
    launch.block = {kSpinThreads, 1, 1};
    launch.buffers.push_back({"out", std::vector<uint8_t>(kSpinBlocks * kSpinThreads * 4)});
    launch.args = {bufferArg(0), scalarArg(kSpinIters)};
    threadInstr += qgpu::runLaunch(p, "spin", launch, opts).threadInstructions;
    benchmark::DoNotOptimize(launch.buffers[0].data.data());
  }
  state.counters["thread_instr_per_s"] =
      benchmark::Counter(static_cast<double>(threadInstr), benchmark::Counter::kIsRate);
  state.counters["thread_instr_per_launch"] = static_cast<double>(threadInstr) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_Spin)->Arg(4)->Arg(32)->Unit(benchmark::kMillisecond);

void BM_Vadd(benchmark::State& state) {
  const qgpu::Program& p = program("vadd");
  constexpr uint32_t n = 4096;
  qgpu::LaunchOptions opts;
  opts.warpWidth = static_cast<uint32_t>(state.range(0));
  uint64_t threadInstr = 0;
  for (auto _ : state) {
    qgpu::Launch launch;
    launch.grid = {n / 128, 1, 1};
    launch.block = {128, 1, 1};
    for (const char* name : {"a", "b", "c"}) launch.buffers.push_back({name, std::vector<uint8_t>(n * 4, 1)});
    launch.args = {bufferArg(0), bufferArg(1), bufferArg(2), scalarArg(n)};
    threadInstr += qgpu::runLaunch(p, "vadd", launch, opts).threadInstructions;
  }
  state.counters["thread_instr_per_s"] =
      benchmark::Counter(static_cast<double>(threadInstr), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Vadd)->Arg(4)->Arg(32)->Unit(benchmark::kMillisecond);

// The same computation as spin, natively: the ratio native/interpreter is
// this benchmark's thread_instr_per_s (counting the PTX's dynamic
// instructions per thread) over BM_Spin's.
void BM_SpinNative(benchmark::State& state) {
  std::vector<uint32_t> out(kSpinBlocks * kSpinThreads);
  volatile int itersSource = kSpinIters;
  for (auto _ : state) {
    int iters = itersSource;
    for (uint32_t t = 0; t < out.size(); ++t) {
      uint32_t x = t;
      for (int k = 0; k < iters; ++k) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 13;
      }
      out[t] = x;
    }
    benchmark::DoNotOptimize(out.data());
  }
  // Dynamic PTX instructions per thread of spin.sm_75.ptx at iters=1000.
  constexpr double kPtxInstrPerThread = 3773;
  state.counters["thread_instr_per_s"] = benchmark::Counter(
      kPtxInstrPerThread * static_cast<double>(out.size()) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SpinNative)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
