// The compiled units by name: which machine ops each implements and how to build its
// circuit (4 lanes), for the `qgpu compile` commands, the measured cost table and tests.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

struct UnitSpec {
  std::string name;      // e.g. "add32"
  std::string machineOps;  // the §5.1 row it measures, e.g. "ADD (32-bit)"
  std::function<Unit()> build;
  /// Too big to emit as one checkpoint on a 24 GiB machine: reported from its layer plan
  /// (depth, channels, neurons), not emitted, not proven, not run through the engine.
  bool planOnly = false;
  /// The inputs of position `index` for `qgpu compile unit`'s samples (in circuit.inputs()
  /// order); none: every input uniform in its range. Units with memory need positions whose
  /// loads find earlier stores, lookups one position holding the query's key.
  std::function<std::vector<int64_t>(std::mt19937_64&, int index)> sample = nullptr;
  /// Emitted and proven on request (`qgpu compile prove`, `qgpu compile unit`, and `--backend
  /// model` runs it), but reported from its plan in `qgpu compile units`: emitting it takes
  /// about a minute and 11 GB (the joined step).
  bool provenOnRequest = false;
};

const std::vector<UnitSpec>& unitCatalogue();
/// Throws CompileError listing the names if `name` is not in the catalogue.
const UnitSpec& findUnit(const std::string& name);
/// The same, plan-only units included (what `qgpu compile plan` reads).
const UnitSpec& findUnitOrPlan(const std::string& name);

}  // namespace qgpu::compiler
