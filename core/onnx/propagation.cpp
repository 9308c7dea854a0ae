// plan_propagation (contract in propagation.h).
#include "onnx/propagation.h"

#include <set>

namespace attnlab::onnx {
namespace {

template <class T>
struct Graph {
  const Executor<T>& ex;
  std::map<std::string, const Node*> producer;
  // The steps the pattern searches may take for the whole plan (a crafted graph cannot make them slow); when spent,
  // the remaining products fall back to the uniform rule and the notes say so.
  mutable int64_t budget = 1 << 20;

  explicit Graph(const Executor<T>& e) : ex(e) {
    for (const Node* n : ex.runtime_nodes())
      for (const auto& o : n->outputs) producer[o] = n;
  }
  // A float value on the gradient's path (it depends on the explained input): an activation. A float computed from
  // the input's length only (rotary cos / sin, a causal mask) is not one: a product with it is linear.
  bool activation(const std::string& v) const {
    if (v.empty() || ex.is_constant(v) || !ex.requires_gradient(v)) return false;
    const Tensor<T>* t = ex.value(v);
    return t && t->is_float();
  }
  const Node* made_by(const std::string& v) const {
    auto it = producer.find(v);
    return it == producer.end() ? nullptr : it->second;
  }
  // The only activation input of n, or "" when it has none or several.
  std::string single_activation_input(const Node& n) const {
    std::string found;
    for (const auto& in : n.inputs) {
      if (!activation(in)) continue;
      if (!found.empty() && found != in) return "";
      found = in;
    }
    return found;
  }
};

const std::set<std::string> kScalarSteps = {"Add", "Sub", "Mul", "Div", "Sqrt", "Reciprocal", "Pow", "Cast", "Identity"};
const std::set<std::string> kReductions = {"ReduceMean", "ReduceSum", "ReduceSumSquare", "ReduceL2"};
const std::set<std::string> kNonlinear = {"Erf", "Sigmoid", "Tanh", "Exp", "Softplus", "Log", "Pow", "Sqrt",
                                          "Reciprocal", "HardSigmoid", "Relu", "LeakyRelu", "Elu", "Selu"};
const std::set<std::string> kGateSteps = {"Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Erf", "Sigmoid", "Tanh", "Exp",
                                          "Neg", "Cast", "Identity", "Softplus", "HardSigmoid"};
const std::set<std::string> kLinearSteps = {"Add", "Sub", "Mul", "Div", "Neg", "Cast", "Identity"};

// v is computed from a reduction by scalar steps, each with one activation input: a normalising scale
// (LayerNorm's √(var + ε), RMSNorm's 1 / √(mean(x²) + ε)).
template <class T>
bool normaliser(const Graph<T>& g, std::string v) {
  for (int step = 0; step < 16; ++step) {
    const Node* n = g.made_by(v);
    if (!n) return false;
    if (kReductions.count(n->op_type)) return true;
    if (!kScalarSteps.count(n->op_type)) return false;
    v = g.single_activation_input(*n);
    if (v.empty()) return false;
  }
  return false;
}

// The value x reached from v through linear steps with one activation input (x itself when none).
template <class T>
std::string linear_source(const Graph<T>& g, std::string v) {
  for (int step = 0; step < 8; ++step) {
    const Node* n = g.made_by(v);
    if (!n || !kLinearSteps.count(n->op_type)) return v;
    const std::string in = g.single_activation_input(*n);
    if (in.empty()) return v;
    v = in;
  }
  return v;
}

// v is an elementwise function of x alone (every activation it reads, through gate steps, leads back to x or to x's
// linear source), with at least one nonlinear step on the way when `nonlinear` comes back true.
// Each call spends one step of g.budget (a crafted graph of many-input steps cannot make this exponential).
template <class T>
bool function_of(const Graph<T>& g, const std::string& v, const std::string& x, const std::string& source, int depth,
                 bool* nonlinear) {
  if (v == x || v == source) return true;
  if (depth > 24 || --g.budget < 0) return false;
  const Node* n = g.made_by(v);
  if (!n || !kGateSteps.count(n->op_type)) return false;
  bool any = false;
  for (const auto& in : n->inputs) {
    if (!g.activation(in)) continue;
    if (!function_of(g, in, x, source, depth + 1, nonlinear)) return false;
    any = true;
  }
  if (any && kNonlinear.count(n->op_type)) *nonlinear = true;
  return any;
}

// gate is a nonlinear elementwise function of x: x · gate(x) is a gated activation (GELU as x · Φ(x) or with its
// tanh approximation, SiLU as x · σ(x)).
template <class T>
bool gate_of(const Graph<T>& g, const std::string& gate, const std::string& x) {
  if (gate == x) return false;
  bool nonlinear = false;
  return function_of(g, gate, x, linear_source(g, x), 0, &nonlinear) && nonlinear;
}

std::string counted(const std::map<std::string, int>& m) {
  std::string s;
  for (const auto& [k, c] : m) s += (s.empty() ? "" : ", ") + k + " (" + std::to_string(c) + ")";
  return s;
}

}  // namespace

template <class T>
PropagationPlan plan_propagation(const Executor<T>& ex, RelevanceRule rule, const std::string& output) {
  const Graph<T> g(ex);
  enum Kind { Halved, Gate, Scale, HeldAttention, LayerNorm, TanhRule, GeluRule, NoRule };
  struct Decision {
    const Node* node;
    Kind kind;
    std::string value;  // the value whose factor is set ("" for the operator rules)
    double factor;
    std::string what;  // NoRule: the operator
  };
  std::vector<Decision> decisions;
  std::set<std::string> softmax_out;
  for (const Node* n : ex.runtime_nodes())
    if (n->op_type == "Softmax") softmax_out.insert(n->outputs[0]);
  for (const Node* np : ex.runtime_nodes()) {
    const Node& n = *np;
    const std::string& op = n.op_type;
    if (n.outputs.empty() || !g.activation(n.outputs[0])) continue;
    const bool two = n.inputs.size() >= 2 && g.activation(n.inputs[0]) && g.activation(n.inputs[1]);
    if (op == "Softmax") {
      if (rule == RelevanceRule::CpLrp) decisions.push_back({np, HeldAttention, n.outputs[0], 0, ""});
    } else if (op == "MatMul" && two) {
      const bool attention_product = softmax_out.count(n.inputs[0]) || softmax_out.count(n.inputs[1]);
      if (!(rule == RelevanceRule::CpLrp && attention_product)) decisions.push_back({np, Halved, n.outputs[0], 0.5, ""});
    } else if (op == "Mul" && two) {
      const std::string& a = n.inputs[0];
      const std::string& b = n.inputs[1];
      if (gate_of(g, b, a)) decisions.push_back({np, Gate, b, 0, ""});
      else if (gate_of(g, a, b)) decisions.push_back({np, Gate, a, 0, ""});
      else if (normaliser(g, b)) decisions.push_back({np, Scale, b, 0, ""});
      else if (normaliser(g, a)) decisions.push_back({np, Scale, a, 0, ""});
      else decisions.push_back({np, Halved, n.outputs[0], 0.5, ""});
    } else if (op == "Div" && n.inputs.size() >= 2 && g.activation(n.inputs[1])) {
      if (normaliser(g, n.inputs[1])) decisions.push_back({np, Scale, n.inputs[1], 0, ""});
      else decisions.push_back({np, NoRule, "", 1, "Div by an activation"});
    } else if (op == "LayerNormalization") {
      decisions.push_back({np, LayerNorm, "", 1, ""});
    } else if (op == "Tanh") {
      decisions.push_back({np, TanhRule, "", 1, ""});
    } else if (op == "Gelu") {
      decisions.push_back({np, GeluRule, "", 1, ""});
    } else if (kNonlinear.count(op) && op != "Relu") {  // (Relu's gradient × input is its identity rule already)
      decisions.push_back({np, NoRule, "", 1, op});
    }
  }
  std::map<std::string, double> held;
  for (const Decision& d : decisions)
    if (!d.value.empty()) held[d.value] = d.factor;
  // The nodes the explained output's relevance reaches: backwards from it, not through a value held constant.
  std::set<const Node*> reached;
  std::vector<std::string> todo = {output};
  std::set<std::string> seen;
  while (!todo.empty()) {
    const std::string v = todo.back();
    todo.pop_back();
    if (!seen.insert(v).second) continue;
    auto h = held.find(v);
    if (h != held.end() && h->second == 0) continue;
    const Node* n = g.made_by(v);
    if (!n || !reached.insert(n).second) continue;
    for (const auto& in : n->inputs)
      if (g.activation(in)) todo.push_back(in);
  }
  PropagationPlan plan;
  std::map<Kind, int> count;
  std::map<std::string, int> no_rule;
  std::set<std::string> read;  // the values the reached nodes read: a held value counts where it is read
  for (const Node* n : reached)
    for (const auto& in : n->inputs) read.insert(in);
  for (const Decision& d : decisions) {
    const bool held_here = !d.value.empty() && d.factor == 0 && read.count(d.value);
    if (!reached.count(d.node) && !held_here) continue;
    if (!d.value.empty()) plan.factor[d.value] = d.factor;
    ++count[d.kind];
    if (d.kind == NoRule) ++no_rule[d.what];
  }
  auto add = [&](Kind k, const std::string& what) {
    if (count[k] > 0) plan.notes.push_back(std::to_string(count[k]) + " " + what);
  };
  add(LayerNorm, "LayerNormalization with the scale held");
  add(Scale, "normalising scales held (decomposed LayerNorm / RMSNorm)");
  add(Gate, "gated activations by the identity rule (GELU, SiLU)");
  add(TanhRule, "Tanh by the identity rule");
  add(GeluRule, "Gelu by the identity rule");
  add(Halved, "products of two activations halved (uniform rule)");
  add(HeldAttention, "attention distributions held constant");
  if (g.budget < 0) plan.notes.push_back("the search for gates stopped early (a very large graph): the products left were halved");
  for (const auto& [k, c] : no_rule) plan.no_rule.push_back(k + " (" + std::to_string(c) + ")");
  if (!plan.no_rule.empty()) plan.notes.push_back("no rule for " + counted(no_rule) + ": their gradient is used");
  return plan;
}

template PropagationPlan plan_propagation<float>(const Executor<float>&, RelevanceRule, const std::string&);
template PropagationPlan plan_propagation<double>(const Executor<double>&, RelevanceRule, const std::string&);

}  // namespace attnlab::onnx
