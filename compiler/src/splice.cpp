// A compiled GPU spliced into a Qwen3.5 text base (splice.h; docs/compiler.md §9).
#include "qgpu/compiler/splice.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>

#include "qgpu/compiler/emit.h"
#include "qgpu/interp/error.h"
#include "qgpu/model/checkpoint_check.h"
#include "qgpu/model/safetensors_writer.h"

namespace qgpu::compiler {
namespace {

namespace fs = std::filesystem;

Error refuse(const std::string& why) { return Error(ErrorKind::Input, "splice: " + why); }

bool startsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

std::string prefixOf(const SpliceSide& s) {
  try {
    return model::checkTensors(s.config, *s.store).prefix;
  } catch (const std::exception& e) {
    throw refuse(fmt::format("{} is not a Qwen3.5 text checkpoint of its config: {}", s.origin, e.what()));
  }
}

bool powerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Up to four integers whose squares sum to m (Lagrange: four always suffice), fewest first.
std::vector<int64_t> sumOfSquares(int64_t m) {
  for (size_t parts = 0; parts <= 4; ++parts) {
    std::vector<int64_t> q;
    std::function<bool(int64_t, size_t, int64_t)> search = [&](int64_t rest, size_t left, int64_t maxQ) {
      if (rest == 0) return true;
      if (left == 0) return false;
      for (int64_t a = std::min<int64_t>(maxQ, static_cast<int64_t>(std::sqrt(static_cast<double>(rest))) + 1); a >= 1; --a) {
        if (a * a > rest) continue;
        q.push_back(a);
        if (search(rest - a * a, left - 1, a)) return true;
        q.pop_back();
      }
      return false;
    };
    if (search(m, parts, m)) return q;
  }
  throw refuse(fmt::format("no four squares sum to {}", m));  // unreachable (Lagrange)
}

// Which side a spliced tensor comes from and how its hidden dimension maps.
enum class Axis { None, Rows, Cols, Vector };

// The hidden axis of a layer tensor, by its name's last part.
Axis hiddenAxis(const std::string& leaf) {
  static const std::map<std::string, Axis> axes = {
      {"input_layernorm.weight", Axis::Vector},          {"post_attention_layernorm.weight", Axis::Vector},
      {"mlp.gate_proj.weight", Axis::Cols},              {"mlp.up_proj.weight", Axis::Cols},
      {"mlp.down_proj.weight", Axis::Rows},              {"linear_attn.in_proj_qkv.weight", Axis::Cols},
      {"linear_attn.in_proj_z.weight", Axis::Cols},      {"linear_attn.in_proj_b.weight", Axis::Cols},
      {"linear_attn.in_proj_a.weight", Axis::Cols},      {"linear_attn.out_proj.weight", Axis::Rows},
      {"self_attn.q_proj.weight", Axis::Cols},           {"self_attn.k_proj.weight", Axis::Cols},
      {"self_attn.v_proj.weight", Axis::Cols},           {"self_attn.o_proj.weight", Axis::Rows},
  };
  auto it = axes.find(leaf);
  return it == axes.end() ? Axis::None : it->second;
}

struct SourceView {
  const model::TensorView* view = nullptr;
  int64_t rows = 1, cols = 1;  // the view as rows x (every later dimension)
};

SourceView sourceOf(const SpliceSide& side, const std::string& name) {
  const model::TensorView* v = side.store->find(name);
  if (!v) throw refuse(fmt::format("{}: no tensor '{}'", side.origin, name));
  SourceView s{v, v->shape.empty() ? 1 : v->shape[0], 1};
  for (size_t d = 1; d < v->shape.size(); ++d) s.cols *= v->shape[d];
  return s;
}

bool bf16Exact(const model::TensorView& v) {
  if (v.dtype == model::DType::BF16) return true;
  if (v.dtype != model::DType::F32) return false;
  return model::censusOf(v).allBf16;
}

}  // namespace

nlohmann::json SplicePlan::describe() const {
  nlohmann::json anchors = nlohmann::json::array();
  for (const auto& [ch, v] : extraAnchors) anchors.push_back({{"channel", ch}, {"value", v}});
  return {{"hidden", spliced.hiddenSize},
          {"layers", {{"base", baseLayers}, {"gpu", gpuLayers}, {"all", spliced.numLayers}}},
          {"base_channels", {0, base.hiddenSize}},
          {"base_residual_scale", fmt::format("2^{}", scaleExponent)},
          {"gpu_channels", {gpuChannel0, gpuChannel0 + gpu.hiddenSize}},
          {"flag_channel", flagChannel},
          {"text_flag", "2^-76"},
          {"extra_anchors", anchors},
          {"vocab", {{"base", base.vocabSize}, {"gpu_id_offset", gpuIdOffset}, {"gpu", gpu.vocabSize}, {"all", spliced.vocabSize}}}};
}

SplicePlan planSplice(const SpliceSide& base, const SpliceSide& gpu, const SpliceOptions& options) {
  SplicePlan p;
  p.base = base.config;
  p.gpu = gpu.config;
  const model::ModelConfig &b = base.config, &g = gpu.config;
  p.basePrefix = prefixOf(base);
  p.gpuPrefix = prefixOf(gpu);
  if (b.vocabSize > options.gpuIdOffset)
    throw refuse(fmt::format("{}'s vocabulary ({} ids) reaches the GPU's ids, which start at {} (docs/machine.md §3.1)",
                             base.origin, b.vocabSize, options.gpuIdOffset));
  // The GPU's anchors: channel 0 of every id's embedding holds 2^m, channel 1 too or 0.
  const SourceView ge = sourceOf(gpu, p.gpuPrefix + "embed_tokens.weight");
  p.gpuAnchor = ge.view->at(0);
  const float second = ge.view->at(1);
  int exponent = 0;
  if (!(std::frexp(p.gpuAnchor, &exponent) == 0.5f) || p.gpuAnchor < 0x1p20f || !(second == 0.0f || second == p.gpuAnchor))
    throw refuse(fmt::format("{}: embedding row 0 does not start with the anchors of a compiled GPU (2^m in channel 0, "
                             "2^m or 0 in channel 1; found {}, {})", gpu.origin, p.gpuAnchor, second));
  for (int64_t r = 0; r < ge.rows; ++r) {
    const size_t i = static_cast<size_t>(r * ge.cols);
    if (ge.view->at(i) != p.gpuAnchor || ge.view->at(i + 1) != second)
      throw refuse(fmt::format("{}: embedding row {} does not hold the anchors of row 0", gpu.origin, r));
  }
  p.gpuLiveAnchors = second == 0.0f ? 1u : 2u;
  // The GPU's layers keep its head shapes: the spliced model has one set, the base's.
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw refuse(fmt::format("{} does not fit the GPU of {}: {}", base.origin, gpu.origin, what));
  };
  need(b.headDim == g.headDim, fmt::format("head_dim {} (the GPU's attention needs {})", b.headDim, g.headDim));
  need(b.linearKeyHeads == g.linearKeyHeads && b.linearValueHeads == g.linearValueHeads,
       fmt::format("{}/{} linear heads (the GPU's memory needs {}/{})", b.linearKeyHeads, b.linearValueHeads,
                   g.linearKeyHeads, g.linearValueHeads));
  need(b.linearKeyHeadDim == g.linearKeyHeadDim && b.linearValueHeadDim == g.linearValueHeadDim,
       fmt::format("linear head dims {}/{} (the GPU needs {}/{})", b.linearKeyHeadDim, b.linearValueHeadDim,
                   g.linearKeyHeadDim, g.linearValueHeadDim));
  need(b.convKernel == g.convKernel, fmt::format("conv kernel {} (the GPU needs {})", b.convKernel, g.convKernel));
  need(b.ropeTheta == g.ropeTheta && b.partialRotaryFactor == g.partialRotaryFactor,
       fmt::format("rope theta {} / partial factor {} (the GPU's lookups were proven with {} / {})", b.ropeTheta,
                   b.partialRotaryFactor, g.ropeTheta, g.partialRotaryFactor));
  need(b.rmsNormEps == g.rmsNormEps, fmt::format("rms_norm_eps {} (the GPU was proven with {})", b.rmsNormEps, g.rmsNormEps));
  need(b.numKvHeads > 0 && b.numHeads % b.numKvHeads == 0 && g.numKvHeads == 1 && g.numHeads <= b.numHeads / b.numKvHeads,
       fmt::format("{} query heads over {} key-value heads (the GPU's lookups put {} query heads over one)", b.numHeads,
                   b.numKvHeads, g.numHeads));
  if (!powerOfTwo(g.hiddenSize)) throw refuse(fmt::format("{}: GPU hidden size {} is not a power of two", gpu.origin, g.hiddenSize));


  // N' = H * 4^k: the smallest that holds the base, the GPU, its extra anchors and the flag.
  const int64_t H = b.hiddenSize, Hg = g.hiddenSize;
  for (int k = 1; k <= 8; ++k) {
    const int64_t n = H << (2 * k);
    if (n < H + Hg + 1 || n % Hg != 0) continue;
    const int64_t ratio = n / Hg;
    const std::vector<int64_t> q = sumOfSquares((ratio - 1) * static_cast<int64_t>(p.gpuLiveAnchors));
    if (n < H + Hg + static_cast<int64_t>(q.size()) + 1) continue;
    p.scaleExponent = k;
    p.spliced = b;
    p.spliced.hiddenSize = static_cast<int>(n);
    p.gpuChannel0 = H;
    p.flagChannel = n - 1;
    for (size_t i = 0; i < q.size(); ++i)
      p.extraAnchors.emplace_back(H + Hg + static_cast<int64_t>(i), static_cast<float>(q[i]) * p.gpuAnchor);
    break;
  }
  if (p.scaleExponent == 0)
    throw refuse(fmt::format("no hidden size H * 4^k (k <= 8) holds base hidden {} and GPU hidden {}", H, Hg));
  model::ModelConfig& s = p.spliced;
  s.modelType = "qwen3_5_text";
  s.composite = false;
  s.vocabSize = static_cast<int>(options.gpuIdOffset + g.vocabSize);
  s.intermediateSize = std::max(b.intermediateSize, g.intermediateSize);
  s.numLayers = b.numLayers + g.numLayers;
  s.layerTypes = b.layerTypes;
  s.layerTypes.insert(s.layerTypes.end(), g.layerTypes.begin(), g.layerTypes.end());
  s.tieWordEmbeddings = false;  // text rows of the head are the base's; GPU ids' are not their embeddings
  p.gpuIdOffset = options.gpuIdOffset;
  p.baseLayers = b.numLayers;
  p.gpuLayers = g.numLayers;
  return p;
}

SpliceFiles writeSplice(const SplicePlan& p, const SpliceSide& base, const SpliceSide& gpu, const fs::path& dir) {
  const std::string &bp = p.basePrefix, &gp = p.gpuPrefix;
  const int64_t H = p.base.hiddenSize, Hg = p.gpu.hiddenSize, G0 = p.gpuChannel0;
  const float up = std::ldexp(1.0f, p.scaleExponent), down = std::ldexp(1.0f, -p.scaleExponent);
  SpliceFiles files;
  size_t& inexact = files.inexactScaled;
  auto scaled = [&inexact](float w, float f, float back) {
    const float v = w * f;
    if (v * back != w) ++inexact;
    return v;
  };

  std::vector<model::TensorSource> out;
  for (const model::ExpectedTensor& e : model::expectedTensors(p.spliced, "model.")) {
    model::TensorSource t;
    t.name = e.name;
    t.shape = e.shape;
    const int64_t width = [&] {
      int64_t w = 1;
      for (size_t d = 1; d < e.shape.size(); ++d) w *= e.shape[d];
      return w;
    }();
    bool bf16 = true;
    const std::string name = e.name == "lm_head.weight" ? e.name : e.name.substr(std::string("model.").size());

    if (name == "embed_tokens.weight" || name == "lm_head.weight") {
      const bool head = name == "lm_head.weight";
      const std::string baseName = head && !p.base.tieWordEmbeddings ? "lm_head.weight" : bp + "embed_tokens.weight";
      const SourceView bs = sourceOf(base, baseName);
      const SourceView gs = sourceOf(gpu, head ? "lm_head.weight" : gp + "embed_tokens.weight");
      bf16 = bf16Exact(*bs.view) && bf16Exact(*gs.view);
      t.fill = [=, &p, &scaled](int64_t r0, int64_t rows, float* o) {
        for (int64_t r = r0; r < r0 + rows; ++r, o += width) {
          if (r < p.base.vocabSize) {
            const size_t at = static_cast<size_t>(r * H);
            for (int64_t c = 0; c < H; ++c)
              o[c] = head ? scaled(bs.view->at(at + static_cast<size_t>(c)), down, up)
                          : scaled(bs.view->at(at + static_cast<size_t>(c)), up, down);
            if (!head) o[p.flagChannel] = kTextFlag;
          } else if (r < p.gpuIdOffset) {
            if (head) o[p.flagChannel] = kFlagHeadWeight;  // an id of neither side: never argmax
          } else {
            const size_t at = static_cast<size_t>((r - p.gpuIdOffset) * Hg);
            for (int64_t c = 0; c < Hg; ++c) o[G0 + c] = gs.view->at(at + static_cast<size_t>(c));
            if (head) o[p.flagChannel] = kFlagHeadWeight;
            else
              for (const auto& [ch, v] : p.extraAnchors) o[ch] = v;
          }
        }
      };
    } else if (name == "norm.weight") {
      const SourceView bs = sourceOf(base, bp + "norm.weight"), gs = sourceOf(gpu, gp + "norm.weight");
      bf16 = bf16Exact(*bs.view) && bf16Exact(*gs.view);
      t.fill = [=, &p](int64_t r0, int64_t rows, float* o) {
        for (int64_t r = r0; r < r0 + rows; ++r, ++o) {
          if (r < H) *o = bs.view->at(static_cast<size_t>(r));
          else if (r >= G0 && r < G0 + Hg) *o = gs.view->at(static_cast<size_t>(r - G0));
          else if (r == p.flagChannel) *o = kFlagGain;  // 1 + 2^60 is 2^60 in f32
        }
      };
    } else {
      // layers.L.rest: the base's layer L, or the GPU's layer L - baseLayers.
      if (!startsWith(name, "layers.")) throw refuse(fmt::format("unexpected tensor {}", e.name));
      const size_t dot = name.find('.', 7);
      const int layer = std::stoi(name.substr(7, dot - 7));
      const std::string leaf = name.substr(dot + 1);
      const bool fromBase = layer < p.baseLayers;
      const SpliceSide& side = fromBase ? base : gpu;
      const SourceView src = sourceOf(side, (fromBase ? bp : gp) + fmt::format("layers.{}.", fromBase ? layer : layer - p.baseLayers) + leaf);
      bf16 = bf16Exact(*src.view);
      const Axis axis = hiddenAxis(leaf);
      const int64_t off = fromBase ? 0 : G0, sideH = fromBase ? H : Hg;
      // The base's residual is carried times s: what it writes times s, what it reads over s.
      const float f = !fromBase ? 1.0f : axis == Axis::Rows ? up : axis == Axis::Cols ? down : 1.0f;
      const float back = f == up ? down : f == down ? up : 1.0f;
      if (axis == Axis::None && (src.rows != e.shape[0] || src.cols != width))
        throw refuse(fmt::format("{}: {} has shape {} where the spliced model needs {}", side.origin, leaf,
                                 model::shapeString(src.view->shape), model::shapeString(e.shape)));
      t.fill = [=, &scaled](int64_t r0, int64_t rows, float* o) {
        for (int64_t r = r0; r < r0 + rows; ++r, o += width) {
          switch (axis) {
            case Axis::Vector:  // a norm over the hidden channels: the other side's gain stays 1
              if (width == 1 && r >= off && r < off + sideH) *o = src.view->at(static_cast<size_t>(r - off));
              break;
            case Axis::Cols:  // reads the hidden channels: its rows beyond the source's are padding
              if (r < src.rows)
                for (int64_t c = 0; c < sideH; ++c)
                  o[off + c] = scaled(src.view->at(static_cast<size_t>(r * src.cols + c)), f, back);
              break;
            case Axis::Rows:  // writes the hidden channels
              if (r >= off && r < off + sideH)
                for (int64_t c = 0; c < src.cols; ++c)
                  o[c] = scaled(src.view->at(static_cast<size_t>((r - off) * src.cols + c)), f, back);
              break;
            case Axis::None:
              for (int64_t c = 0; c < width; ++c) o[c] = src.view->at(static_cast<size_t>(r * width + c));
              break;
          }
        }
      };
    }
    t.stored = bf16 ? model::DType::BF16 : model::DType::F32;
    (bf16 ? files.bf16Tensors : files.f32Tensors)++;
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(), [](const model::TensorSource& a, const model::TensorSource& b) { return a.name < b.name; });
  fs::create_directories(dir);
  std::ofstream(dir / "config.json") << hfConfigJson(p.spliced);
  files.tensors = out.size();
  files.safetensorsBytes = model::writeSafetensors(dir / "model.safetensors", out);
  return files;
}

}  // namespace qgpu::compiler
