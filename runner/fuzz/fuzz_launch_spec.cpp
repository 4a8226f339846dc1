// libFuzzer target for launch specs: any file must load (and, when small, materialise) or be
// refused with qgpu::Error. Build as interp/fuzz/fuzz_ptx.cpp says, target fuzz_launch_spec.
// Run:   mkdir -p fz/spec && cp runner/fuzz/corpus/* fz/spec/ && (more seeds: kernels/*/launch.json, renamed) &&
//        build-fuzz/bin/fuzz_launch_spec -dict=runner/fuzz/json.dict -max_total_time=600 fz/spec
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "qgpu/interp/error.h"
#include "qgpu/launch_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // loadLaunchSpec reads a file: one scratch file per fuzzing process.
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("qgpu-fuzz-spec-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    qgpu::LaunchSpec spec = qgpu::loadLaunchSpec(file);
    uint64_t bytes = 0;
    for (const qgpu::ParamSpec& p : spec.params)
      if (p.isBuffer) bytes += p.buffer.count * qgpu::elementBytes(p.buffer.type);  // checked by the loader
    if (bytes <= (1u << 20)) {
      qgpu::Launch launch = qgpu::materializeLaunch(spec);
      if (launch.args.size() != spec.params.size()) __builtin_trap();
    }
  } catch (const qgpu::Error&) {
  }
  return 0;
}
