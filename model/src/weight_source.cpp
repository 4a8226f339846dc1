// Named, shape-checked weights in the forms the layers compute with.
#include "qgpu/model/weight_source.h"

#include "qgpu/model/error.h"

namespace qgpu::model {

const TensorView& WeightSource::view(const std::string& name) const {
    const std::string full = name == "lm_head.weight" ? name : prefix_ + name;
    const TensorView* v = store_.find(full);
    if (!v) throw ModelError("checkpoint: tensor '" + full + "' is missing");
    return *v;
}

Linear WeightSource::linear(const std::string& name) const {
    const TensorView& v = view(name);
    Linear l(v, options_);
    if (l.ownsWeights()) store_.releasePages(v);
    return l;
}

Eigen::VectorXf WeightSource::vector(const std::string& name) const {
    const TensorView& v = view(name);
    Eigen::VectorXf out(static_cast<Eigen::Index>(v.numel()));
    for (Eigen::Index i = 0; i < out.size(); ++i) out[i] = v.at(static_cast<std::size_t>(i));
    return out;
}

Eigen::VectorXf WeightSource::normGain(const std::string& name) const {
    return (vector(name).array() + 1.0f).matrix();
}

}  // namespace qgpu::model
