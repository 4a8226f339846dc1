// Writes tensors as a safetensors file (tests and tools).
#include "qgpu/model/safetensors_writer.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "qgpu/model/error.h"

namespace qgpu::model {

void writeSafetensors(const std::filesystem::path& file, const std::vector<TensorToWrite>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::uint64_t offset = 0;
    for (const auto& t : tensors) {
        header[t.name] = {{"dtype", t.dtypeName}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
        offset += t.bytes.size();
    }
    std::string text = header.dump();
    while ((text.size() + 8) % 8 != 0) text += ' ';  // keep the data section 8-byte aligned, as the reference writer does
    std::ofstream out(file, std::ios::binary);
    if (!out) throw ModelError(file.string() + ": cannot create");
    std::uint64_t len = text.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((len >> (8 * i)) & 0xff));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const auto& t : tensors) out.write(reinterpret_cast<const char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()));
    if (!out) throw ModelError(file.string() + ": write failed");
}

std::vector<TensorToWrite> tensorsOf(const TensorStore& store) {
    std::vector<TensorToWrite> out;
    for (const auto& [name, v] : store.tensors())
        out.push_back({name, std::string(dtypeName(v.dtype)), v.shape, std::vector<std::byte>(v.bytes.begin(), v.bytes.end())});
    return out;
}

}  // namespace qgpu::model
