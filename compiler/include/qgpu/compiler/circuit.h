// The compiler's circuit IR: integer wires with proven ranges, built from the four
// operations a Qwen3.5 MLP level computes exactly (docs/compiler.md §1), and the exact
// evaluator that runs it in integer arithmetic (the tier-2 oracle between the machine's
// reference executor and the weights).
#pragma once

#include <cstdint>
#include <map>
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
};

/// A named bundle of wires, least significant first (a 32-bit register is 32 bit wires).
using Bus = std::vector<WireId>;

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

  void output(const std::string& name, WireId wire);
  void outputBus(const std::string& name, const Bus& bus);

  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& node(WireId id) const { return nodes_.at(id); }
  const std::vector<WireId>& inputs() const { return inputs_; }
  const std::vector<std::pair<std::string, WireId>>& outputs() const { return outputs_; }
  /// Interval of a linear form over this circuit's wires.
  Range rangeOf(const Expr& e) const;

 private:
  WireId add(Node n);
  void checkWires(const Expr& e, const std::string& where) const;

  std::string name_;
  std::vector<Node> nodes_;
  std::vector<WireId> inputs_;
  std::vector<std::pair<std::string, WireId>> outputs_;
};

/// Values of every wire for one assignment of the inputs (in circuit.inputs() order).
/// Exact int64 arithmetic; throws CompileError if a value leaves its node's range.
std::vector<int64_t> evaluate(const Circuit& c, const std::vector<int64_t>& inputs);

/// The outputs only, in circuit.outputs() order.
std::vector<int64_t> evaluateOutputs(const Circuit& c, const std::vector<int64_t>& inputs);

/// Packs bus wires' values (bits) into an integer, least significant first.
uint64_t busValue(const std::vector<int64_t>& values, const Bus& bus);

}  // namespace qgpu::compiler
