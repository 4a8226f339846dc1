// The catalogue of compiled units (4 lanes each, as the machine runs them).
#include "qgpu/compiler/catalogue.h"

#include <fmt/format.h>

#include <algorithm>

#include "qgpu/compiler/error.h"
#include "qgpu/compiler/commit.h"
#include "qgpu/compiler/register_file.h"
#include "qgpu/compiler/sequencer.h"
#include "qgpu/compiler/alu.h"
#include "qgpu/compiler/float_lane.h"
#include "qgpu/compiler/machine_step.h"
#include "qgpu/compiler/memory_access.h"
#include "qgpu/compiler/operand_select.h"
#include "qgpu/compiler/register_write.h"
#include "qgpu/compiler/write_form.h"
#include "qgpu/compiler/step_front.h"
#include "qgpu/machine/isa.h"
#include "qgpu/machine/tokens.h"

namespace qgpu::compiler {
namespace {

// lsu32x1's positions: a store (or not) and a load, both among a few words half the time.
std::vector<int64_t> loadStoreSample(std::mt19937_64& rng, int) {
  static const uint32_t hot[] = {0, 17, 18, 1000, 2047};
  auto word = [&] { return rng() % 2 ? hot[rng() % 5] : static_cast<uint32_t>(rng() % 2048); };
  std::vector<int64_t> in{static_cast<int64_t>(rng() % 2)};
  auto bits = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i) in.push_back(static_cast<int64_t>((v >> i) & 1));
  };
  bits(word(), 11);
  bits(rng(), 32);
  bits(word(), 11);
  return in;
}

// rom12's positions: the first 100 are ROM entries (key = 0x800 | position), the rest carry
// keys without the ROM bit; every query names an entry already stored.
std::vector<int64_t> romSample(std::mt19937_64& rng, int index) {
  constexpr int kEntries = 100;
  const uint64_t key = index < kEntries ? 0x800u | static_cast<uint64_t>(index) : rng() % 0x800;
  const uint64_t query = 0x800u | (rng() % static_cast<uint64_t>(std::min(index + 1, kEntries)));
  std::vector<int64_t> in;
  auto bits = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i) in.push_back(static_cast<int64_t>((v >> i) & 1));
  };
  bits(key, 12);
  bits(rng(), 32);
  bits(query, 12);
  return in;
}
// rom12x3's: rom12's, with two more queries, each naming an entry already stored.
std::vector<int64_t> rom3Sample(std::mt19937_64& rng, int index) {
  std::vector<int64_t> in = romSample(rng, index);
  for (int q = 0; q < 2; ++q) {
    const uint64_t query = 0x800u | (rng() % static_cast<uint64_t>(std::min(index + 1, 100)));
    for (int i = 0; i < 12; ++i) in.push_back(static_cast<int64_t>((query >> i) & 1));
  }
  return in;
}

// count16's positions: a marker now and then (and at position 5, so that counts past 16
// and the unbounded count before the first marker both occur), counted three times in four.
std::vector<int64_t> counterSample(std::mt19937_64& rng, int index) {
  const bool marker = index == 5 || rng() % 28 == 0;
  return {marker ? 1 : 0, rng() % 4 != 0 ? 1 : 0};
}

// sequencer's positions: GO, then random machine tokens of every class the sequencer reads
// (steps' chunks most often), in a launch of 8 full warps and a tail of 2 lanes.
uint32_t sequencerToken(std::mt19937_64& rng, int index) {
  using namespace machine;
  auto pick = [&](uint32_t first, uint32_t count) { return first + static_cast<uint32_t>(rng() % count); };
  uint32_t id = ctl(Ctl::Go);
  if (index > 0) switch (rng() % 12) {
      case 0: case 1: case 2: id = pick(kChunkLast, 65536); break;
      case 3: id = pick(kChunkMore, 65536); break;
      case 4: id = pick(kPack4, 65536); break;
      case 5: id = topToken(static_cast<uint32_t>(rng() % kMaxPc), static_cast<uint32_t>(rng() % 16),
                            1 + static_cast<uint32_t>(rng() % 4)); break;
      case 6: id = pick(kGoto, kMaxPc); break;
      case 7: id = rng() % 4 ? pick(ctl(Ctl::Lanes), 4) : pick(ctl(Ctl::LanesHigh), 4); break;
      case 8: id = rng() % 2 ? ctl(Ctl::Done) : rng() % 2 ? ctl(Ctl::Affine) : ctl(Ctl::Atomic); break;
      case 9: id = rng() % 2 ? pick(kWarpStart, 9) : pick(kWarpResume, 9); break;
      case 10: id = rng() % 4 ? pick(kDepth + 2, 8) : pick(kBlock, 64); break;
      default: id = rng() % 2 ? ctl(Ctl::Wait) : ctl(Ctl::Fall); break;
    }
  return id;
}
std::vector<int64_t> sequencerSample(std::mt19937_64& rng, int index) {
  return sequencerInputs(sequencerToken(rng, index), 8, 0x3);
}

// A token for the pending write's samples: the sequencer's, an ACTIVE one now and then.
uint32_t writeToken(std::mt19937_64& rng, int index) {
  using namespace machine;
  return index > 0 && rng() % 8 == 0 ? kActive + 1 + static_cast<uint32_t>(rng() % 14) : sequencerToken(rng, index);
}
// commit's positions: those tokens, each with a write width (4 and 8 bytes most often,
// sometimes none).
std::vector<int64_t> commitSample(std::mt19937_64& rng, int index) {
  using namespace machine;
  const uint32_t id = writeToken(rng, index);
  static const uint32_t kBytes[] = {4, 8, 4, 8, 1, 2, 0};
  return commitInputs(id, 8, 0x3, kBytes[rng() % std::size(kBytes)]);
}

// register-file positions: 32 warps of 16 registers (every slot of the four banks), a
// write at half of them (random lanes and values), random reads by every port.
std::vector<int64_t> registerFileSample(std::mt19937_64& rng, int) {
  RegisterFileAccess a;
  a.shift = 4;
  a.warp = static_cast<uint32_t>(rng() % 32);
  a.commit = rng() % 2 == 0;
  if (a.commit) {
    a.lanes = static_cast<uint32_t>(rng() % 16);
    a.reg = static_cast<uint32_t>(rng() % 16);
    for (uint64_t& v : a.values) v = rng();
  }
  for (uint32_t& r : a.read) r = static_cast<uint32_t>(rng() % 16);
  return registerFileInputs(a);
}

// Prompt item k of a section (a code word, a constant) after its checkpoint AT, if it has one.
void appendPromptItem(std::vector<uint32_t>& prompt, uint32_t k, const std::vector<uint32_t>& tokens) {
  using namespace machine;
  if (k > 0 && k % kPromptCheckpointItems == 0) prompt.push_back(kAt + k / kPromptCheckpointItems);
  prompt.insert(prompt.end(), tokens.begin(), tokens.end());
}
// A code word's four chunks, the last a CHUNK-LAST.
std::vector<uint32_t> codeWordTokens(uint64_t w) {
  using namespace machine;
  std::vector<uint32_t> t;
  for (int i = 0; i < 4; ++i) t.push_back((i == 3 ? kChunkLast : kChunkMore) + static_cast<uint32_t>((w >> (16 * i)) & 0xffff));
  return t;
}

// fetch's positions: a prompt of 20 code words (AT 1 among them: 87 positions, so that the
// cross-engine check's 130 reach generated ones), then random machine tokens as the
// sequencer's samples (pcs past the code fetch 0).
const std::vector<uint32_t>& fetchPrompt() {
  using namespace machine;
  static const std::vector<uint32_t> prompt = [] {
    std::mt19937_64 words(5);
    std::vector<uint32_t> p{ctl(Ctl::Prompt), ctl(Ctl::Code), kChunkLast + 20};
    for (uint32_t k = 0; k < 20; ++k) appendPromptItem(p, k, codeWordTokens(words()));
    p.push_back(ctl(Ctl::Consts));
    p.push_back(kChunkLast);
    p.push_back(ctl(Ctl::Go));
    return p;
  }();
  return prompt;
}
std::vector<int64_t> fetchSample(std::mt19937_64& rng, int index) {
  using namespace machine;
  const std::vector<uint32_t>& prompt = fetchPrompt();
  if (index < static_cast<int>(prompt.size())) return fetchInputs(prompt[static_cast<size_t>(index)], 8, 0x3);
  std::vector<int64_t> in = sequencerSample(rng, index);
  const std::vector<int64_t> all = fetchInputs(kChunkLast, 8, 0x3);  // the prompt features of a generated token
  const std::vector<int64_t> tail(all.begin() + static_cast<std::ptrdiff_t>(in.size()), all.end());
  std::vector<int64_t> features = in;
  for (size_t i = 0; i < tail.size(); ++i) features.push_back(0);
  return features;
}

// front's positions: fetch's prompt with a LAUNCH section of 34 threads (8 full warps and a
// tail of 2 lanes) and 13 registers (16 slots per warp), then the pending write's random
// tokens (ACTIVE among them).
std::vector<int64_t> frontSample(std::mt19937_64& rng, int index) {
  using namespace machine;
  static const std::vector<uint32_t> prompt = [] {
    std::vector<uint32_t> p = fetchPrompt();
    p.insert(p.end() - 1, {ctl(Ctl::Launch), kChunkLast + 34, kChunkLast + 13});
    return p;
  }();
  return frontInputs(index < static_cast<int>(prompt.size()) ? prompt[static_cast<size_t>(index)] : writeToken(rng, index));
}

// write_form's positions: a register write each, values of every form's pattern cut to a
// random width, a random non-empty lane mask.
std::vector<int64_t> writeFormSample(std::mt19937_64& rng, int index) {
  const uint32_t bytes = 1u << (rng() % 4);
  const uint64_t wm = bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
  const uint64_t base = rng() >> (rng() % 64), stride = rng() % 9;
  std::array<uint64_t, 4> v{};
  for (uint32_t l = 0; l < 4; ++l) {
    switch (index % 4) {
      case 0: v[l] = base; break;
      case 1: v[l] = rng() % 16; break;
      case 2: v[l] = base + stride * l; break;
      default: v[l] = (rng() >> (rng() % 64)) << (index % 8 == 3 ? 16 : 0); break;
    }
    v[l] &= wm;
  }
  return writeFormInputs(v, 1 + static_cast<uint32_t>(rng() % 15), bytes);
}

// write_token's positions: write_form's, and an index k in 0..16 (as its thermometer bits).
std::vector<int64_t> writeTokenSample(std::mt19937_64& rng, int index) {
  std::vector<int64_t> in = writeFormSample(rng, index);
  const uint32_t k = static_cast<uint32_t>(rng() % 17);
  for (uint32_t i = 1; i <= 16; ++i) in.push_back(k >= i ? 1 : 0);
  return in;
}

// operands' positions: front's, with a prompt whose 20 code words read only the 20 ROM
// constants it holds (values of one to four chunks, AT 1 among them), as a lowering's do.
std::vector<int64_t> operandsSample(std::mt19937_64& rng, int index) {
  using namespace machine;
  static const std::vector<uint32_t> prompt = [] {
    std::mt19937_64 random(7);
    constexpr uint32_t kConstants = 20;
    std::vector<uint32_t> p{ctl(Ctl::Prompt), ctl(Ctl::Code), kChunkLast + 20};
    for (uint32_t k = 0; k < 20; ++k) {
      uint64_t w = random();
      for (uint32_t at : {kWordAAt, kWordBAt, kWordCAt}) {  // a constant field names one of the 20
        const uint64_t field = (w >> at) & 0x3ff;
        if (field >= kConstBase && field < kSpecialBase)
          w = (w & ~(uint64_t{0x3ff} << at)) | uint64_t{kConstBase + field % kConstants} << at;
      }
      appendPromptItem(p, k, codeWordTokens(w));
    }
    p.push_back(ctl(Ctl::Consts));
    p.push_back(kChunkLast + kConstants);
    for (uint32_t k = 0; k < kConstants; ++k) {
      const uint64_t v = random() >> (16 * (k % 4));  // 4, 3, 2, 1 chunks and sign-extended ones
      appendPromptItem(p, k, valueTokens(k % 8 < 4 ? v : ~v, 8));
    }
    p.insert(p.end(), {ctl(Ctl::Launch), kChunkLast + 34, kChunkLast + 13, ctl(Ctl::Go)});
    return p;
  }();
  return frontInputs(index < static_cast<int>(prompt.size()) ? prompt[static_cast<size_t>(index)] : writeToken(rng, index));
}

// shfl's positions: its four mode selectors one-hot or all 0 (as the machine's op decode
// makes them: the source lane's one-hot is declared on that), the rest uniform bits.
std::vector<int64_t> shuffleSample(std::mt19937_64& rng, int) {
  static const size_t inputs = shuffleFullUnit(4).circuit.inputs().size();
  const uint64_t mode = rng() % 5;  // 4: no mode
  std::vector<int64_t> in;
  for (uint64_t m = 0; m < 4; ++m) in.push_back(m == mode ? 1 : 0);
  while (in.size() < inputs) in.push_back(static_cast<int64_t>(rng() % 2));
  return in;
}

}  // namespace

const std::vector<UnitSpec>& unitCatalogue() {
  static const std::vector<UnitSpec> units = {
      {"add32", "ADD 32-bit", [] { return integerAddUnit(32, 4, false); }},
      {"sub32", "SUB 32-bit", [] { return integerAddUnit(32, 4, true); }},
      {"add64", "ADD 64-bit (addresses, CVTA)", [] { return integerAddUnit(64, 4, false); }},
      {"sub64", "SUB 64-bit", [] { return integerAddUnit(64, 4, true); }},
      {"logic32", "AND OR XOR NOT MOV SELP 32-bit", [] { return logicUnit(32, 4); }},
      {"setp_s32", "SETP integer, signed 32-bit", [] { return compareUnit(32, 4, true); }},
      {"setp_u32", "SETP integer, unsigned 32-bit", [] { return compareUnit(32, 4, false); }},
      {"setp_s64", "SETP integer, signed 64-bit", [] { return compareUnit(64, 4, true); }},
      {"shfl32", "SHFL lane mux (source lane given)", [] { return shuffleUnit(32, 4); }},
      {"vote", "VOTE all/any/uni/ballot", [] { return voteUnit(4); }},
      {"shfl", "SHFL up/down/bfly/idx (source lane from b, c)", [] { return shuffleFullUnit(4); }, false, shuffleSample},
      {"bra", "BRA guard and SIMT-stack decision (11-bit code addresses)", [] { return branchUnit(4, 11); }},
      {"exit", "EXIT exited mask and the masks of 32 SIMT-stack entries", [] { return exitUnit(4, 32); }},
      // One lane's 8 KiB copy is 64 banks (4 layers of 16 heads); four lanes take 16 layers.
      {"lsu32x1", "LD ST 32-bit, one lane's memory copy (64 banks, one store per position)",
       [] { return loadStoreUnit(1); }, false, loadStoreSample},
      {"rom12", "attention lookup: a 32-bit word by a 12-bit key (the ROM fetch's shape)", [] { return lookupUnit(12, 32); },
       false, romSample},
      {"rom12x3", "attention lookup: one table of 32-bit words read by three 12-bit queries (three query heads over one "
       "key-value head: the ROM constants' shape)", [] { return lookupUnit(12, 32, 3); }, false, rom3Sample},
      {"window16", "conv-window reads: a 16-bit token value 1, 2 and 3 positions back", [] { return windowUnit(16); }},
      {"lsu32", "LD ST 32-bit, four lanes' memory copies (256 banks, one store per position)",
       [] { return loadStoreUnit(4); }},
      // --- f32 adder ---
      {"fadd32", "FADD FSUB f32 (rn rz rm rp, ftz, sat)", [] { return faddUnit(4); }},
      // --- end f32 adder ---
      {"fmul32", "FMUL f32 (rn rz rm rp, ftz, sat)", [] { return fmulUnit(4); }},
      // Four lanes do not fit one layer stack (the plan-only row); one lane is emitted.
      {"ffma32", "FFMA f32 for four lanes (rn rz rm rp, ftz, sat)", [] { return ffmaUnit(4); }, true},
      {"ffma32x1", "FFMA f32, one lane: the machine's FFMA (lane-serial)", [] { return ffmaUnit(1); }},
      // --- multiplier ---
      {"mul32", "MULWIDE MULLO MULHI 32-bit (the 64-bit product, signed by a selector)", [] { return multiplierUnit(4); }},
      {"mul24lo", "MUL24 MAD24 lo", [] { return mul24Unit(4, false); }},
      {"mul24hi", "MUL24 MAD24 hi", [] { return mul24Unit(4, true); }},
      {"mulp", "MULP (64-bit multiply micro-code, no shift)", [] { return mulpUnit(4, false); }},
      {"mulp_shl32", "MULP (shift left 32)", [] { return mulpUnit(4, true); }},
      // --- end multiplier ---
      {"count16", "sequencer counter: positions since a marker as [k >= 1..16] (a halving head, 16 threshold heads)",
       [] { return counterUnit(16); }, false, counterSample},
      {"sequencer", "token intake and sequencer: block, warp, pc, mask, depth, step end from the token stream",
       [] { return sequencerUnit(); }, false, sequencerSample},
      {"fetch", "the sequencer and the fetch: the code word at the pc, looked up among the prompt's CODE words",
       [] { return fetchUnit(); }, false, fetchSample},
      {"commit", "the sequencer and the pending write: each lane's value and the lanes a step's register write commits",
       [] { return commitUnit(); }, false, commitSample},
      {"registers", "the register file: every warp's registers, one copy per read port (a, b, c, guard), written at a commit",
       [] { return registerFileUnit(); }, false, registerFileSample},
      {"front", "the step's front end: sequencer, fetch, pending write, committed instruction and register file joined",
       [] { return frontUnit(); }, false, frontSample},
      {"operands", "the front end and the operand select: registers, ROM constants by one lookup of three queries, specials",
       [] { return operandsUnit(); }, false, operandsSample},
      {"alu", "the operand select and the integer ALU: ADD SUB CADD CARRY, logic, SETP, SHFL, VOTE (live lanes from a slot), the 32x32 multiplier (MULLO MADLO at 2 and 4 bytes, MULHI MULWIDE at 4), the shifter (SHR at 2, 4, 8 bytes, SHL, SHF), NEG, CVTI cut to the op's width, the result select, the active mask",
       [] { return aluUnit(); }, false, operandsSample},
      {"write_form", "write-form decision: the cheapest form of a register write (machine::encodeWrite), its token count, AFFINE's base and stride",
       [] { return writeFormUnit(); }, false, writeFormSample},
      {"write_token", "write-form decision and spelling: the write's token at index k of its step (the id, whether it is the last)",
       [] { return writeTokenUnit(); }, false, writeTokenSample},
      {"alu_write", "the integer ALU (multiplier, shifter, NEG, CVTI included) and its register write spelled (the width from the word, the token index from a counter, the write's token), and the step's control tokens, DONE and WAIT: the pc checkpoint, BRAs and pops at any SIMT depth (the stack's entries in two heads)",
       [] { return aluWriteUnit(); }, false, operandsSample},
      {"memory", "the operand select and the memory: four lane copies of 64 one-byte banks written by the prompt's segments and by stores (one lane per position), an LD read per lane at a + b, extended to the register width",
       [] { return memoryAccessUnit(); }, false, operandsSample},
      {"float_lane", "the operand select and the lane-serial float step: FADD, FSUB, FMUL and FFMA one active lane per position on one FFMA datapath (the lane from the WAITs so far); beside it on the same lane the compare family (MIN MAX FMIN FMAX FNEG FABS FSETP), the conversions I2F F2I H2F F2H, BFE, POPC, CLZ, BFIND and BREV",
       [] { return laneSerialFloatUnit(); }, false, operandsSample},
      {"step", "the machine step joined: the operand select, the ALU, the memory (LD, lane-serial ST, lane-serial atomics that add: old value to d, new to c and memory), the lane-serial float step with its lanes' results parked, one result select and the register write spelled, and the step's control tokens",
       [] { return machineStepUnit(); }, false, operandsSample, true},
      {"unpack64", "packed operand read: a 64-bit operand per lane from four 16-bit chunk channels",
       [] { return unpackUnit(4, 4); }},
  };
  return units;
}

const UnitSpec& findUnit(const std::string& name) {
  const UnitSpec& u = findUnitOrPlan(name);
  if (u.planOnly)
    throw CompileError(fmt::format("unit '{}' is plan-only: too big to emit as one checkpoint here "
                                   "(qgpu compile units reports its plan)", name));
  return u;
}

const UnitSpec& findUnitOrPlan(const std::string& name) {
  for (const UnitSpec& u : unitCatalogue())
    if (u.name == name) return u;
  std::string names;
  for (const UnitSpec& u : unitCatalogue()) names += (names.empty() ? "" : ", ") + u.name;
  throw CompileError(fmt::format("no compiled unit '{}' (units: {})", name, names));
}

}  // namespace qgpu::compiler
