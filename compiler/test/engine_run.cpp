// Test helper: sequences of positions through a compiled unit in the engine (engine_run.h).
#include "engine_run.h"

namespace qgpu::compiler {

void putBits(std::vector<int64_t>& in, uint64_t v, uint32_t bits) {
  for (uint32_t i = 0; i < bits; ++i) in.push_back(static_cast<int64_t>((v >> i) & 1));
}

model::Model load(const CompiledUnit& cu, double sparseDensity) {
  model::ModelOptions o;
  o.linear.sparseDensity = sparseDensity;
  return model::Model::fromStore(cu.config, cu.store, o);
}

std::vector<std::vector<int64_t>> run(const CompiledUnit& cu, const model::Model& m, const std::vector<Position>& seq,
                                      bool decode) {
  std::vector<std::vector<int64_t>> out;
  model::DecodeState st = m.newState();
  if (decode) {
    for (const Position& p : seq) {
      Eigen::MatrixXf x = cu.residual(p.inputs);
      out.push_back(cu.decode(m.forwardEmbeddings(st, x).col(0)));
    }
    return out;
  }
  Eigen::MatrixXf x(cu.config.hiddenSize, static_cast<Eigen::Index>(seq.size()));
  for (size_t i = 0; i < seq.size(); ++i) x.col(static_cast<Eigen::Index>(i)) = cu.residual(seq[i].inputs);
  Eigen::MatrixXf logits = m.forwardEmbeddings(st, x);
  for (Eigen::Index t = 0; t < logits.cols(); ++t) out.push_back(cu.decode(logits.col(t)));
  return out;
}

}  // namespace qgpu::compiler
