// All tensors of a checkpoint by name, from mapped safetensors files or memory.
#include "qgpu/model/tensor_store.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "qgpu/model/error.h"
#include "qgpu/model/json_bounded.h"
#include "qgpu/model/safetensors.h"

namespace qgpu::model {

namespace fs = std::filesystem;

std::shared_ptr<TensorStore> TensorStore::openCheckpoint(const fs::path& dir) {
    if (!fs::is_directory(dir)) throw ModelError(dir.string() + ": not a checkpoint directory");
    auto store = std::make_shared<TensorStore>();
    const fs::path index = dir / "model.safetensors.index.json";
    const fs::path single = dir / "model.safetensors";
    if (fs::exists(index)) {
        constexpr std::uintmax_t kMaxIndexBytes = std::uintmax_t{64} << 20;
        std::error_code ec;
        if (!fs::is_regular_file(index, ec) || fs::file_size(index, ec) > kMaxIndexBytes)
            throw ModelError(index.string() + ": not a regular file of at most " + std::to_string(kMaxIndexBytes) + " bytes");
        std::ifstream in(index);
        nlohmann::json j = parseJsonBounded(in, index.string());
        if (j.is_discarded() || !j.is_object()) throw ModelError(index.string() + ": not valid JSON");
        auto wm = j.find("weight_map");
        if (wm == j.end() || !wm->is_object()) throw ModelError(index.string() + ": missing object 'weight_map'");
        std::set<std::string> shards;
        for (const auto& [name, file] : wm->items()) {
            if (!file.is_string()) throw ModelError(index.string() + ": weight_map['" + name + "'] is not a file name");
            const std::string f = file.get<std::string>();
            if (f.empty() || f.find('/') != std::string::npos || f == "." || f == "..")
                throw ModelError(index.string() + ": weight_map['" + name + "'] names '" + f + "', not a file in the directory");
            shards.insert(f);
        }
        for (const auto& s : shards) store->addFile(dir / s);
        // The index and the shards must agree, or a loader that trusts either could miss tensors.
        for (const auto& [name, file] : wm->items()) {
            if (!store->contains(name))
                throw ModelError(index.string() + ": tensor '" + name + "' is listed for " + file.get<std::string>() +
                                 " but that shard does not contain it");
            const auto it = store->tensors_.find(name);
            const std::string origin = it != store->tensors_.end() ? it->second.origin : store->unsupported_.at(name).origin;
            if (fs::path(origin).filename() != file.get<std::string>())
                throw ModelError(index.string() + ": tensor '" + name + "' is listed for " + file.get<std::string>() +
                                 " but found in " + origin);
        }
        for (const auto& [name, view] : store->tensors_)
            if (!wm->contains(name)) throw ModelError(index.string() + ": tensor '" + name + "' in " + view.origin + " is not listed in weight_map");
    } else if (fs::exists(single)) {
        store->addFile(single);
    } else {
        throw ModelError(dir.string() + ": neither model.safetensors nor model.safetensors.index.json found");
    }
    return store;
}

void TensorStore::checkNew(const std::string& name, const std::string& origin) const {
    if (contains(name)) throw ModelError(origin + ": tensor '" + name + "' appears more than once in the checkpoint");
}

void TensorStore::addFile(const fs::path& file) {
    auto mapped = std::make_unique<MappedFile>(file.string());
    const auto bytes = mapped->bytes();
    const SafetensorsHeader header = parseSafetensors(bytes, mapped->path());
    for (const auto& [name, e] : header.tensors) {
        checkNew(name, mapped->path());
        if (!e.dtype) {
            unsupported_.emplace(name, UnsupportedTensor{e.dtypeName, mapped->path()});
            continue;
        }
        TensorView v;
        v.dtype = *e.dtype;
        v.shape = e.shape;
        v.bytes = bytes.subspan(e.begin, e.end - e.begin);
        v.origin = mapped->path();
        tensors_.emplace(name, std::move(v));
    }
    files_.push_back(std::move(mapped));
}

void TensorStore::addOwned(const std::string& name, DType dtype, std::vector<std::int64_t> shape, std::vector<std::byte> bytes) {
    checkNew(name, "memory");
    TensorView v;
    v.dtype = dtype;
    v.shape = std::move(shape);
    if (v.numel() * dtypeSize(dtype) != bytes.size())
        throw ModelError("memory: tensor '" + name + "': " + std::to_string(bytes.size()) + " bytes do not match shape " +
                         shapeString(v.shape));
    owned_.push_back(std::move(bytes));
    v.bytes = std::span<const std::byte>(owned_.back().data(), owned_.back().size());
    v.origin = "memory";
    tensors_.emplace(name, std::move(v));
}

void TensorStore::releasePages(const TensorView& view) const {
    for (const auto& f : files_) {
        const auto all = f->bytes();
        if (view.bytes.data() >= all.data() && view.bytes.data() + view.bytes.size() <= all.data() + all.size()) {
            f->releasePages(view.bytes);
            return;
        }
    }
}

const TensorView* TensorStore::find(const std::string& name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : &it->second;
}

}  // namespace qgpu::model
