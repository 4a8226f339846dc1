// The utilisation report of a compiled unit: depth, residual channels, MLP neurons per
// layer and DeltaNet heads, against the Qwen3.5-2B budget (hidden 2048, intermediate
// 6144, 16 heads per layer), with the proof's minimum margin.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "qgpu/compiler/emit.h"
#include "qgpu/compiler/proof.h"

namespace qgpu::compiler {

struct Budget2B {
  static constexpr int hidden = 2048;
  static constexpr int intermediate = 6144;
  static constexpr int deltaNetHeads = 16;
};

struct UnitReport {
  std::string name;
  std::string machineOps;
  int layers = 0;
  size_t channels = 0;        // residual channels used (anchors, inputs, wires, outputs)
  size_t inputs = 0, outputs = 0;
  std::vector<size_t> neurons;  // per layer
  std::vector<size_t> channelsInUse;  // per layer: channels holding a value after its MLP
  size_t peakNeurons = 0;
  int deltaNetHeads = 0;      // per layer, peak (0: MLP-only unit)
  double minMargin = 0;
  std::string tightestGate;
  bool fits2B = false;
  bool emitted = true;  // false: figures of the layer plan alone (no tensors, no proof)
  bool provenOnRequest = false;  // not emitted here, but `qgpu compile prove` emits and proves it
};

UnitReport reportUnit(const std::string& name, const std::string& machineOps, const CompiledUnit& unit,
                      const ProofReport& proof);
/// The figures of a layer plan that is not emitted (emitted = false, no margin).
UnitReport reportPlan(const std::string& name, const std::string& machineOps, const LayerPlan& plan);
nlohmann::json toJson(const UnitReport& r);
/// One Markdown table row per unit (docs/machine.md §5.1, measured).
std::string markdownTable(const std::vector<UnitReport>& rows);

}  // namespace qgpu::compiler
