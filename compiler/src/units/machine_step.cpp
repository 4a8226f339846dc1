// The machine step joined (machine_step.h).
//
//   front end, operand select (17 levels), the active mask and the WAIT count, shared
//   the ALU (alu.cpp): results at 22
//   the memory (memory_access.cpp): a store's lane and bytes, the banks, an LD's value at 38
//   the lane-serial float step (float_lane.cpp): the position's lane result at 34, parked in
//     one one-slot bank per lane (written where the position computes that lane, read at
//     every position where the step is a float-lane op, 0 elsewhere), so that at the step's last
//     lane the earlier lanes' results are there
//   the result select: per bit one exclusiveOr channel over the three (at most one is not 0:
//     each is 0 unless its op runs)
//   the register write (register_write.cpp): the width, the write form, the token at k
//
// Why parking and not recomputing: the operands do not change within the step, but the lane a
// float position computes does (the WAITs so far choose it), and one FFMA datapath computes
// one lane per position; the write form needs all four at the last lane's position.
#include "qgpu/compiler/machine_step.h"

#include <fmt/format.h>

#include "qgpu/compiler/memory_access.h"
#include "qgpu/compiler/step_front.h"

namespace qgpu::compiler {

using machine::MOp;

// The lane-serial forms the step computes. float_lane.cpp gates each op by the same forms
// (its `form`), so a form left out here gives 0 there, never a half-computed value; change
// the two together (the joined IR test, MachineStep.*, checks them against the executor).
bool floatLaneComputes(const machine::MInstr& in) {
  switch (in.op) {
    case MOp::FMul: case MOp::FFma: return true;
    case MOp::FAdd: case MOp::FSub: case MOp::Min: case MOp::Max: case MOp::FNeg: case MOp::FAbs:
      return in.bytes() == 4;  // f64's and 64-bit integers' are lane-serial too, not computed here
    case MOp::FMin: case MOp::FMax: return in.bytes() == 4;  // .ftz or not
    case MOp::FSetp: return in.bytes() == 4 && (in.ty & 4) == 0;  // FSETP's .ftz: ty bit 2
    case MOp::I2F: return in.bytes() == 4 && (in.fl & machine::kFlI2FDest64) == 0;  // from 4 bytes to f32
    case MOp::F2I:  // from f32 to 4 bytes, into a 4-byte register (c: its width code)
      return in.bytes() == 4 && (in.fl & machine::kFlF2ISource64) == 0 && (in.c & 3) == 2;
    case MOp::H2F: case MOp::F2H: return in.bytes() == 2 && (in.fl & machine::kFlSat) == 0;
    case MOp::F2D: return in.bytes() == 4;  // f32 to f64, .ftz or not: the lane's only 64-bit result
    case MOp::Bfe: case MOp::Popc: case MOp::Clz: case MOp::Bfind: case MOp::Brev: return in.bytes() == 4;
    default: return false;
  }
}

bool stepComputes(const machine::MInstr& in) { return aluComputes(in) || in.op == MOp::Ld || floatLaneComputes(in); }

bool atomicComputes(const machine::MInstr& in) {
  if (in.op != MOp::Atom && in.op != MOp::AtomS) return false;
  if (in.fl != static_cast<uint8_t>(machine::MAtom::Add) || (in.bytes() != 4 && in.bytes() != 8)) return false;
  // d and c are registers the step writes (the old and the new values), apart from the
  // sources; a and b registers or ROM constants (ports a and b switch off their other kinds).
  const bool dRegister = in.d < 512, cRegister = in.c < 512;
  return dRegister && cRegister && in.d != in.c && in.d != in.a && in.d != in.b && in.c != in.a && in.c != in.b &&
         in.a < machine::kSpecialBase && in.b < machine::kSpecialBase;
}

MachineStepWires buildMachineStep(Circuit& c, const FrontWires& front, const OperandWires& operands) {
  MachineStepWires out;
  const Bus waits = countWaits(c, front);
  out.alu = buildAlu(c, front, operands);
  out.loaded = buildMemoryAccess(c, front, operands, out.alu.active, waits);
  out.floats = buildLaneSerialFloat(c, front, operands, out.alu.active, waits, out.alu.result[0][0]);

  // ---- parking: lane l's slot takes the result where the position computes lane l ----
  const WireId one = front.sequencer.machineToken;
  const WireId floatStep = c.step("a float lane step", out.floats.computes - 1);
  // A bank's data must be proven bits; FFMA's result bits are exclusiveOr channels (bits by
  // declaration): one threshold each.
  // 64 bits: F2D's (the only lane-serial result above bit 31) share the head.
  Bus data;
  for (uint32_t i = 0; i < 64; ++i)
    data.push_back(c.step(fmt::format("float result[{}] (bit)", i), laneSerialResult(out.floats, i)));
  for (uint32_t l = 0; l < 4; ++l) {
    MemoryBank b;
    b.writeKey = {one};
    b.readKey = {one};
    b.writeEnable = w(out.floats.lane[l]);
    b.data = data;
    b.readSelect = floatStep;
    out.parked.push_back(c.memoryRead(fmt::format("l{} parked float", l), {std::move(b)}));
  }

  // ---- the result select ----
  // The ALU's result is ready some 15 layers before the select, a lane's LD value up to 8
  // (the parked floats come last): both wait packed, four bits to a channel — the ALU's
  // accumulator (AluWires::packed) takes the LD's bits at their level, 64 channels for the
  // four lanes in place of up to 512 — and come back as threshold sums at the select, the
  // lane's parked float's level.
  for (uint32_t l = 0; l < 4; ++l) {
    const std::string lane = fmt::format("l{} ALU or LD result", l);
    // Lane 3's copy is read last (the banks fill their layers lane by lane), beside the parked
    // floats: its LD value joins the select unpacked, as packing it would cost a level there.
    const bool packLoad = l + 1 < 4;
    const std::vector<Expr> loadedBits = forms(out.loaded[l]);
    const PackedBits waiting = packLoad ? accumulatePacked(c, lane, &out.alu.packed[l], loadedBits) : out.alu.packed[l];
    const std::vector<Expr> bits = unpackBits(c, lane, waiting, out.parked[l][0]);
    Bus r;
    for (uint32_t i = 0; i < 64; ++i) {
      Expr all = bits[i];
      if (!packLoad) all += loadedBits[i];
      all += w(out.parked[l][i]);
      r.push_back(c.exclusiveOr(fmt::format("l{} step result[{}]", l, i), all));
    }
    out.result.push_back(std::move(r));
  }
  // The SIMT stack's bank where the step has free heads (layers 38 on: every layer from 13 to
  // 37 holds 16) and its token is still twelve levels on: 15 levels after the active lanes.
  // The lanes written: the active ones, or inside an atomic step the one whose value is spelled.
  Bus writeLanes;
  for (uint32_t l = 0; l < 4; ++l)
    writeLanes.push_back(c.exclusiveOr(
        fmt::format("l{} spelled", l),
        std::vector<WireId>{andStep(c, fmt::format("l{} active, no atomic step", l), {w(out.alu.active[l]), 1 - w(front.atomic.inStep)}),
                            front.atomic.spelled[l]}));
  out.write = buildRegisterWrite(c, front, operands.op, out.result, writeLanes, waits, 15);
  return out;
}

Unit machineStepUnit(const TokenVocabulary* head) {
  Unit u{Circuit("step"), {}, {}, {}, {}};
  Circuit& c = u.circuit;
  const FrontWires front = buildFront(c);
  const OperandWires operands = buildOperandSelect(c, front);
  const MachineStepWires step = buildMachineStep(c, front, operands);
  AluWires joined = step.alu;
  joined.result = step.result;
  LaneBuses lb = outputAlu(c, joined);
  outputRegisterWrite(c, step.write, lb);
  u.lanes.push_back(std::move(lb));
  if (head) writeTokenOutput(c, *head, step.write);
  return u;
}

}  // namespace qgpu::compiler
