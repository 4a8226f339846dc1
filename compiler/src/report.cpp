// Utilisation report and the measured cost table.
#include "qgpu/compiler/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace qgpu::compiler {

UnitReport reportUnit(const std::string& name, const std::string& machineOps, const CompiledUnit& unit,
                      const ProofReport& proof) {
  UnitReport r;
  r.name = name;
  r.machineOps = machineOps;
  r.layers = unit.plan.layers;
  r.channels = unit.plan.physicalChannels;
  r.inputs = unit.plan.inputChannels.size();
  r.outputs = unit.plan.outputChannels.size();
  for (const PlannedLayer& l : unit.plan.mlp) r.neurons.push_back(l.neurons.size());
  for (int l = 1; l <= unit.plan.layers; ++l) {
    size_t used = 0;
    for (const ChannelInfo& c : unit.plan.channels) used += c.writtenAt <= l && (c.clearedAt == 0 || c.clearedAt > l) ? 1 : 0;
    r.channelsInUse.push_back(used);
  }
  r.peakNeurons = r.neurons.empty() ? 0 : *std::max_element(r.neurons.begin(), r.neurons.end());
  r.minMargin = proof.minMargin;
  r.tightestGate = proof.tightestGate;
  r.fits2B = r.channels <= static_cast<size_t>(Budget2B::hidden) &&
             r.peakNeurons <= static_cast<size_t>(Budget2B::intermediate);
  return r;
}

nlohmann::json toJson(const UnitReport& r) {
  return {{"unit", r.name},
          {"machine_ops", r.machineOps},
          {"layers", r.layers},
          {"channels", r.channels},
          {"inputs", r.inputs},
          {"outputs", r.outputs},
          {"neurons_per_layer", r.neurons},
          {"channels_per_layer", r.channelsInUse},
          {"peak_neurons", r.peakNeurons},
          {"deltanet_heads", r.deltaNetHeads},
          {"proof_min_margin", r.minMargin},
          {"tightest_gate", r.tightestGate},
          {"fits_2b", r.fits2B}};
}

std::string markdownTable(const std::vector<UnitReport>& rows) {
  std::string s =
      "| unit | machine ops | depth (layers) | residual channels | MLP neurons (peak layer) | DeltaNet heads | "
      "proof margin | fits 2048 / 6144 |\n|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const UnitReport& r : rows)
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", r.name, r.machineOps, r.layers, r.channels,
                     r.peakNeurons, r.deltaNetHeads, r.minMargin, r.fits2B ? "yes" : "no");
  return s;
}

}  // namespace qgpu::compiler
