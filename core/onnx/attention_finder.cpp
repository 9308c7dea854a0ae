// Finds attention distributions in an ONNX graph (see attention_finder.h).
#include "onnx/attention_finder.h"

#include <map>
#include <set>

namespace attnlab::onnx {
namespace {

bool attn_passes_values(const std::string& op) { return op == "Cast" || op == "Dropout" || op == "Identity" || op == "Where"; }
// Nodes between the score product Q·Kᵀ and the Softmax: scaling, masking, reshaping.
bool attn_passes_scores(const std::string& op) {
  return op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Where" || op == "Cast" || op == "Reshape" ||
         op == "Transpose" || op == "Identity" || op == "Clip";
}

}  // namespace

std::vector<FoundAttention> find_attention(const Model& m) {
  std::map<std::string, std::vector<std::pair<const Node*, size_t>>> consumers;  // value -> (node, input slot)
  std::map<std::string, const Node*> producer;
  for (const Node& n : m.nodes) {
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (!n.inputs[k].empty()) consumers[n.inputs[k]].push_back({&n, k});
    for (const auto& o : n.outputs)
      if (!o.empty()) producer[o] = &n;
  }
  // Does `value` come from a MatMul through score-preserving nodes (depth-bounded)?
  auto from_scores_matmul = [&](const std::string& value) {
    std::vector<std::pair<std::string, int>> stack = {{value, 0}};
    std::set<std::string> seen;
    while (!stack.empty()) {
      auto [v, depth] = stack.back();
      stack.pop_back();
      if (depth > 8 || !seen.insert(v).second) continue;
      auto it = producer.find(v);
      if (it == producer.end()) continue;
      const Node& p = *it->second;
      if (p.op_type == "MatMul" || p.op_type == "Einsum") return true;
      if (!attn_passes_scores(p.op_type)) continue;
      for (const auto& in : p.inputs)
        if (!in.empty()) stack.push_back({in, depth + 1});
    }
    return false;
  };
  std::vector<FoundAttention> found;
  for (const Node& n : m.nodes) {
    if (n.op_type != "Softmax" || n.outputs.empty() || n.outputs[0].empty() || n.inputs.empty()) continue;
    // A softmax over the key axis: −1 (opset 13's default) or an explicit last axis of a rank-3 / rank-4 tensor
    // (exporters write 3 or 2); a classifier's Softmax over axis 1 is left out.
    const int64_t axis = n.attr_int("axis", n.opset >= 13 ? -1 : 1);
    if (axis != -1 && axis < 2) continue;
    if (!from_scores_matmul(n.inputs[0])) continue;
    // Follow value-preserving nodes to a MatMul that takes the distribution as its first input.
    std::vector<std::string> frontier = {n.outputs[0]};
    std::set<std::string> seen;
    const Node* av = nullptr;
    for (size_t q = 0; q < frontier.size() && !av && q < 64; ++q) {
      if (!seen.insert(frontier[q]).second) continue;
      for (const auto& [c, slot] : consumers[frontier[q]]) {
        if (c->op_type == "MatMul" && slot == 0) {
          av = c;
          break;
        }
        const bool branch = c->op_type != "Where" || slot > 0;  // Where's condition is not a value path
        if (attn_passes_values(c->op_type) && branch && !c->outputs.empty() && !c->outputs[0].empty())
          frontier.push_back(c->outputs[0]);
      }
    }
    if (!av || av->inputs.size() < 2) continue;
    FoundAttention a;
    a.softmax_node = n.name;
    a.probabilities = n.outputs[0];
    a.values_matmul = av->name;
    a.values = av->inputs[1];
    a.layer = static_cast<int>(found.size());
    found.push_back(a);
  }
  return found;
}

template <class T>
bool attention_shape(const Executor<T>& ex, const FoundAttention& a, AttentionShape* out) {
  const Tensor<T>* p = ex.value(a.probabilities);
  if (!p || !p->is_float()) return false;
  return attention_shape_of(p->shape, out);
}
bool attention_shape_of(const Shape& s, AttentionShape* out) {
  if (s.size() == 4 && s[0] == 1) *out = {s[1], s[2], s[3]};
  else if (s.size() == 3) *out = {s[0], s[1], s[2]};
  else if (s.size() == 2) *out = {1, s[0], s[1]};
  else return false;
  return true;
}
template bool attention_shape<float>(const Executor<float>&, const FoundAttention&, AttentionShape*);
template bool attention_shape<double>(const Executor<double>&, const FoundAttention&, AttentionShape*);

}  // namespace attnlab::onnx
