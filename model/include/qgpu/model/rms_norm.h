// Qwen3.5's zero-centred RMSNorm: y = x / sqrt(mean(x^2) + eps) * (1 + w), in f32.
// Callers pass the gain (1 + w) precomputed once at load.
#pragma once

#include <Eigen/Dense>

namespace qgpu::model {

// Normalises x in place over its whole length.
void rmsNormInPlace(Eigen::Ref<Eigen::VectorXf> x, const Eigen::VectorXf& gain, float eps);

// Normalises every column of x (one token per column); returns a new matrix.
Eigen::MatrixXf rmsNormColumns(const Eigen::MatrixXf& x, const Eigen::VectorXf& gain, float eps);

// 1 / sqrt(mean(x^2) + eps), the scale shared by the plain and the gated norm.
float inverseRms(const Eigen::Ref<const Eigen::VectorXf>& x, float eps);

}  // namespace qgpu::model
