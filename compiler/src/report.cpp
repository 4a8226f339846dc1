// Utilisation report and the measured cost table.
#include "qgpu/compiler/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace qgpu::compiler {

UnitReport reportPlan(const std::string& name, const std::string& machineOps, const LayerPlan& plan) {
  UnitReport r;
  r.name = name;
  r.machineOps = machineOps;
  r.layers = plan.layers;
  r.channels = plan.physicalChannels;
  r.inputs = plan.inputChannels.size();
  r.outputs = plan.outputChannels.size();
  for (const PlannedLayer& l : plan.mlp) r.neurons.push_back(l.neurons.size());
  for (int l = 1; l <= plan.layers; ++l) {
    size_t used = 0;
    for (const ChannelInfo& c : plan.channels) used += c.writtenAt <= l && (c.clearedAt == 0 || c.clearedAt > l) ? 1 : 0;
    r.channelsInUse.push_back(used);
  }
  r.peakNeurons = r.neurons.empty() ? 0 : *std::max_element(r.neurons.begin(), r.neurons.end());
  for (const PlannedLayer& l : plan.mlp) r.deltaNetHeads = std::max(r.deltaNetHeads, static_cast<int>(l.heads.size()));
  r.fits2B = r.channels <= static_cast<size_t>(Budget2B::hidden) &&
             r.peakNeurons <= static_cast<size_t>(Budget2B::intermediate) && r.deltaNetHeads <= Budget2B::deltaNetHeads;
  r.emitted = false;
  return r;
}

UnitReport reportUnit(const std::string& name, const std::string& machineOps, const CompiledUnit& unit,
                      const ProofReport& proof) {
  UnitReport r = reportPlan(name, machineOps, unit.plan);
  r.emitted = true;
  r.minMargin = proof.minMargin;
  r.tightestGate = proof.tightestGate;
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
          {"fits_2b", r.fits2B},
          {"emitted", r.emitted},
          {"proven_on_request", r.provenOnRequest}};
}

std::string markdownTable(const std::vector<UnitReport>& rows) {
  std::string s =
      "| unit | machine ops | depth (layers) | residual channels | MLP neurons (peak layer) | DeltaNet heads | "
      "proof margin | fits 2048 / 6144 |\n|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const UnitReport& r : rows)
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", r.name, r.machineOps, r.layers, r.channels,
                     r.peakNeurons, r.deltaNetHeads, r.emitted ? fmt::format("{}", r.minMargin)
                                                                        : r.provenOnRequest ? "– (`qgpu compile prove`)"
                                                                                            : "– (plan only)",
                     r.fits2B ? "yes" : "no");
  return s;
}

}  // namespace qgpu::compiler
