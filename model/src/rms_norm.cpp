// Qwen3.5's zero-centred RMSNorm in f32.
#include "qgpu/model/rms_norm.h"

#include <cmath>

namespace qgpu::model {

float inverseRms(const Eigen::Ref<const Eigen::VectorXf>& x, float eps) {
    const float meanSquare = x.squaredNorm() / static_cast<float>(x.size());
    return 1.0f / std::sqrt(meanSquare + eps);
}

void rmsNormInPlace(Eigen::Ref<Eigen::VectorXf> x, const Eigen::VectorXf& gain, float eps) {
    const float s = inverseRms(x, eps);
    // (x * s) first, then the gain: the order HF uses, so the roundings match.
    x = ((x * s).array() * gain.array()).matrix();
}

Eigen::MatrixXf rmsNormColumns(const Eigen::MatrixXf& x, const Eigen::VectorXf& gain, float eps) {
    Eigen::MatrixXf y = x;
    for (Eigen::Index t = 0; t < y.cols(); ++t) rmsNormInPlace(y.col(t), gain, eps);
    return y;
}

}  // namespace qgpu::model
