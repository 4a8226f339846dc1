// libFuzzer target for the trace reader and diff: any file must read (then diff against itself
// as identical, naming every thread) or be refused with qgpu::Error.
// Run:   mkdir -p fz/trace && build/bin/qgpu run kernels/dot --trace fz/trace/dot.trace &&
//        build/bin/qgpu run kernels/divergence --trace fz/trace/div.trace &&
//        build-fuzz/bin/fuzz_trace -dict=runner/fuzz/json.dict -max_total_time=600 fz/trace
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "qgpu/debug/trace_diff.h"
#include "qgpu/debug/trace_reader.h"
#include "qgpu/interp/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("qgpu-fuzz-trace-" + std::to_string(::getpid()) + ".trace");
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    const qgpu::Trace t = qgpu::readTrace(file);
    for (const auto& [thread, events] : t.threads) (void)t.threadName(thread);
    const qgpu::TraceDiff d = qgpu::diffTraces(t, t);
    if (!d.identical()) __builtin_trap();  // a trace is identical to itself
    (void)qgpu::formatTraceDiff(d, t, t);
  } catch (const qgpu::Error&) {
  }
  return 0;
}
