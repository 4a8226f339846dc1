// libFuzzer target for result and golden JSON: any text must parse into a result whose
// buffers hold count x element-size bytes, or be refused with qgpu::Error.
// Run:   mkdir -p fz/result && cp goldens/*/*.json fz/result/ 2>/dev/null; i=0; for g in goldens/*/*.json;
//        do cp $g fz/result/$((i++)).json; done &&
//        build-fuzz/bin/fuzz_result -dict=runner/fuzz/json.dict -max_total_time=600 fz/result
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "qgpu/interp/error.h"
#include "qgpu/json_input.h"
#include "qgpu/result.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const qgpu::RunResult r =
        qgpu::resultFromJson(qgpu::parseJsonInput(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz"),
                             "fuzz");
    for (const qgpu::OutputBuffer& b : r.outputs) {
      if (b.bytes.size() != b.count * qgpu::scalarTypeBytes(b.type)) __builtin_trap();
      for (uint64_t i = 0; i < b.count; ++i) (void)qgpu::formatElement(b.type, b.element(i));
    }
    (void)qgpu::resultToJson(r).dump();
  } catch (const qgpu::Error&) {
  }
  return 0;
}
