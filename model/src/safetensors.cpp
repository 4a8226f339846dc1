// The safetensors container parser: header length, JSON header, data offsets.
#include "qgpu/model/safetensors.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "qgpu/model/error.h"
#include "qgpu/model/json_bounded.h"
#include "qgpu/model/tensor_view.h"

namespace qgpu::model {
namespace {

// Header JSON bigger than this is rejected before parsing (the reference
// implementation uses the same 100 MB cap) so a hostile length cannot make us allocate.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

[[noreturn]] void fail(const std::string& origin, const std::string& why) {
    throw ModelError(origin + ": invalid safetensors: " + why);
}

SafetensorsEntry parseEntry(const std::string& origin, const std::string& name, const nlohmann::json& j,
                            std::uint64_t dataStart, std::uint64_t fileSize) {
    const std::string where = "tensor '" + name + "': ";
    if (!j.is_object()) fail(origin, where + "entry is not an object");
    auto dtypeIt = j.find("dtype");
    auto shapeIt = j.find("shape");
    auto offsetsIt = j.find("data_offsets");
    if (dtypeIt == j.end() || !dtypeIt->is_string()) fail(origin, where + "missing string 'dtype'");
    if (shapeIt == j.end() || !shapeIt->is_array()) fail(origin, where + "missing array 'shape'");
    if (offsetsIt == j.end() || !offsetsIt->is_array() || offsetsIt->size() != 2)
        fail(origin, where + "'data_offsets' must be an array of two integers");

    SafetensorsEntry e;
    e.dtypeName = dtypeIt->get<std::string>();
    e.dtype = parseDType(e.dtypeName);

    std::uint64_t numel = 1;
    for (const auto& d : *shapeIt) {
        if (!d.is_number_unsigned()) fail(origin, where + "shape entries must be non-negative integers");
        const std::uint64_t v = d.get<std::uint64_t>();
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
            (v != 0 && numel > std::numeric_limits<std::uint64_t>::max() / 8 / v))
            fail(origin, where + "shape is too large");
        numel *= v;
        e.shape.push_back(static_cast<std::int64_t>(v));
    }
    const auto& offs = *offsetsIt;
    if (!offs[0].is_number_unsigned() || !offs[1].is_number_unsigned())
        fail(origin, where + "'data_offsets' must be non-negative integers");
    const std::uint64_t b = offs[0].get<std::uint64_t>();
    const std::uint64_t en = offs[1].get<std::uint64_t>();
    if (b > en) fail(origin, where + "data_offsets begin " + std::to_string(b) + " > end " + std::to_string(en));
    const std::uint64_t dataSize = fileSize - dataStart;
    if (en > dataSize)
        fail(origin, where + "data_offsets end " + std::to_string(en) + " points outside the file (data section is " +
                         std::to_string(dataSize) + " bytes; file truncated?)");
    if (e.dtype && en - b != numel * dtypeSize(*e.dtype))
        fail(origin, where + "byte length " + std::to_string(en - b) + " does not match shape " +
                         shapeString(e.shape) + " of " + e.dtypeName + " (" +
                         std::to_string(numel * dtypeSize(*e.dtype)) + " bytes)");
    e.begin = dataStart + b;
    e.end = dataStart + en;
    return e;
}

}  // namespace

SafetensorsHeader parseSafetensors(std::span<const std::byte> file, const std::string& origin) {
    if (file.size() < 8) fail(origin, "file is " + std::to_string(file.size()) + " bytes, shorter than the 8-byte header length");
    std::uint64_t headerLen = 0;
    for (int i = 7; i >= 0; --i) headerLen = (headerLen << 8) | static_cast<std::uint8_t>(file[i]);
    if (headerLen > kMaxHeaderBytes) fail(origin, "header length " + std::to_string(headerLen) + " exceeds the 100 MB limit");
    if (headerLen > file.size() - 8)
        fail(origin, "header length " + std::to_string(headerLen) + " runs past the end of the file (" +
                         std::to_string(file.size()) + " bytes; file truncated?)");

    const char* text = reinterpret_cast<const char*>(file.data() + 8);
    nlohmann::json header = parseJsonBounded(text, text + headerLen, origin + ": header");
    if (header.is_discarded()) fail(origin, "header is not valid JSON");
    if (!header.is_object()) fail(origin, "header is not a JSON object");

    SafetensorsHeader out;
    out.dataStart = 8 + headerLen;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object()) fail(origin, "'__metadata__' is not an object");
            continue;
        }
        out.tensors.emplace(name, parseEntry(origin, name, entry, out.dataStart, file.size()));
    }
    return out;
}

}  // namespace qgpu::model
