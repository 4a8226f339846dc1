// libFuzzer target for the PTX front end, decoder and executor: any text must parse, decode
// and run (one block of 4 threads, 2000 warp steps) or be refused with qgpu::Error.
// Build: cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DQGPU_FUZZ=ON -DQGPU_WERROR=OFF
//        cmake --build build-fuzz -j1 --target fuzz_ptx
// Run:   mkdir -p fz/ptx && cp interp/fuzz/corpus/* fz/ptx/ && (more seeds: kernels/<name>/*.ptx, renamed) &&
//        build-fuzz/bin/fuzz_ptx -dict=interp/fuzz/ptx.dict -max_total_time=600 fz/ptx
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "qgpu/interp/error.h"
#include "qgpu/interp/launch.h"
#include "qgpu/interp/ptx_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    qgpu::Program program = qgpu::decodeModule(qgpu::ptx::parseModule(text, "fuzz.ptx"));
    for (const qgpu::FunctionInfo& f : program.functions) {
      if (!f.isEntry || f.kernelParams.size() > 16) continue;
      // Every 8-byte parameter is a 256-byte buffer (pointers are); the rest are zero scalars.
      qgpu::Launch launch;
      launch.block = {4, 1, 1};
      for (const qgpu::KernelParam& p : f.kernelParams) {
        qgpu::LaunchArg arg;
        arg.name = p.name;
        if (p.size == 8) {
          arg.kind = qgpu::LaunchArg::Kind::Buffer;
          arg.buffer = static_cast<uint32_t>(launch.buffers.size());
          launch.buffers.push_back({p.name, std::vector<uint8_t>(256, 0x5a)});
        } else {
          arg.scalarBytes = p.size;
        }
        launch.args.push_back(arg);
      }
      qgpu::LaunchOptions options;
      options.maxSteps = 2000;
      try {
        qgpu::runLaunch(program, f.name, launch, options);
      } catch (const qgpu::Error&) {
        // A fault, deadlock, step limit or launch mismatch, reported: fine.
      }
    }
  } catch (const qgpu::Error&) {
    // Refused with a located message: the expected outcome for most inputs.
  }
  return 0;
}
