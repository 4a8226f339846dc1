// The compiled machine on disk (docs/compiler.md §6, "The machine as a checkpoint"): a
// Hugging Face Qwen3.5 text checkpoint (config.json, model.safetensors) that the engine and
// stock transformers load, plus manifest.json, its provenance — the source commit, the
// machine ISA it was compiled for (a fingerprint of ops.def and the token protocol), its
// sizes, the proof's minimum margin and the sha256 of both files. Writing is deterministic:
// the same source gives the same bytes. Loading checks the manifest against this build
// (format, ISA, the plan the compiler makes now) before it runs anything, so a stale or
// foreign checkpoint is a clean error, not a wrong token.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "qgpu/compiler/model_run.h"

namespace qgpu::compiler {

/// The manifest's "format" value; a loader refuses any other.
inline constexpr const char* kMachineCheckpointFormat = "qgpu-machine-checkpoint/1";

/// sha256 (hex) of what a checkpoint's tokens and step mean: every row of ops.def (op,
/// family, execution, write, operands) and the token protocol's id layout (tokens.h).
std::string machineIsaFingerprint();

/// Throws CompileError unless DIR is absent or a folder holding nothing but a checkpoint's
/// three files (what writeMachineCheckpoint may overwrite); the CLI asks before compiling.
void checkCheckpointFolder(const std::filesystem::path& dir);

/// Writes cm's step (cm.unit: tensors, cm.proof) into DIR as config.json, model.safetensors
/// and manifest.json; `provenance` (the source commit, the command) is merged into the
/// manifest, which is returned. Throws CompileError if DIR holds anything but an earlier
/// checkpoint's three files.
nlohmann::json writeMachineCheckpoint(const CompiledUnit& unit, const ProofReport& proof, const std::filesystem::path& dir,
                                      const nlohmann::json& provenance);

/// Loads a checkpoint written by writeMachineCheckpoint: the manifest must name this format
/// and this build's ISA fingerprint, config.json must be the model of the plan this build
/// makes of the step (else the probe would read the wrong channels), and model.safetensors
/// must match the manifest's sizes. Projections go on the sparse path and the mapped pages
/// they were read from are given back, so memory holds the non-zeros only. Throws
/// qgpu::Error(ErrorKind::Input) naming the file and what does not match.
std::unique_ptr<CompiledMachine> loadMachineCheckpoint(const std::filesystem::path& dir);

}  // namespace qgpu::compiler
