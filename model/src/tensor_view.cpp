// Read-only views of one named tensor's bytes.
#include "qgpu/model/tensor_view.h"

namespace qgpu::model {

std::size_t TensorView::numel() const {
    std::size_t n = 1;
    for (auto d : shape) n *= static_cast<std::size_t>(d);
    return n;
}

std::string shapeString(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

}  // namespace qgpu::model
