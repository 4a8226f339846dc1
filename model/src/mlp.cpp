// The SwiGLU feed-forward block.
#include "qgpu/model/mlp.h"

#include "qgpu/model/activations.h"
#include "qgpu/model/gated_delta_net.h"

namespace qgpu::model {

Mlp::Mlp(const WeightSource& w, const std::string& p)
    : gate_(w.linear(p + "gate_proj.weight")), up_(w.linear(p + "up_proj.weight")), down_(w.linear(p + "down_proj.weight")) {}

Eigen::MatrixXf Mlp::forward(const Eigen::MatrixXf& x) const {
    Eigen::MatrixXf h = project(gate_, x).unaryExpr([](float v) { return silu(v); });
    h.array() *= project(up_, x).array();
    return project(down_, h);
}

}  // namespace qgpu::model
