// libFuzzer target for config.json: any file must give a config whose widths are positive
// ints, or be refused with ModelError.
// Build as interp/fuzz/fuzz_ptx.cpp says, target fuzz_config.
// Run:   mkdir -p fz/config && cp model/testdata/tiny-tied/config.json fz/config/tied.json &&
//        cp model/testdata/tiny-gqa-untied-bf16/config.json fz/config/gqa.json &&
//        build-fuzz/bin/fuzz_config -dict=runner/fuzz/json.dict -max_total_time=600 fz/config
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "qgpu/model/config.h"
#include "qgpu/model/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::filesystem::path file =
        std::filesystem::temp_directory_path() / ("qgpu-fuzz-config-" + std::to_string(::getpid()) + ".json");
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    try {
        const qgpu::model::ModelConfig c = qgpu::model::loadConfig(file);
        if (c.keyDim() <= 0 || c.valueDim() <= 0 || c.convDim() <= 0 || c.rotaryDim() < 0) __builtin_trap();
        if (static_cast<int>(c.layerTypes.size()) != c.numLayers) __builtin_trap();
    } catch (const qgpu::model::ModelError&) {
    }
    return 0;
}
