// The SwiGLU feed-forward block of every Qwen3.5 layer: down(silu(gate x) * up x).
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "qgpu/model/linear.h"
#include "qgpu/model/weight_source.h"

namespace qgpu::model {

class Mlp {
public:
    Mlp(const WeightSource& weights, const std::string& layerPrefix);
    Eigen::MatrixXf forward(const Eigen::MatrixXf& x) const;  // one token per column
    std::vector<const Linear*> projections() const { return {&gate_, &up_, &down_}; }

private:
    Linear gate_, up_, down_;
};

}  // namespace qgpu::model
