// Greedy decoding: prompt as one prefill, or every token one step at a time.
#include "qgpu/model/generate.h"

#include "qgpu/model/error.h"

namespace qgpu::model {

int argmaxToken(const Eigen::VectorXf& logits) {
    Eigen::Index best = 0;
    for (Eigen::Index i = 1; i < logits.size(); ++i)
        if (logits[i] > logits[best]) best = i;
    return static_cast<int>(best);
}

Generation generateGreedy(const Model& model, const std::vector<int>& prompt, int maxNew, PromptMode mode) {
    if (prompt.empty()) throw ModelError("generate: the prompt has no tokens");
    if (maxNew < 0) throw ModelError("generate: max-new must be >= 0");
    Generation g;
    DecodeState state = model.newState();
    if (mode == PromptMode::Prefill) {
        g.promptLogits = model.forward(state, prompt);
    } else {
        g.promptLogits.resize(model.config().vocabSize, static_cast<Eigen::Index>(prompt.size()));
        for (std::size_t t = 0; t < prompt.size(); ++t)
            g.promptLogits.col(static_cast<Eigen::Index>(t)) = model.step(state, prompt[t]);
    }
    g.stepLogits.resize(model.config().vocabSize, maxNew);
    Eigen::VectorXf last = g.promptLogits.col(g.promptLogits.cols() - 1);
    for (int i = 0; i < maxNew; ++i) {
        g.stepLogits.col(i) = last;
        const int next = argmaxToken(last);
        g.tokens.push_back(next);
        if (i + 1 < maxNew) last = model.step(state, next);
    }
    return g;
}

}  // namespace qgpu::model
