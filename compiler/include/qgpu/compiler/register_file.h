// The machine step's register file (docs/machine.md §5.2, the register-file copies): the
// registers of every warp of a block, 4 lanes × 64 bits, in DeltaNet slots, written at a
// register write's commit and read by register index — one copy per read port (a, b, c and
// the guard), since a head answers one read per position.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "qgpu/compiler/units.h"

namespace qgpu::compiler {

/// Slots per lane and copy: 4 banks of 128 (lane l's banks are heads 4l..4l+3 of a layer).
constexpr uint32_t kRegisterSlots = 4 * kBankSlots;
constexpr uint32_t kRegisterSlotBits = 9;
/// Registers per warp are rounded up to 2^k (k <= 9): slot = warp << k | register, bits
/// chosen by k, with no multiplier. A launch fits when its warps × 2^k <= kRegisterSlots.
constexpr uint32_t kRegisterShifts = kRegisterSlotBits + 1;
constexpr uint32_t kRegisterWarpBits = 8;

/// Inputs, in registerFileInputs' order: commit (1), the lanes written (4), each lane's value
/// (4 × 64), the written register (9 bits), the warp (8 bits), k one-hot (10), the registers
/// read by the ports a, b, c and the guard (9 bits each). Outputs: ports a, b, c (4 lanes ×
/// 64 bits each), then the guard port (4 lanes × 1 bit): each the value at the position's
/// warp after the position's write.
Unit registerFileUnit();
constexpr uint32_t kRegisterFilePorts = 4;
constexpr uint32_t kRegisterFileOutputs = 3 * 4 * 64 + 4;

/// The register file's inputs as wires of a circuit of its own or a larger one.
struct RegisterFileWires {
  WireId commit = 0;
  Bus lanes;                // 4: the lanes written
  std::vector<Bus> values;  // per lane, 64 bits
  Bus writeSlot;            // the written slot, structural bits: registerSlotBits of its warp and register
  Bus warp;                 // kRegisterWarpBits
  Bus k;                    // one-hot, kRegisterShifts
  std::vector<Bus> read;    // per port (a, b, c, guard): the register read (kRegisterSlotBits)
  // Per port, optional: a structural bit that is 1 where the port's field names no register
  // (a ROM constant, a special, none); the port then reads 0 (its banks are not selected),
  // so that the operand select can add the other kinds' bits to it (exclusiveOr).
  std::vector<std::optional<WireId>> noRegister;
  // Per port, optional: another register field and a structural bit where the port reads it
  // instead (an atomic's new value reads its old one from d on port a).
  std::vector<std::optional<std::pair<Bus, WireId>>> instead;
};
/// The slot bits warp << k | reg (k one-hot; reg's bits: forms whose values are bits):
/// kRegisterSlotBits structural bits, two levels (a gate per k, then a threshold). With
/// `instead` = {other, where}, the register is `other`'s where `where` (a structural bit) is 1:
/// the gates on k split by it, in the same two levels.
Bus registerSlotBits(Circuit& c, const std::string& name, const Bus& reg, const Bus& warp, const Bus& k,
                     const std::optional<std::pair<Bus, WireId>>& instead = std::nullopt);
/// The copies on those wires; returns the reads, port-major: reads[4 * port + lane] (64
/// bits for a, b, c; 1 for the guard).
std::vector<Bus> buildRegisterFile(Circuit& c, const RegisterFileWires& in);
/// Declares the reads as outputs in registerFileUnit's order.
void outputRegisterReads(Circuit& c, const std::vector<Bus>& reads);

/// The smallest k with registers <= 2^k; kRegisterShifts if there is none.
uint32_t registerShift(uint32_t registers);

struct RegisterFileAccess {
  bool commit = false;
  uint32_t lanes = 0, reg = 0;
  std::array<uint64_t, 4> values{};
  uint32_t warp = 0, shift = 0;
  std::array<uint32_t, kRegisterFilePorts> read{};  // a, b, c, guard
};
std::vector<int64_t> registerFileInputs(const RegisterFileAccess& a);

}  // namespace qgpu::compiler
