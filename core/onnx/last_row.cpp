// last_row.cpp — see last_row.h.
#include "onnx/last_row.h"

#include <algorithm>
#include <map>
#include <set>

namespace attnlab::onnx {
namespace {

constexpr int kNone = -1, kConflict = -2;

bool is_last_axis(int64_t axis) { return axis == -1 || axis == 2; }  // rank 3: the executor checks it as it runs

template <class T>
bool constant_inputs_after_first(const Executor<T>& ex, const Node& n) {
  for (size_t q = 1; q < n.inputs.size(); ++q)
    if (!n.inputs[q].empty() && !ex.is_constant(n.inputs[q])) return false;
  return true;
}

template <class T>
bool constant_matrix(const Executor<T>& ex, const std::string& name) {
  if (!ex.is_constant(name)) return false;
  const Tensor<T>* w = ex.value(name);
  return w && w->rank() == 2;
}

// For a node whose (rank-3) outputs carry the positions on axis p: the axis each input must carry them on (kNone for
// an input that has none: a constant, a broadcast), or false when the node mixes positions or moves them elsewhere.
template <class T>
bool input_axes(const Executor<T>& ex, const Node& n, int p, std::vector<int>* q) {
  static const std::set<std::string> kElementwise = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"};
  static const std::set<std::string> kUnary = {"Relu", "Sigmoid", "Tanh", "Erf", "Sqrt", "Neg", "Exp", "Log", "Abs",
                                               "Reciprocal", "Identity", "Gelu", "Softplus", "Elu", "LeakyRelu",
                                               "HardSigmoid", "HardSwish", "Selu", "Clip", "Cast", "Sin", "Cos"};
  static const std::set<std::string> kReduce = {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceL2",
                                                "ReduceSumSquare", "ReduceProd"};
  const std::string& op = n.op_type;
  q->assign(n.inputs.size(), kNone);
  if (!n.domain.empty() && n.domain != "ai.onnx") return false;
  auto all = [&] {
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (!n.inputs[k].empty() && !ex.is_constant(n.inputs[k])) (*q)[k] = p;
    return true;
  };
  auto first = [&] {
    (*q)[0] = p;
    return true;
  };
  if (kElementwise.count(op)) return all();
  if (kUnary.count(op)) return constant_inputs_after_first(ex, n) && first();
  if (op == "MatMul" && n.inputs.size() == 2) {
    if (constant_matrix(ex, n.inputs[1])) return p != 2 && first();  // x · W: each row of x alone
    if (constant_matrix(ex, n.inputs[0])) {                             // W · x: each column of x alone
      (*q)[1] = p;
      return p == 2;
    }
    return false;
  }
  if (op == "Transpose") {
    const std::vector<int64_t> perm = n.attr_ints("perm");  // from the file: a permutation of 0, 1, 2 or nothing
    static const int64_t kAxes[] = {0, 1, 2};
    if (perm.size() != 3 || !std::is_permutation(perm.begin(), perm.end(), kAxes)) return false;
    (*q)[0] = static_cast<int>(perm[static_cast<size_t>(p)]);
    return true;
  }
  if (op == "Softmax" || op == "LogSoftmax") return n.opset >= 13 && is_last_axis(n.attr_int("axis", -1)) && p != 2 && first();
  if (op == "LayerNormalization")
    return is_last_axis(n.attr_int("axis", -1)) && p != 2 && constant_inputs_after_first(ex, n) && first();
  if (kReduce.count(op)) {
    if (n.attr_int("keepdims", 1) != 1) return false;
    std::vector<int64_t> axes = n.attr_ints("axes");
    if (axes.empty() && n.inputs.size() > 1 && !n.inputs[1].empty()) {  // opset 18: axes as an input
      if (!ex.is_constant(n.inputs[1])) return false;
      const Tensor<T>* a = ex.value(n.inputs[1]);
      if (!a || a->is_float()) return false;
      axes = a->i;
    }
    return axes.size() == 1 && is_last_axis(axes[0]) && p != 2 && first();
  }
  return false;
}

}  // namespace

template <class T>
std::vector<char> last_row_nodes(const Executor<T>& ex, const std::string& output) {
  const std::vector<const Node*>& run = ex.runtime_nodes();
  std::set<std::string> outputs;
  for (const auto& o : ex.model().outputs) outputs.insert(o.name);
  if (!outputs.count(output)) return {};
  std::map<std::string, std::vector<size_t>> readers;
  std::map<std::string, size_t> producer;
  for (size_t k = 0; k < run.size(); ++k) {
    for (const auto& in : run[k]->inputs)
      if (!in.empty()) readers[in].push_back(k);
    for (const auto& o : run[k]->outputs)
      if (!o.empty()) producer[o] = k;
  }
  std::vector<char> tail(run.size(), 0);  // 1 + the positions' axis of the node's outputs
  std::vector<std::vector<int>> wants(run.size());
  auto readers_in_tail = [&](const Node& n) {
    for (const auto& o : n.outputs) {
      auto it = readers.find(o);
      if (it != readers.end())
        for (const size_t r : it->second)
          if (!tail[r]) return false;
    }
    return true;
  };
  // Backwards through the execution order (every reader comes after its producer, so is decided already): a node
  // joins when every reader of its outputs is in the tail and they agree on the axis its outputs carry the positions
  // on (the graph output: axis 1).
  for (size_t k = run.size(); k-- > 0;) {
    const Node& n = *run[k];
    int p = kNone;
    bool ok = readers_in_tail(n);
    for (const auto& o : n.outputs) {
      if (!ok || o.empty()) continue;
      auto agree = [&](int axis) { p = p == kNone || p == axis ? axis : kConflict; };
      if (o == output) agree(1);
      else if (outputs.count(o)) ok = false;
      auto it = readers.find(o);
      if (it == readers.end()) continue;
      for (const size_t r : it->second)
        for (size_t q = 0; q < run[r]->inputs.size(); ++q)
          if (run[r]->inputs[q] == o) agree(wants[r][q]);
    }
    if (ok && p >= 0 && input_axes(ex, n, p, &wants[k])) tail[k] = static_cast<char>(1 + p);
  }
  // Then, until nothing changes, a node leaves when an input from outside the tail must carry the positions on
  // another axis than 1 (the executor cuts axis 1 of those), or when a reader of its outputs left.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = run.size(); k-- > 0;) {
      if (!tail[k]) continue;
      const Node& n = *run[k];
      bool ok = readers_in_tail(n);
      for (size_t q = 0; ok && q < n.inputs.size(); ++q) {
        if (wants[k][q] == kNone || wants[k][q] == 1 || ex.is_constant(n.inputs[q])) continue;
        const auto it = producer.find(n.inputs[q]);
        ok = it != producer.end() && tail[it->second];
      }
      if (!ok) {
        tail[k] = 0;
        changed = true;
      }
    }
  }
  return tail;
}

template <class T>
Tensor<T> last_position(const Tensor<T>& t) {
  const int64_t B = t.shape[0], rows = t.shape[1], D = t.shape[2];
  Tensor<T> c;
  c.shape = {B, 1, D};
  c.dtype = t.dtype;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t at = (b * rows + rows - 1) * D;
    if (t.is_float()) c.f.insert(c.f.end(), t.f.begin() + at, t.f.begin() + at + D);
    else c.i.insert(c.i.end(), t.i.begin() + at, t.i.begin() + at + D);
  }
  return c;
}

template Tensor<float> last_position(const Tensor<float>&);
template Tensor<double> last_position(const Tensor<double>&);
template std::vector<char> last_row_nodes(const Executor<float>&, const std::string&);
template std::vector<char> last_row_nodes(const Executor<double>&, const std::string&);

}  // namespace attnlab::onnx
