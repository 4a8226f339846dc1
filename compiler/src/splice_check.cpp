// The spliced model's text against the base's, logit for logit (splice.h).
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <random>

#include "qgpu/compiler/splice.h"
#include "qgpu/interp/error.h"
#include "qgpu/model/model.h"

namespace qgpu::compiler {
namespace {

// log(sum(exp(l))) over l[0, n) in double.
double logSumExp(const Eigen::VectorXf& l, Eigen::Index n) {
  double top = -INFINITY;
  for (Eigen::Index i = 0; i < n; ++i) top = std::max(top, static_cast<double>(l[i]));
  double sum = 0;
  for (Eigen::Index i = 0; i < n; ++i) sum += std::exp(static_cast<double>(l[i]) - top);
  return top + std::log(sum);
}

}  // namespace

nlohmann::json TextComparison::json() const {
  nlohmann::json per = nlohmann::json::array();
  for (const PromptComparison& p : prompts)
    per.push_back({{"positions", p.positions}, {"kl_mean", p.klMean}, {"kl_max", p.klMax}, {"differing_logits", p.differingLogits}});
  return {{"prompts", per},
          {"positions", positions},
          {"kl_mean", klMean},
          {"kl_max", klMax},
          {"differing_logits", differingLogits},
          {"max_logit_difference", maxLogitDifference},
          {"other_ids_mass_max", otherIdsMassMax},
          {"other_ids_gap_min", otherIdsGapMin},
          {"identical", identical()}};
}

TextComparison compareText(const model::Model& base, const model::Model& spliced, const std::vector<std::vector<int>>& prompts) {
  const Eigen::Index vb = base.config().vocabSize, vs = spliced.config().vocabSize;
  if (vs < vb) throw Error(ErrorKind::Input, fmt::format("splice check: the spliced vocabulary ({}) is smaller than the base's ({})", vs, vb));
  TextComparison out;
  out.otherIdsGapMin = INFINITY;
  double klSum = 0;
  for (const std::vector<int>& prompt : prompts) {
    model::DecodeState sb = base.newState(), ss = spliced.newState();
    const Eigen::MatrixXf lb = base.forward(sb, prompt), ls = spliced.forward(ss, prompt);
    PromptComparison pc;
    pc.positions = prompt.size();
    for (Eigen::Index t = 0; t < lb.cols(); ++t) {
      const Eigen::VectorXf b = lb.col(t), s = ls.col(t);
      for (Eigen::Index i = 0; i < vb; ++i) {
        if (std::memcmp(&b[i], &s[i], sizeof(float)) != 0) ++pc.differingLogits;
        out.maxLogitDifference = std::max(out.maxLogitDifference, std::abs(static_cast<double>(b[i]) - s[i]));
      }
      const double zb = logSumExp(b, vb), zs = logSumExp(s, vs);
      double kl = 0, other = 0;
      for (Eigen::Index i = 0; i < vb; ++i) {
        const double lp = b[i] - zb, lq = s[i] - zs;
        kl += std::exp(lp) * (lp - lq);
      }
      float topBase = -INFINITY, topOther = -INFINITY;
      for (Eigen::Index i = 0; i < vb; ++i) topBase = std::max(topBase, s[i]);
      for (Eigen::Index i = vb; i < vs; ++i) {
        other += std::exp(s[i] - zs);
        topOther = std::max(topOther, s[i]);
      }
      kl = std::max(kl, 0.0);  // rounding of an identical pair can leave -0
      pc.klMean += kl;
      pc.klMax = std::max(pc.klMax, kl);
      out.otherIdsMassMax = std::max(out.otherIdsMassMax, other);
      if (vs > vb) out.otherIdsGapMin = std::min(out.otherIdsGapMin, static_cast<double>(topBase) - topOther);
    }
    klSum += pc.klMean;
    pc.klMean /= static_cast<double>(std::max<size_t>(1, pc.positions));
    out.positions += pc.positions;
    out.differingLogits += pc.differingLogits;
    out.klMax = std::max(out.klMax, pc.klMax);
    out.prompts.push_back(pc);
  }
  out.klMean = klSum / static_cast<double>(std::max<size_t>(1, out.positions));
  return out;
}

std::vector<std::vector<int>> randomPrompts(int vocab, size_t count, size_t length, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> id(0, vocab - 1);
  std::vector<std::vector<int>> out(count);
  for (std::vector<int>& p : out)
    for (size_t i = 0; i < length; ++i) p.push_back(id(rng));
  return out;
}

}  // namespace qgpu::compiler
