// Propagation rules on an ONNX graph (issue 30): AttnLRP (Achtibat et al. 2024) and CP-LRP (Ali et al. 2022) on a
// user's transformer, found from the graph's operators and run by the executor's backward in gradient form (the
// relevance of an input is input ⊙ the propagated quantity; lxt's formulation, as the core's transformer:
// model/transformer.h PropagationRule). plan_propagation reads the graph after a forward (the values' types) and
// returns what to change:
//   factor[value]  the gradient a value passes to the node that produced it is multiplied by this — 0.5 for each
//                  factor of a product of two activations (MatMul, Mul: the uniform rule), 0 for a value held
//                  constant: a normalising scale (a divisor or factor computed from a ReduceMean / ReduceSum by
//                  scalar steps — decomposed LayerNorm / RMSNorm), the gate of a gated activation (x · g(x) with
//                  g a nonlinear elementwise function of x: decomposed GELU, SiLU — the identity rule), and for
//                  CP-LRP every Softmax output (the attention held constant; its products with V are then linear)
//   op_rules       LayerNormalization with its scale held, Tanh and Gelu (opset 20's fused GELU) by the identity
//                  rule (onnx/op.h rule_backward)
//   notes          what was found, in words ("4 LayerNormalization held, 8 products halved, …"), and the nonlinear
//                  operators that have no rule here (their gradient is used; say so beside the rows)
// Executor::set_propagation(&plan) before backward, set_propagation(nullptr) after.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "onnx/executor.h"

namespace attnlab::onnx {

enum class RelevanceRule { AttnLrp, CpLrp };

struct PropagationPlan {
  std::map<std::string, double> factor;
  bool op_rules = true;
  std::vector<std::string> notes;
  std::vector<std::string> no_rule;  // nonlinear operators without a rule, "Name (count)"
};

// After a forward; output: the explained value (only what its relevance reaches is planned and reported — a gated
// activation inside a held gate, the graph's other outputs, the scores behind a held attention are not).
template <class T>
PropagationPlan plan_propagation(const Executor<T>& ex, RelevanceRule rule, const std::string& output);

}  // namespace attnlab::onnx
