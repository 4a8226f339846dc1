// libFuzzer target for the safetensors header parser: any byte string must
// either parse into entries that lie inside the buffer, or raise ModelError.
// Build: cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DQGPU_FUZZ=ON
//        cmake --build build-fuzz --target fuzz_safetensors
// Run:   build-fuzz/bin/fuzz_safetensors -max_total_time=300 model/fuzz/corpus
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "qgpu/model/error.h"
#include "qgpu/model/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
    try {
        const auto header = qgpu::model::parseSafetensors(file, "fuzz");
        for (const auto& [name, e] : header.tensors) {
            // The parser's promise: every accepted tensor lies within the buffer.
            if (e.begin > e.end || e.end > size || e.begin < header.dataStart) std::abort();
        }
    } catch (const qgpu::model::ModelError&) {
        // Rejected with a message: the expected outcome for most inputs.
    }
    return 0;
}
