// The atomic step's position (atomic_step.h, docs/machine.md §5.3).
//
//   layer 1  the values since ATOMIC (a counter), the last prefix (the sequencer's), the
//            token before ATOMIC (a conv tap): was it ACTIVE, and its lanes
//   then     the step's lanes kept from ATOMIC on (a one-slot bank), the lane of the value
//            spelled and of the value that ends here: the (r + 1)-th of the step's lanes,
//            r = floor(count / 2) or count / 2 - 1, as operand_select's serialLane picks a
//            lane-serial op's from its WAITs
// Everything here is a few layers deep, from the tokens: the register copies take the
// values' commits long before the guard is read, which is why a guard that turns lanes off
// is spelled (ACTIVE before ATOMIC).
#include "qgpu/compiler/atomic_step.h"

#include <fmt/format.h>

#include "qgpu/compiler/operand_select.h"
#include "qgpu/machine/isa.h"

namespace qgpu::compiler {

Expr isAtomicWord(Circuit& c, const std::string& name, const Bus& word) {
  const Bus op(word.begin(), word.begin() + machine::kWordOpBits);
  Expr e;
  for (machine::MOp o : {machine::MOp::Atom, machine::MOp::AtomS})
    e += w(c.step(fmt::format("{} is {}", name, machine::opName(o)),
                  bitsMatching(op, static_cast<uint64_t>(o)) - int64_t{machine::kWordOpBits}));
  return e;
}

AtomicStepWires buildAtomicStep(Circuit& c, const SequencerWires& s, const WriteFeatures& f) {
  const WireId one = s.machineToken;
  AtomicStepWires out;
  // Every token but a chunk is a prefix (machine::prefixValueCount), so the last prefix is
  // ATOMIC from ATOMIC to the token before the step's DONE.
  out.inStep = c.step("in an atomic step", w(s.prefixCount[4]) - 1);
  out.values = c.countSince("atomic values", s.isAtomic, s.chunkLast, 8);
  Expr odd;
  for (uint32_t j = 0; j < 8; ++j) odd += (j % 2 == 0 ? 1 : -1) * w(out.values[j]);
  out.newNext = c.step("an atomic's new value next", w(out.inStep) + odd - 2);
  out.oldNext = c.step("an atomic's old value next", w(out.inStep) - odd - 1);

  // The step's lanes: an ACTIVE token's right before ATOMIC (kept at ATOMIC: whether the token
  // before was ACTIVE, and its field's low bits),
  // else the running lanes — the sequencer's mask, which no token inside the step changes.
  Bus back{f.isActive};
  for (uint32_t l = 0; l < 4; ++l) back.push_back(f.field[l]);
  const Bus before = previousBits(c, "token before ATOMIC", back, 1, one);
  Bus data;  // a bank's data: proven bits
  for (size_t i = 0; i < before.size(); ++i) data.push_back(c.step(fmt::format("token before ATOMIC[{}] (bit)", i), w(before[i]) - 1));
  const Bus kept = lastWritten(c, "atomic ACTIVE", one, s.isAtomic, data);
  Expr count;
  for (uint32_t l = 0; l < 4; ++l) {
    const WireId given = c.step(fmt::format("atomic lane {} (ACTIVE)", l), w(kept[0]) + w(kept[1 + l]) - 2);
    const WireId running = c.step(fmt::format("atomic lane {} (running)", l), w(s.mask[l]) - w(kept[0]) - 1);
    out.lanes.push_back(c.exclusiveOr(fmt::format("atomic lane {}", l), std::vector<WireId>{given, running}));
    count += w(out.lanes[l]);
  }

  // The lane being spelled: rank floor(v / 2); the lane whose value ends at a CHUNK-LAST:
  // an old value's at an odd count (the same lane), a new value's at an even one (rank v / 2 - 1).
  // Where a value ends is known from the tokens alone, before the lanes: the lane picks fold it in.
  out.anyOldCommit = andStep(c, "an atomic's old value ends", {w(out.inStep), w(s.chunkLast)}, odd - 1, 0);
  out.anyNewCommit = andStep(c, "an atomic's new value ends", {w(out.inStep), w(s.chunkLast)}, -odd, 0);
  const Bus half{out.values[1], out.values[3], out.values[5]};      // [floor(v / 2) >= 1, 2, 3]
  const Bus halfLess{out.values[3], out.values[5], out.values[7]};  // [v / 2 - 1 >= 1, 2, 3]
  const Bus spelled = serialLane(c, "atomic value", half, out.lanes, w(out.inStep));
  out.oldCommit = serialLane(c, "atomic old value ends", half, out.lanes, w(out.anyOldCommit));
  out.newCommit = serialLane(c, "atomic new value ends", halfLess, out.lanes, w(out.anyNewCommit));
  for (uint32_t l = 0; l < 4; ++l) out.spelled.push_back(c.step(fmt::format("atomic lane {} spelled", l), w(spelled[l]) - 1));
  // Every lane's values are in: sum_i [v >= 2 i] >= the lane count (then v = 2 x count).
  out.done = w(out.values[1]) + w(out.values[3]) + w(out.values[5]) + w(out.values[7]) - count;
  return out;
}

}  // namespace qgpu::compiler
