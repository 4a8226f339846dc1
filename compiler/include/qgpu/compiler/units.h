// Circuits of the machine's functional units (docs/machine.md §5.1), built from the IR's
// step/gate/sum for `lanes` lanes in parallel: each unit takes and returns operands as bit
// buses (least significant bit first), as the register file holds them.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qgpu/compiler/circuit.h"

namespace qgpu::compiler {

/// The operand and result buses of one lane, in input/output order.
struct LaneBuses {
  std::vector<Bus> operands;
  std::vector<Bus> results;
};

struct Unit {
  Circuit circuit;
  std::vector<LaneBuses> lanes;
  std::vector<WireId> selectors;  // one-hot op selection inputs (shared by the lanes), if any
  std::vector<std::string> selectorNames;
  std::vector<Bus> shared;  // other operands all lanes share (SHFL's executing lanes)
};

// --- bit-level helpers (one MLP level each unless noted) ---
WireId bitAnd(Circuit& c, const std::string& name, WireId a, WireId b);
WireId bitOr(Circuit& c, const std::string& name, WireId a, WireId b);
/// a xor b as a linear form of a and a + b - 2ab: the result is not a structural bit.
WireId bitXor(Circuit& c, const std::string& name, WireId a, WireId b);
/// [every form in `bits` is 1 and L >= 0] as one step; `bits` are forms whose values are 0
/// or 1 (their ranges may be wider: telescoped sums), L any form. The bits' weight exceeds
/// L's largest value: its range's, or `lMax` when the caller knows L's values better than
/// the interval does (L a sum of forms whose values are bits) — a tighter pre-activation
/// for the proof, and a wrong lMax shows as a wrong result in the unit tests.
WireId andStep(Circuit& c, const std::string& name, const std::vector<Expr>& bits, Expr L = Expr(0),
               std::optional<int64_t> lMax = std::nullopt);

/// Bit k of -x (two's complement), x_k XOR [some bit of x below k is set], as two thresholds
/// summed (the second only where bits lie below: `hasBelow`). `bit` is x_k, `below` the sum of
/// x's bits under k, M a weight above `below`'s largest value; `guard` is 0 where the bit is
/// wanted and at most -M where it must be 0 (an op selector folded in: M (sel - 1)).
Expr negationBit(Circuit& c, const std::string& name, const Expr& bit, const Expr& below, bool hasBelow, const Expr& guard,
                 int64_t M);

/// How many of `bits` equal the bits of `value` (least significant first): a form that reaches
/// bits.size() exactly where they hold value — the condition of an equality threshold.
Expr bitsMatching(const Bus& bits, uint64_t value);

/// Chunk m of `bits` (bits 8m .. 8m+7) as the form sum_j 2^j bit, and the same with its top
/// bit counted as -2^7 and shifted by +128 (the chunk that holds a sign bit, in signed order).
Expr chunkValue(const Bus& bits, uint32_t m);
Expr signedChunkValue(const Bus& bits, uint32_t m);
/// The digit of two chunk values x and y: [x > y] - [x < y], two steps named `name` + " >"
/// and " <" (in that order). Digits weighted 2^m compare as the numbers do, one level for
/// every chunk at once (SETP, MIN/MAX, the floats' order). `place`, if given, is applied to
/// each step's wire before it is read (e.g. a notBefore).
Expr chunkDigit(Circuit& c, const std::string& name, const Expr& x, const Expr& y,
                const std::function<void(WireId)>& place = nullptr);

/// The rounding back end of the conversions (I2F, F2I, F2H; rounding.cpp). The mode's
/// increment, a form whose value is a bit: rn rounds up on guard and (sticky or `lowBit`, the
/// kept value's bit 0), rm on guard or sticky where `negative`, rp where not, rz never;
/// modeOff[k] is 0 where the mode is k (rn rz rm rp) and at most -4 otherwise. Three steps.
Expr roundingIncrement(Circuit& c, const std::string& name, const Expr& guard, const Expr& sticky, const Expr& lowBit,
                       const Expr& negative, const std::array<Expr, 4>& modeOff);
/// modeOff of a mode held as two bits (rn rz rm rp = 0 1 2 3, least significant first).
std::array<Expr, 4> modeOffsets(const Bus& modeBits);
/// value + inc on bits 0 .. width-1 (value's forms and inc have bit values; a carry out of
/// the top is the caller's): per bit the form value_j + flips - 2 flipsOne, whose value is the
/// sum's bit — one level of [ones below j] steps, with inc, then one of flips.
std::vector<Expr> addIncrement(Circuit& c, const std::string& name, const std::vector<Expr>& value, const Expr& inc,
                               uint32_t width);

/// Each wire of `bus` as a form (w(x)): what the adders and packers take.
std::vector<Expr> forms(const Bus& bus);

/// Bits carried in few channels across layers where channels are scarce: `perChannel` of them
/// to a channel (Circuit::channel), as sum_i 2^i bit_i. `bits` are forms whose values are bits.
struct PackedBits {
  std::vector<WireId> channels;
  std::vector<uint32_t> widths;  // bits in each channel
};
PackedBits packBits(Circuit& c, const std::string& name, const std::vector<Expr>& bits, uint32_t perChannel = 4);
/// An accumulator of units' results, packed as packBits' channels: channel k is `prev`'s
/// channel k (if any) plus bits[k perChannel ..] packed, declared within [0, 2^width - 1]
/// because the machine makes at most one unit's bits not 0 (an exclusiveSum). Each unit adds
/// its bits at their own level, so none waits unpacked for the last unit's.
PackedBits accumulatePacked(Circuit& c, const std::string& name, const PackedBits* prev, const std::vector<Expr>& bits,
                            uint32_t perChannel = 4);
/// The bits back in one level at `at`'s level or later: [x >= j] for every 0 < j < 2^width of
/// each channel x, and bit i as the sum of the thresholds whose j flips it (a telescoped sum:
/// a form whose value is a bit, with no channel of its own).
/// With `levelsAfter`, that many levels after `at`'s (Circuit::notBefore).
std::vector<Expr> unpackBits(Circuit& c, const std::string& name, const PackedBits& p, WireId at, uint32_t levelsAfter = 0);

/// [address == j] for every j < 2^bits, one step each, for a memory key: two of them sum to at
/// most minus their Hamming distance, which is what makes them provably exclusive.
std::vector<WireId> decodeAddress(Circuit& c, const std::string& name, const Bus& address);

/// Carry-select adder of two `bits`-bit buses plus a constant carry-in, in two levels:
/// per-chunk carries for carry-in 0 and 1, then chunk carries by a threshold over the
/// chunks' generate/propagate digits merged with the bit carries (docs/compiler.md §4).
/// Returns the sum bits (and the carry-out, as the last wire, if `carryOut`).
Bus addBuses(Circuit& c, const std::string& name, const std::vector<Expr>& a, const std::vector<Expr>& b, int carryIn,
             bool carryOut = false);
/// The same with a carry-in that is a form whose values are bits (SUB's +1 chosen by the op):
/// the first chunk's carries take it in their thresholds, at no extra level.
Bus addBuses(Circuit& c, const std::string& name, const std::vector<Expr>& a, const std::vector<Expr>& b,
             const Expr& carryIn, bool carryOut = false);

/// ADD and SUB in one carry chain, chosen by `sub` (a structural bit): a + b where it is 0,
/// a + ~b + 1 where it is 1, without ~b (or b XOR sub) as wires of their own — each carry
/// threshold is built for both values of `sub`, the other silenced by a weight. Two levels,
/// as addBuses'. Returns carry[j], j = 0..n (forms whose values are bits; carry[0] = sub):
/// result bit j is a_j + b_j + carry_j - 2 carry_{j+1} for ADD and a_j + 1 - b_j + carry_j -
/// 2 carry_{j+1} for SUB. `last` is a wire of the second level. With `firstLevelAt`, the first
/// level waits for that wire's level (notBefore). With `carryIn` (a structural bit or a
/// declared one), the carry into bit 0 is that bit for either op (CADD, CARRY: a + b + cin,
/// a + ~b + cin), and carry[0] is it; the carry-in is read at the second level only. The
/// carries into bits 1 .. lowPairs.size() are then not wires (empty forms): each is
/// [lowPairs[j - 1] + carryIn >= 2], for the reader to fold into its own thresholds (the
/// first chunk's pairs c0 + c1, values 0 1 2).
struct AddSubCarries {
  std::vector<Expr> carry;
  std::vector<Expr> lowPairs;
  WireId last = 0;
};
AddSubCarries addSubCarries(Circuit& c, const std::string& name, const std::vector<Expr>& a, const std::vector<Expr>& b,
                            WireId sub, std::optional<WireId> firstLevelAt = std::nullopt,
                            std::optional<WireId> carryIn = std::nullopt);

/// ADD or SUB of `bits`-bit integers (machine ADD/SUB), modulo 2^bits.
Unit integerAddUnit(uint32_t bits, uint32_t lanes, bool subtract);
/// AND/OR/XOR/NOT/MOV/SELP on 32-bit operands, one-hot selected (machine logic unit).
Unit logicUnit(uint32_t bits, uint32_t lanes);
/// SETP on `bits`-bit integers: eq ne lt le gt ge (signed or unsigned by `isSigned`) and
/// lo ls hi hs, one-hot selected; the result is the predicate bit.
Unit compareUnit(uint32_t bits, uint32_t lanes, bool isSigned);
/// SHFL's lane mux: lane l reads lane src[l] (a one-hot source per lane) of a 32-bit value.
Unit shuffleUnit(uint32_t bits, uint32_t lanes);

/// The whole SHFL step for `lanes` (<= 4) lanes: mode one-hot (up down bfly idx), the executing
/// lanes, per lane the value (32 bits), b (5 bits), clamp and segment mask (5 bits each);
/// per lane the result and an `undefined` bit (the source lane does not take part).
Unit shuffleFullUnit(uint32_t lanes);
/// The same on wires: mode one-hot (forms whose values are bits; all 0 where the step is no
/// SHFL), the executing lanes, per lane the value (32 bits), b, clamp and segment mask (5
/// bits each). Returns per lane the result (32 sums of level-4 steps, 0 unless a mode is
/// selected) and `undefined` (the source lane does not take part).
struct ShuffleWires {
  std::vector<Bus> result;
  Bus undefined;
};
ShuffleWires buildShuffle(Circuit& c, const std::string& name, const std::vector<WireId>& mode, const Bus& eff,
                          const std::vector<Bus>& v, const std::vector<Bus>& b, const std::vector<Bus>& cval,
                          const std::vector<Bus>& seg);

/// VOTE for `lanes` lanes: mode one-hot (all any uni ballot), negate, the executing lanes and
/// every lane's predicate (shared), per lane its member lanes; per lane the result's low
/// `lanes` bits (the predicate in bit 0, or the ballot).
Unit voteUnit(uint32_t lanes);
/// The same on wires: mode one-hot (forms whose values are bits, all 0 where the step is no
/// VOTE), negate, the executing lanes, every lane's predicate, per lane its member lanes
/// (b & the live lanes). Returns per lane the result's low bits (sums of level-2 steps).
std::vector<Bus> buildVote(Circuit& c, const std::string& name, const std::vector<WireId>& mode, WireId negate,
                           const Bus& eff, const Bus& pred, const std::vector<Bus>& members);
// --- f32 adder (fadd.cpp) ---
/// FADD/FSUB f32 (machine MOp::FAdd/FSub, 4-byte type) for `lanes` lanes. Selectors, in
/// faddSelectors() order: the rounding mode one-hot (rn rz rm rp), then the flags sub,
/// ftz and sat (each 0 or 1). Operands a, b and the result are 32-bit buses.
Unit faddUnit(uint32_t lanes);
const std::vector<std::string>& faddSelectors();
// --- end f32 adder ---
// --- branch unit (branch.cpp) ---
/// BRA's guard and SIMT-stack decision for one warp (machine guardedMask + branchUpdate):
/// selectors guard, negated (branchSelectors()); operand buses mask, pred (lanes bits), pc,
/// b, c and the top entry's rpc (pcBits bits each). Results: taken, notTaken, the bits
/// {none, all, diverged, pop, push fallthrough, push taken}, the top entry's new pc.
Unit branchUnit(uint32_t lanes, uint32_t pcBits);
const std::vector<std::string>& branchSelectors();
// --- end branch unit ---
// --- exit unit (exit.cpp) ---
/// EXIT for one warp (machine guardedMask + exitedAfterExit + entryMaskAfterExit): selectors
/// guard, negated (exitSelectors()); operand buses mask, pred, exited and the masks of
/// `entries` SIMT stack entries (lanes bits each). Results: the exiting lanes, the new exited
/// mask, every entry's new mask.
Unit exitUnit(uint32_t lanes, uint32_t entries);
const std::vector<std::string>& exitSelectors();
// --- end exit unit ---
// --- f32 multiplier (fmul.cpp) ---
/// The selectors of FMUL and FFMA, in order: the rounding mode one-hot (rn rz rm rp), ftz, sat.
const std::vector<std::string>& f32ModeSelectors();
/// FMUL f32 (machine MOp::FMul) for `lanes` lanes, f32ModeSelectors(); operands a, b and the
/// result are 32-bit buses.
Unit fmulUnit(uint32_t lanes);
// --- end f32 multiplier ---
// --- f32 fused multiply-add (ffma.cpp) ---
/// FFMA f32 (machine MOp::FFma): a * b + c rounded once, for `lanes` lanes, f32ModeSelectors();
/// operands a, b, c: 32-bit buses.
Unit ffmaUnit(uint32_t lanes);
// --- end f32 fused multiply-add ---
// --- multiplier (multiplier.cpp) ---
/// Which bits of the 2w-bit product a multiplier unit returns (MULLO, MULHI, MULWIDE).
enum class MulPart { Lo, Hi, Wide };
/// Bits [lo, hi) of (sum_d digits[d] * 2^(6d)) mod 2^hi, digits[d] linear forms of any sign
/// (at most ceil(hi / 6) of them; a digit's span, offsets included, must stay below 2^12 so that
/// its carries are bits, else CompileError): thresholds split every digit into a radix-64
/// form with binary carries, a lookahead over the digits, the bits last (five MLP levels
/// after the digits' own). `chainLowBits`: every bit a chain of thresholds (range 0..1, for
/// readers that weight bits heavily) at the price of twice the last level's thresholds.
Bus digitsToBits(Circuit& c, const std::string& name, const std::vector<Expr>& digits, uint32_t lo, uint32_t hi,
                 bool chainLowBits = false);
/// Bits [lo, hi) of the product of two bit buses (two's complement if `isSigned`), modulo
/// 2^hi: partial products a_i * (b's bits in one radix-64 digit) as gates, then digitsToBits.
Bus multiplyBuses(Circuit& c, const std::string& name, const Bus& a, const Bus& b, bool isSigned, uint32_t lo,
                  uint32_t hi);
/// Digit forms (radix 64) of the product of two n-bit buses modulo 2^hi, for digitsToBits:
/// the unsigned partial products as gates, and the two's-complement correction
/// -2^n (a_(n-1) B + b_(n-1) A) as two rows of steps [sign bit AND signed] * (the other
/// operand's bits in one digit), all at one level. aSigned, bSigned: bits saying whether
/// each operand is signed (selectors of the machine's units).
std::vector<Expr> productDigits(Circuit& c, const std::string& name, const Bus& a, const Bus& b, WireId aSigned,
                                WireId bSigned, uint32_t hi);
/// productDigits for operands of two widths on one set of partial products: where `wide`
/// is 1, the n-bit product (correction rows under `signedWide`); where it is 0, the product
/// of the low n/2 bits alone (the others' partial products switched off by `wide`, the
/// correction rows on bit n/2 - 1 under `signedNarrow`), exact modulo 2^n. The same number
/// of partial products but for the digits that straddle bit n/2 of b, and two more rows.
std::vector<Expr> productDigitsTwoWidths(Circuit& c, const std::string& name, const Bus& a, const Bus& b, WireId wide,
                                         WireId signedWide, WireId signedNarrow, uint32_t hi);
/// MULLO / MULHI / MULWIDE of `bits`-bit operands alone (one op, one signedness).
Unit multiplyUnit(uint32_t bits, uint32_t lanes, bool isSigned, MulPart part);
/// The machine's 32x32 multiplier: the 64-bit product of signed or unsigned operands
/// (selector input `signed`) per lane, six MLP levels. MULWIDE is the product, MULLO its
/// low and MULHI its high half (which half: the result select's routing, §5.2 layer 38).
Unit multiplierUnit(uint32_t lanes);
/// MUL24 / MAD24: the 24x24-bit product of the operands' low 24 bits (signed or unsigned:
/// selector `signed`), its low 32 bits (`high` false) or bits 47..16, plus c (32 bits).
Unit mul24Unit(uint32_t lanes, bool high);
/// MULP (64-bit multiply micro-code) without / with the left shift by 32: d = c + (P << s)
/// mod 2^64, P = the product of the 32-bit halves given as operands a, b (each signed per
/// its selector: the machine's high half of a signed ty). The right-shift mode (floor(P /
/// 2^32), a 96-bit sum) is not built.
Unit mulpUnit(uint32_t lanes, bool shiftLeft32);
// --- end multiplier ---

// --- load/store unit (memory.cpp) ---
/// LD/ST of aligned 32-bit words on slot memory (docs/machine.md §5.3) for `lanes` lanes, each
/// reading its own 8 KiB copy (64 banks of 128 bytes) and every copy taking the store. Selector
/// `st` (store at this position); shared operands: the store's word address (11 bits) and data
/// (32); per lane the load's word address (11 bits); per lane the loaded word (the store of the
/// same position included: a DeltaNet head writes, then reads).
Unit loadStoreUnit(uint32_t lanes);
/// `data` as it was `delay` (1..3) positions back (0 before the start): a one-slot bank whose
/// value channels' conv tap reads that token; `one` an always-1 structural bit (its key).
Bus previousBits(Circuit& c, const std::string& name, const Bus& data, uint32_t delay, WireId one);
/// A last-write-wins field: one slot keyed by `key` (a bit that is 1 wherever the field is
/// read or written), written with `data` where `write` is 1, read back after this position's
/// write. How the machine step keeps the fields the stream names (docs/machine.md §5.2).
Bus lastWritten(Circuit& c, const std::string& name, WireId key, WireId write, const Bus& data);
/// The same, written where the form `write` is 1 (its range must stay <= 1, e.g. a + b - 1).
Bus lastWritten(Circuit& c, const std::string& name, WireId key, const Expr& write, const Bus& data);
/// Conv-window reads: a `bits`-bit input as it was 1, 2 and 3 positions back.
Unit windowUnit(uint32_t bits);
// --- end load/store unit ---
/// An attention lookup (lookup.cpp): at every position (key, value) is stored and the value
/// of the one position so far whose key equals `query` is returned (keyBits <= 16).
Unit lookupUnit(uint32_t keyBits, uint32_t valueBits, uint32_t queries = 1);

// --- packed operands (unpack.cpp) ---
/// The 16 structural bits (least significant first) of `chunk`, an integer wire in
/// [0, 65535], in four MLP levels: bits 12..15 at the second, 6..11 at the third, 0..5 at
/// the fourth.
Bus unpackChunk(Circuit& c, const std::string& name, WireId chunk);
/// `chunks` 16-bit chunks per lane (inputs l<l>.chunk<j>, range [0, 65535]) into their bits:
/// the cost of reading an operand packed in integer channels (docs/machine.md §5.2).
Unit unpackUnit(uint32_t lanes, uint32_t chunks);
// --- end packed operands ---

/// The compare codes of compareUnit's selectors, in order.
const std::vector<std::string>& compareCodes();
/// The ops of logicUnit's selectors, in order.
const std::vector<std::string>& logicOps();

/// The counter of docs/machine.md §5.2: inputs marker and counted (bits), outputs
/// [k >= 1] .. [k >= bits] for k the counted positions since the last marker (circuit.h's
/// countSince): one halving head, then `bits` threshold heads, 3 layers with the last.
Unit counterUnit(uint32_t bits);

}  // namespace qgpu::compiler
