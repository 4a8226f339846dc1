// All tensors of a checkpoint by name, backed by memory-mapped safetensors files
// (single or sharded) or by buffers built in memory (tests, benchmarks).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "qgpu/model/mapped_file.h"
#include "qgpu/model/tensor_view.h"

namespace qgpu::model {

struct UnsupportedTensor {
    std::string dtypeName;
    std::string origin;
};

class TensorStore {
public:
    // Loads DIR/model.safetensors.index.json (sharded) or DIR/model.safetensors.
    static std::shared_ptr<TensorStore> openCheckpoint(const std::filesystem::path& dir);

    // Maps one safetensors file and adds all its tensors.
    void addFile(const std::filesystem::path& file);
    // Adds a tensor whose bytes the store owns; bytes.size() must match shape and dtype.
    void addOwned(const std::string& name, DType dtype, std::vector<std::int64_t> shape, std::vector<std::byte> bytes);

    const std::map<std::string, TensorView>& tensors() const { return tensors_; }
    // Tensors whose dtype the engine cannot compute with; an error only if the model needs them.
    const std::map<std::string, UnsupportedTensor>& unsupported() const { return unsupported_; }
    const TensorView* find(const std::string& name) const;
    bool contains(const std::string& name) const { return tensors_.count(name) || unsupported_.count(name); }
    // The view's pages, if it lies in a mapped file, go back to the kernel (MappedFile::
    // releasePages); owned bytes stay. Reading the view again still gives the same bytes.
    void releasePages(const TensorView& view) const;

private:
    void checkNew(const std::string& name, const std::string& origin) const;

    std::vector<std::unique_ptr<MappedFile>> files_;
    std::vector<std::vector<std::byte>> owned_;
    std::map<std::string, TensorView> tensors_;
    std::map<std::string, UnsupportedTensor> unsupported_;
};

}  // namespace qgpu::model
