// The compiler's circuit IR: integer wires with proven ranges, built from the four
// operations a Qwen3.5 MLP level computes exactly (docs/compiler.md §1), and the exact
// evaluator that runs it in integer arithmetic (the tier-2 oracle between the machine's
// reference executor and the weights).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace qgpu::compiler {

using WireId = uint32_t;

/// Closed integer interval.
struct Range {
  int64_t lo = 0, hi = 0;
  bool isBit() const { return lo == 0 && hi == 1; }
  int64_t magnitude() const { return lo < 0 ? (-lo > hi ? -lo : hi) : hi; }
};

struct Term {
  WireId wire;
  int64_t coeff;
};

/// An integer linear form: constant + sum of coeff * wire. Built with the operators
/// below (`w(a) + 2 * w(b) - 1`); terms on the same wire are merged.
struct Expr {
  int64_t constant = 0;
  std::vector<Term> terms;

  Expr() = default;
  Expr(int64_t c) : constant(c) {}  // NOLINT: constants read naturally in expressions
  static Expr wire(WireId id) {
    Expr e;
    e.terms.push_back({id, 1});
    return e;
  }
  Expr& operator+=(const Expr& o);
  Expr& operator-=(const Expr& o);
  Expr& operator*=(int64_t k);
};
Expr operator+(Expr a, const Expr& b);
Expr operator-(Expr a, const Expr& b);
Expr operator-(Expr a);
Expr operator*(int64_t k, Expr a);
Expr operator*(Expr a, int64_t k);
inline Expr w(WireId id) { return Expr::wire(id); }
/// The same wires with the same coefficients, in the same order (constants aside).
bool sameTerms(const Expr& a, const Expr& b);

enum class NodeKind {
  Input,  // a value placed in the residual stream before the first layer
  Step,   // value * [cond >= 0]: a neuron pair at one MLP level
  Gate,   // bit * value: one neuron, the control a structural bit
  Sum,    // a linear form: no neurons, folded into whoever reads it
  MemoryRead,  // one bit read from a slot memory port (DeltaNet heads), re-quantised by one MLP level
  LookupRead,  // one bit of an attention one-hot lookup (exact: no re-quantisation)
  CountRead,   // one bit [k >= j] of a count since a marker (a halving head, then threshold heads)
};
const char* nodeKindName(NodeKind k);

struct Node {
  NodeKind kind = NodeKind::Input;
  std::string name;
  Expr cond;            // Step
  Expr value;           // Step, Gate, Sum
  WireId control = 0;   // Gate
  Range range;          // proven by construction (interval arithmetic) or declared (inputs)
  bool structuralBit = false;  // a bit input or a Step of value 1: usable as a Gate control
  uint32_t port = 0, bit = 0;  // MemoryRead, LookupRead, CountRead: which port, lookup or counter, which bit
  uint32_t query = 0;          // LookupRead: which of the lookup's queries
  bool exclusive = false;      // Sum: an exclusiveOr (a declared bit with a channel of its own)
  bool ownChannel = false;     // Sum: written into a channel of its own (an exclusiveOr, a packed carry)
  std::optional<WireId> notBefore;  // Step, Gate: scheduled at this wire's level or later (notBefore)
  uint32_t notBeforeGap = 0;        // … plus this many levels
};

/// A named bundle of wires, least significant first (a 32-bit register is 32 bit wires).
using Bus = std::vector<WireId>;

/// One DeltaNet head used as a slot memory, a *bank* (docs/compiler.md §1.1): up to
/// kBankSlots slots (the key dimension) of up to kBankBits bits (each bit takes two value
/// channels, dual rail). At every position the bank first takes the write (where
/// `writeEnable` is 1: slot writeKey <- data), then answers the read (slot readKey, 0 where
/// that slot was never written or no read key is 1). Keys are one-hot: structural bits of
/// which at most one is 1, proven when the port is built.
struct MemoryBank {
  std::vector<WireId> writeKey;
  Expr writeEnable;  // writes where this is 1; its range must stay <= 1 (e.g. we + sel - 1)
  Bus data;
  std::vector<WireId> readKey;
  std::optional<WireId> readSelect;  // a structural bit: the bank answers only where it is 1
  // A conv-window read: the data written is that of `delay` positions back (0..3; all bits 0
  // before the sequence's start), taken from the mixer's causal conv.
  uint32_t delay = 0;
};
constexpr uint32_t kMaxDelay = 3;  // Qwen3.5's conv kernel 4: the current token and 3 back
constexpr uint32_t kBankSlots = 128;  // Qwen3.5-2B linear_key_head_dim
constexpr uint32_t kBankBits = 64;    // linear_value_head_dim / 2 (dual rail)

/// Banks read together: the port's read is the sum of its banks' answers, of which at most
/// one is selected (proven when the port is built), so every read bit is a bit.
struct MemoryPort {
  std::string name;
  std::vector<MemoryBank> banks;
  Bus read;  // MemoryRead wires, one per data bit
};

/// An attention one-hot lookup (docs/compiler.md §1.2): at every position an attention head
/// stores (key, value); the read at a position returns the value of the one position up to
/// and including it whose key equals the query. Exactly one must match, or several whose
/// values are all 0 (a precondition the evaluator checks: the softmax is one-hot only then,
/// and an average of zeros is exactly 0), e.g. a program ROM whose entries sit at distinct
/// prompt positions with a bit in the key that marks them, every other position storing 0.
/// Several queries may read one table (the machine's three operand ports read the ROM
/// constants): one key-value head and one query head per query, as grouped-query attention
/// shares a key-value head between query heads.
struct Lookup {
  std::string name;
  Bus key, value;              // key of <= kLookupKeyBits, value of <= 128 bits
  std::vector<Bus> queries;    // each as wide as the key
  std::vector<Bus> reads;      // per query: LookupRead wires, one per value bit
};
constexpr uint32_t kLookupKeyBits = 16;  // dual rail: 16 of the head's 192 unrotated dims pairs
constexpr uint32_t kMaxLookupQueries = 4;  // Qwen3.5-2B: 8 query heads over 2 key-value heads

/// A count since a marker (docs/compiler.md §1.3): at each position k is the number of
/// positions with `counted` since the last one with `marker` (0 at the marker, which wins
/// over `counted` at the same position; unbounded before the first marker), read as the
/// bits atLeast[j - 1] = [k >= j] for j = 1..bits. Compiled as one halving DeltaNet head
/// (2^-k in a slot, no exact integer) and, in the next layer, one threshold head per bit
/// whose beta and decay saturate on that read (docs/machine.md §5.2's counter): how the
/// machine step knows the pc (steps since the last pc-carrying token) and where a step's
/// tokens end (values since the last prefix) without state updated from itself.
struct Counter {
  std::string name;
  WireId marker = 0, counted = 0;  // structural bits
  uint32_t from = 1;               // atLeast[i] is [k >= from + i]
  Bus atLeast;                     // CountRead wires
};
constexpr uint32_t kMaxCountBits = 16;  // threshold heads: one layer's 16 DeltaNet heads

/// Every node's forms laid out flat, in node order, for the evaluator's hot loop (it visits
/// every node at every position; the nodes' own Exprs are scattered on the heap): node i's
/// condition terms are [condBegin, condEnd), its value terms [condEnd, valueEnd) (steps,
/// gates and sums; none for the other kinds).
struct FlatForms {
  struct FlatNode {
    NodeKind kind = NodeKind::Input;
    uint32_t condBegin = 0, condEnd = 0, valueEnd = 0;
    WireId control = 0;
    int64_t condConstant = 0, valueConstant = 0, lo = 0, hi = 0;
  };
  std::vector<FlatNode> nodes;
  std::vector<WireId> wire;
  std::vector<int64_t> coeff;
};

class Circuit {
 public:
  explicit Circuit(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  WireId input(const std::string& name, Range r);
  WireId inputBit(const std::string& name) { return input(name, {0, 1}); }
  Bus inputBus(const std::string& name, uint32_t bits);

  /// value * [cond >= 0]; value defaults to 1 (then the result is a structural bit).
  WireId step(const std::string& name, Expr cond, Expr value = Expr(1));
  /// control ? value : 0; control must be a structural bit.
  WireId gate(const std::string& name, WireId control, Expr value);
  /// A linear form given a name (no neurons).
  WireId sum(const std::string& name, Expr e);
  /// The OR of bits that the machine makes exclusive — at most one of them is 1 at any
  /// position — though the circuit cannot prove it: an operand's register read, ROM
  /// constant and special register are each 0 unless the field is of its kind, and the
  /// kinds are told apart by memory state and lookups, not by step conditions. Their sum,
  /// declared a structural bit (a gate may read it) and written into one channel at its
  /// level (the neurons of its terms of that level and one pass neuron for the earlier
  /// ones), so it costs no MLP level. The evaluator checks the declaration at every position
  /// (a sum of 2 is a CompileError, as a lookup's missing key is); the weights compute the
  /// sum exactly whatever it is.
  WireId exclusiveOr(const std::string& name, const std::vector<WireId>& bits);
  /// The same for a linear form whose value the machine makes 0 or 1 (its interval may be
  /// wider: a unit's result gated by its op, summed with the other units' — a result select).
  WireId exclusiveOr(const std::string& name, Expr e);
  /// A linear form written into a channel of its own at its level, like an exclusiveOr but
  /// with the form's own range (no declaration): several small integers carried in one
  /// channel across layers where channels are scarce (units.h's packBits). The proof takes
  /// its range from the interval of the form.
  WireId channel(const std::string& name, Expr e);
  /// A channel whose value the machine keeps within `declared` though its form's interval is
  /// wider — units' results packed into one accumulator, at most one unit's terms not 0 (an
  /// exclusiveOr of small integers). The evaluator checks the declaration at every position.
  WireId exclusiveSum(const std::string& name, Expr e, Range declared);
  /// A scheduling hint, no data dependency: step or gate `id` is computed at the level of
  /// `other` (an earlier wire) or later, not as soon as its inputs allow. For wires whose
  /// readers come later anyway — the second register copy's decoders, computed beside the
  /// first copy's read rather than with the first's decoders — so fewer channels are live
  /// at once. With `levelsAfter`, that many levels after `other`'s (a wire whose level is
  /// known to be full: the next one is where `id` belongs).
  void notBefore(WireId id, WireId other, uint32_t levelsAfter = 0);
  /// Declares that at most one of `bits` (structural bits) is 1 at any position: like an
  /// exclusiveOr's, a property of the machine that the circuit cannot prove (the token
  /// head's classes, each summed from the units that spell that class). No neurons; the
  /// evaluator checks it at every position.
  void exclusiveGroup(const std::string& name, const std::vector<WireId>& bits);
  /// `bits` are one declared group's (or a subset of one).
  bool declaredExclusive(const std::vector<WireId>& bits) const;

  /// A slot-memory read port over `banks` (all of one data width); returns the read bits.
  /// Refuses keys or selects that are not provably one-hot.
  Bus memoryRead(const std::string& name, std::vector<MemoryBank> banks);
  /// An attention lookup of `value` by `key` == `query` (structural bits); returns the read bits.
  Bus lookup(const std::string& name, const Bus& key, const Bus& query, const Bus& value);
  /// One table read by several queries (1..kMaxLookupQueries); returns each one's read bits.
  std::vector<Bus> lookup(const std::string& name, const Bus& key, const std::vector<Bus>& queries, const Bus& value);
  /// The count since `marker` of positions with `counted` (structural bits), as `bits`
  /// (1..kMaxCountBits) threshold bits [k >= from], [k >= from + 1], ... (from + bits <= 33:
  /// the levels that the halving read separates).
  Bus countSince(const std::string& name, WireId marker, WireId counted, uint32_t bits = kMaxCountBits,
                 uint32_t from = 1);

  void output(const std::string& name, WireId wire);
  void outputBus(const std::string& name, const Bus& bus);

  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& node(WireId id) const { return nodes_.at(id); }
  const std::vector<WireId>& inputs() const { return inputs_; }
  const std::vector<std::pair<std::string, WireId>>& outputs() const { return outputs_; }
  const std::vector<MemoryPort>& memories() const { return memories_; }
  const std::vector<Lookup>& lookups() const { return lookups_; }
  const std::vector<Counter>& counters() const { return counters_; }
  const std::vector<std::pair<std::string, std::vector<WireId>>>& exclusiveGroups() const { return groups_; }
  /// The forms laid out flat, built once for the nodes so far (shared by copies and by every
  /// Evaluator: one-shot evaluations do not rebuild it).
  const FlatForms& flatForms() const;
  /// The wires node `id` reads (its forms' terms, a gate's control, a memory port's inputs).
  std::vector<WireId> reads(WireId id) const;
  /// Steps of value 1 of which at most one is 1 for every input: each pair's conditions
  /// sum to a negative number over the whole range (e.g. the outputs of one decoder).
  bool mutuallyExclusive(const std::vector<WireId>& bits) const;
  /// Interval of a linear form over this circuit's wires.
  Range rangeOf(const Expr& e) const;

 private:
  WireId add(Node n);
  // The read bits of memory port or lookup `port`: `width` wires of `kind`, each a bit.
  Bus readBits(NodeKind kind, const std::string& name, uint32_t port, uint32_t width);
  void checkWires(const Expr& e, const std::string& where) const;

  std::string name_;
  std::vector<Node> nodes_;
  std::vector<WireId> inputs_;
  std::vector<std::pair<std::string, WireId>> outputs_;
  std::vector<MemoryPort> memories_;
  std::vector<Lookup> lookups_;
  std::vector<Counter> counters_;
  std::vector<std::pair<std::string, std::vector<WireId>>> groups_;  // exclusiveGroup's
  mutable std::shared_ptr<const FlatForms> flat_;  // flatForms' cache (a node count apart: stale)
};

/// Runs a circuit position after position in exact int64 arithmetic: the memory ports'
/// slots persist from one position to the next (as a DeltaNet state does). Throws
/// CompileError if a value leaves its node's range or a key is not one-hot.
class Evaluator {
 public:
  explicit Evaluator(const Circuit& c);
  /// Values of every wire at the next position (inputs in circuit.inputs() order).
  std::vector<int64_t> step(const std::vector<int64_t>& inputs);
  /// The outputs only, in circuit.outputs() order.
  std::vector<int64_t> stepOutputs(const std::vector<int64_t>& inputs);

 private:
  const Circuit& c_;
  std::vector<std::vector<std::map<uint32_t, uint64_t>>> slots_;  // per port, per bank: slot -> data
  std::vector<std::vector<std::vector<uint64_t>>> history_;        // per port, per bank: data, newest first
  // Per lookup, per key stored so far: how many positions hold it, the last one's value, and
  // whether every one of their values was 0.
  struct Stored {
    size_t count = 0;
    std::vector<int64_t> value;
    bool allZero = true;
  };
  std::vector<std::map<uint64_t, Stored>> stored_;
  std::vector<size_t> positions_;  // per lookup: positions stored so far
  std::vector<int64_t> counts_;  // per counter: k so far (-1: no marker yet, an unbounded count)
};

/// Values of every wire for one assignment of the inputs, at a first position (empty
/// memories). Exact int64 arithmetic; throws CompileError if a value leaves its range.
std::vector<int64_t> evaluate(const Circuit& c, const std::vector<int64_t>& inputs);

/// The outputs only, in circuit.outputs() order.
std::vector<int64_t> evaluateOutputs(const Circuit& c, const std::vector<int64_t>& inputs);

/// Packs bus wires' values (bits) into an integer, least significant first.
uint64_t busValue(const std::vector<int64_t>& values, const Bus& bus);

}  // namespace qgpu::compiler
