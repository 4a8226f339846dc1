// Writes tensors as a safetensors file (tests and tools).
#include "qgpu/model/safetensors_writer.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "qgpu/model/error.h"

namespace qgpu::model {

namespace {

std::uint32_t f32Bits(const std::byte* p) {
    std::uint32_t u;
    std::memcpy(&u, p, 4);
    return u;
}

// Creates `file` and writes its 8-byte header length and the JSON header, padded with spaces so
// that the data section starts 8-byte aligned (as the reference writer does). Returns the
// header's size on disk, length field included.
std::uint64_t writeHeader(std::ofstream& out, const std::filesystem::path& file, const nlohmann::json& header) {
    std::string text = header.dump();
    while ((text.size() + 8) % 8 != 0) text += ' ';
    out.open(file, std::ios::binary);
    if (!out) throw ModelError(file.string() + ": cannot create");
    const std::uint64_t len = text.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((len >> (8 * i)) & 0xff));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return 8 + len;
}

// Writes `count` f32 values that are bf16 values as their upper halves (little-endian bf16, as
// safetensors stores it); a value with low bits set is an error naming its index in the tensor.
void writeAsBf16(std::ofstream& out, const std::byte* f32, std::size_t count, std::vector<std::uint16_t>& narrow,
                 const std::filesystem::path& file, const std::string& name, std::uint64_t firstIndex) {
    narrow.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t u = f32Bits(f32 + 4 * i);
        if ((u & 0xffffu) != 0)
            throw ModelError(file.string() + ": tensor '" + name + "': value " + std::to_string(firstIndex + i) +
                             " is not a bf16");
        narrow[i] = static_cast<std::uint16_t>(u >> 16);
    }
    out.write(reinterpret_cast<const char*>(narrow.data()), static_cast<std::streamsize>(2 * count));
}

}  // namespace

void writeSafetensors(const std::filesystem::path& file, const std::vector<TensorToWrite>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::uint64_t offset = 0;
    for (const auto& t : tensors) {
        header[t.name] = {{"dtype", t.dtypeName}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
        offset += t.bytes.size();
    }
    std::ofstream out;
    writeHeader(out, file, header);
    for (const auto& t : tensors) out.write(reinterpret_cast<const char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()));
    if (!out) throw ModelError(file.string() + ": write failed");
}


ValueCensus censusOf(const TensorView& view) {
    ValueCensus c;
    if (view.dtype == DType::F32) {
        std::uint32_t low = 0;
        for (std::size_t i = 0; i < view.bytes.size(); i += 4) {
            const std::uint32_t u = f32Bits(view.bytes.data() + i);
            low |= u;
            c.nonZeros += (u & 0x7fffffffu) != 0;
        }
        c.allBf16 = (low & 0xffffu) == 0;
        return c;
    }
    for (std::size_t i = 0; i < view.numel(); ++i) c.nonZeros += view.at(i) != 0.0f;
    c.allBf16 = view.dtype == DType::BF16;
    return c;
}

std::uint64_t writeSafetensors(const std::filesystem::path& file, const std::vector<TensorSlice>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::uint64_t offset = 0;
    for (const auto& t : tensors) {
        if (t.stored != t.view->dtype && !(t.stored == DType::BF16 && t.view->dtype == DType::F32))
            throw ModelError(file.string() + ": tensor '" + t.name + "': cannot store " + std::string(dtypeName(t.view->dtype)) +
                             " as " + std::string(dtypeName(t.stored)));
        const std::uint64_t bytes = t.view->numel() * dtypeSize(t.stored);
        header[t.name] = {{"dtype", dtypeName(t.stored)}, {"shape", t.view->shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::ofstream out;
    const std::uint64_t headerBytes = writeHeader(out, file, header);
    std::vector<std::uint16_t> narrow;
    for (const auto& t : tensors) {
        const auto& b = t.view->bytes;
        if (t.stored == t.view->dtype) {
            out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
            continue;
        }
        constexpr std::size_t kChunk = 1 << 20;  // values narrowed per write
        for (std::size_t first = 0; first < b.size() / 4; first += kChunk) {
            const std::size_t n = std::min(kChunk, b.size() / 4 - first);
            writeAsBf16(out, b.data() + 4 * first, n, narrow, file, t.name, first);
        }
    }
    out.close();
    if (!out) throw ModelError(file.string() + ": write failed");
    return headerBytes + offset;
}

std::uint64_t writeSafetensors(const std::filesystem::path& file, const std::vector<TensorSource>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::uint64_t offset = 0;
    for (const auto& t : tensors) {
        if (t.stored != DType::F32 && t.stored != DType::BF16)
            throw ModelError(file.string() + ": tensor '" + t.name + "': a produced tensor is stored as F32 or BF16");
        std::uint64_t n = 1;
        for (std::int64_t d : t.shape) n *= static_cast<std::uint64_t>(d);
        const std::uint64_t bytes = n * dtypeSize(t.stored);
        header[t.name] = {{"dtype", dtypeName(t.stored)}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::ofstream out;
    const std::uint64_t headerBytes = writeHeader(out, file, header);
    std::vector<float> block;
    std::vector<std::uint16_t> narrow;
    for (const auto& t : tensors) {
        const std::int64_t rows = t.shape.empty() ? 1 : t.shape[0];
        std::int64_t width = 1;
        for (std::size_t d = 1; d < t.shape.size(); ++d) width *= t.shape[d];
        // About 8 MB of f32 a block: a row of a spliced embedding is up to tens of KB.
        const std::int64_t step = std::max<std::int64_t>(1, (std::int64_t{1} << 21) / std::max<std::int64_t>(1, width));
        for (std::int64_t r0 = 0; r0 < rows; r0 += step) {
            const std::int64_t n = std::min(step, rows - r0);
            const std::size_t count = static_cast<std::size_t>(n * width);
            block.assign(count, 0.0f);
            t.fill(r0, n, block.data());
            if (t.stored == DType::F32) {
                out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(4 * count));
                continue;
            }
            writeAsBf16(out, reinterpret_cast<const std::byte*>(block.data()), count, narrow, file, t.name,
                        static_cast<std::uint64_t>(r0 * width));
        }
    }
    out.close();
    if (!out) throw ModelError(file.string() + ": write failed");
    return headerBytes + offset;
}

std::vector<TensorToWrite> tensorsOf(const TensorStore& store) {
    std::vector<TensorToWrite> out;
    for (const auto& [name, v] : store.tensors())
        out.push_back({name, std::string(dtypeName(v.dtype)), v.shape, std::vector<std::byte>(v.bytes.begin(), v.bytes.end())});
    return out;
}

}  // namespace qgpu::model
