// Greedy decoding on top of Model::forward, in the two ways the reference
// check compares: prompt as one prefill, or every token one step at a time.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "qgpu/model/model.h"

namespace qgpu::model {

enum class PromptMode { Prefill, TokenByToken };

struct Generation {
    Eigen::MatrixXf promptLogits;  // vocab x prompt length
    std::vector<int> tokens;       // the greedy continuation
    Eigen::MatrixXf stepLogits;    // vocab x tokens.size(): logits each new token was chosen from
};

// argmax with the lowest index winning ties (as torch.argmax).
int argmaxToken(const Eigen::VectorXf& logits);

Generation generateGreedy(const Model& model, const std::vector<int>& prompt, int maxNew, PromptMode mode);

}  // namespace qgpu::model
