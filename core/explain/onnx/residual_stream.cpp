// The residual stream of a transformer graph (see residual_stream.h).
#include "explain/onnx/residual_stream.h"

#include <algorithm>
#include <map>
#include <set>

namespace attnlab {
namespace {

bool stream_is_product(const std::string& op) { return op == "MatMul" || op == "Gemm" || op == "Einsum"; }

struct StreamGraph {
  const onnx::Executor<float>& ex;
  const std::vector<const onnx::Node*>& nodes;
  std::map<std::string, int> producer;                   // value -> index of the node that computes it
  std::map<std::string, std::vector<int>> consumers;     // value -> indices of the nodes that read it
  std::map<std::string, int> depth;                      // the last attention layer a value depends on (−1: none)
  mutable long budget;                                   // graph-walk steps left (find_residual_stream's bound)

  StreamGraph(const onnx::Executor<float>& e, const std::vector<onnx::FoundAttention>& found, long steps)
      : ex(e), nodes(e.runtime_nodes()), budget(steps) {
    std::map<std::string, int> layer_of;  // a distribution -> its layer
    for (const auto& a : found) layer_of[a.probabilities] = a.layer;
    for (int k = 0; k < static_cast<int>(nodes.size()); ++k) {
      int d = -1;
      for (const auto& in : nodes[k]->inputs) {
        if (in.empty()) continue;
        consumers[in].push_back(k);
        auto it = depth.find(in);
        if (it != depth.end()) d = std::max(d, it->second);
      }
      for (const auto& o : nodes[k]->outputs) {
        if (o.empty()) continue;
        producer[o] = k;
        auto it = layer_of.find(o);
        depth[o] = it != layer_of.end() ? std::max(d, it->second) : d;
      }
    }
  }
  int producer_of(const std::string& v) const {
    auto it = producer.find(v);
    return it == producer.end() ? -1 : it->second;
  }
  int depth_of(const std::string& v) const {
    auto it = depth.find(v);
    return it == depth.end() ? -1 : it->second;
  }
  bool runtime(const std::string& v) const { return !v.empty() && !ex.is_constant(v) && ex.value(v) != nullptr; }
  // Does b reach back to a through a MatMul / Gemm (b = f(a), a sublayer)? Only values computed after a are walked.
  bool through_product(const std::string& a, const std::string& b) const {
    const int pa = producer_of(a);
    std::vector<std::pair<std::string, bool>> stack = {{b, false}};
    std::set<std::pair<std::string, bool>> seen;
    while (!stack.empty() && budget > 0) {
      --budget;
      auto [v, passed] = stack.back();
      stack.pop_back();
      if (v == a) {
        if (passed) return true;
        continue;
      }
      if (!seen.insert({v, passed}).second) continue;
      const int p = producer_of(v);
      if (p <= pa) continue;
      const bool next = passed || stream_is_product(nodes[p]->op_type);
      for (const auto& in : nodes[p]->inputs)
        if (!in.empty()) stack.push_back({in, next});
    }
    return false;
  }
  // The first residual Add at or after node `from` whose x (the skip input) satisfies skip_ok and whose f(x) has
  // depth `layer`: *node = its index, *skip = x. False when none.
  template <class SkipOk>
  bool residual_add(int from, int layer, SkipOk skip_ok, int* node, std::string* skip) const {
    for (int k = std::max(from, 0); k < static_cast<int>(nodes.size()); ++k) {
      const onnx::Node& n = *nodes[k];
      if (n.op_type != "Add" || n.inputs.size() != 2 || n.outputs.empty()) continue;
      for (int s = 0; s < 2; ++s) {
        const std::string& x = n.inputs[static_cast<size_t>(s)];
        const std::string& f = n.inputs[static_cast<size_t>(1 - s)];
        if (!runtime(x) || !runtime(f) || !skip_ok(x) || depth_of(f) != layer) continue;
        const onnx::Tensor<float>* vx = ex.value(x);
        const onnx::Tensor<float>* vf = ex.value(f);
        if (vx->shape != vf->shape || !through_product(x, f)) continue;
        *node = k;
        *skip = x;
        return true;
      }
    }
    return false;
  }
  // The values that every path from `from` to `output` passes, in order (from first).
  std::vector<std::string> dominators(const std::string& from, const std::string& output) const {
    const int N = static_cast<int>(nodes.size()), k0 = producer_of(from);
    std::set<std::string> reach = {from}, need = {output};
    std::vector<char> fwd(static_cast<size_t>(N), 0), between(static_cast<size_t>(N), 0);
    for (int k = k0 + 1; k < N; ++k)
      for (const auto& in : nodes[k]->inputs)
        if (reach.count(in)) {
          fwd[k] = 1;
          for (const auto& o : nodes[k]->outputs) reach.insert(o);
          break;
        }
    for (int k = N - 1; k > k0; --k) {
      bool needed = false;
      for (const auto& o : nodes[k]->outputs) needed = needed || need.count(o);
      if (!needed) continue;
      between[k] = fwd[k];
      for (const auto& in : nodes[k]->inputs) need.insert(in);
    }
    std::map<std::string, int> last;  // the last node of the between set that reads a value of it
    for (int k = k0 + 1; k < N; ++k)
      if (between[k])
        for (const auto& in : nodes[k]->inputs)
          if (in == from || (producer_of(in) > k0 && between[producer_of(in)])) last[in] = k;
    std::set<std::string> live = {from};
    std::vector<std::string> out = {from};
    for (int k = k0 + 1; k < N; ++k) {
      if (!between[k]) continue;
      for (const auto& in : nodes[k]->inputs) {
        auto it = last.find(in);
        if (it != last.end() && it->second == k) live.erase(in);
      }
      for (const auto& o : nodes[k]->outputs) {
        auto it = last.find(o);
        if (o == output || (it != last.end() && it->second > k)) live.insert(o);
      }
      if (live.size() == 1 && producer_of(*live.begin()) == k) out.push_back(*live.begin());
    }
    return out;
  }
};

}  // namespace

bool find_residual_stream(const onnx::Executor<float>& ex, const std::vector<onnx::FoundAttention>& found,
                          const std::string& output, ResidualStream* out, std::string* error, long budget) {
  *out = ResidualStream();
  if (found.empty()) {
    *error = "no attention was found, so no transformer blocks";
    return false;
  }
  const StreamGraph g(ex, found, budget);
  const auto exhausted = [&] {
    *error = "the graph is too large to find its residual connections in (more than " + std::to_string(budget) +
             " steps of walking it)";
    return false;
  };
  const int L = static_cast<int>(found.size());
  std::vector<int> attn_add(static_cast<size_t>(L));
  std::vector<std::string> skip(static_cast<size_t>(L));
  for (int l = 0; l < L; ++l) {
    const int softmax = g.producer_of(found[static_cast<size_t>(l)].probabilities);
    auto before = [&](const std::string& x) { return g.depth_of(x) < l; };
    const bool found_add = softmax >= 0 && g.residual_add(softmax + 1, l, before, &attn_add[l], &skip[l]);
    if (g.budget <= 0) return exhausted();
    if (!found_add) {
      *error = "layer " + std::to_string(l) + "'s attention has no residual connection (an Add of its input and the "
               "attention's output) that could be found";
      return false;
    }
  }
  for (int l = 0; l < L; ++l) {
    const onnx::Node& add = *g.nodes[attn_add[l]];
    out->attention.push_back({skip[l], add.inputs[0] == skip[l] ? add.inputs[1] : add.inputs[0], add.outputs[0]});
  }
  for (int c : g.consumers.count(skip[0]) ? g.consumers.at(skip[0]) : std::vector<int>{})
    out->post_norm = out->post_norm || stream_is_product(g.nodes[c]->op_type);
  for (int l = 0; l + 1 < L; ++l) out->layer_outputs.push_back(skip[l + 1]);
  // The last block: its FFN's residual Add (x: a value of the last layer), else the attention's.
  int last = attn_add[L - 1];
  std::string x;
  auto in_last = [&](const std::string& v) { return g.depth_of(v) == L - 1; };
  int ffn = -1;
  if (g.residual_add(attn_add[L - 1] + 1, L - 1, in_last, &ffn, &x)) last = ffn;
  if (g.budget <= 0) return exhausted();
  std::string value = g.nodes[last]->outputs[0];
  if (out->post_norm) {
    const std::vector<int64_t> shape = ex.value(value)->shape;
    for (const auto& d : g.dominators(value, output)) {
      if (d == value) continue;
      const onnx::Tensor<float>* t = ex.value(d);
      if (!t || t->shape != shape) break;
      value = d;
    }
  }
  out->layer_outputs.push_back(value);
  return true;
}

}  // namespace attnlab
