// The operator interface of the ONNX executor. Every operator is a forward / backward pair of plain
// functions over runtime tensors (core/onnx/ops/*.cpp, one operator or a small family per file, each with
// its contract). Errors are returned as a message ("" = success); nothing throws.
//
//   forward(node, in, out): in[k] is null for an omitted optional input; out has node.outputs.size()
//     entries to fill (an omitted optional output may be left empty).
//   backward(node, in, out, dout, need, din): dout[k] is the gradient of the loss w.r.t. out[k] (null = zero);
//     for each k with need[k], din[k] must be set to the gradient w.r.t. in[k] (same shape, float).
//     backward is null for operators without a gradient (shape ops, integer outputs); the executor then
//     refuses to propagate a gradient through them.
#pragma once
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "onnx/checked.h"
#include "onnx/model.h"
#include "onnx/tensor.h"

namespace attnlab::onnx {

template <class T>
using ForwardFn = std::string (*)(const Node&, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out);
template <class T>
using BackwardFn = std::string (*)(const Node&, const std::vector<const Tensor<T>*>& in,
                                   const std::vector<const Tensor<T>*>& out, const std::vector<const Tensor<T>*>& dout,
                                   const std::vector<bool>& need, std::vector<Tensor<T>>& din);

template <class T>
struct OpEntry {
  ForwardFn<T> forward = nullptr;
  BackwardFn<T> backward = nullptr;
  int min_opset = 1;  // the oldest opset version whose semantics the implementation follows
};

// name -> entry for the default (ai.onnx) domain; nullptr for an unsupported operator.
template <class T>
const OpEntry<T>* find_op(const std::string& op_type);
// The propagation rules' replacement of an operator's backward (onnx/propagation.h; ops/rule_backward.cpp):
// LayerNormalization with its normalising scale held constant; Tanh by the identity rule (d_x = d_y · tanh(x) / x,
// 1 at x = 0). Null: the operator keeps its gradient.
template <class T>
BackwardFn<T> rule_backward(const std::string& op_type);
std::vector<std::string> supported_op_names();

// Helpers shared by the operator files.
inline std::string need_inputs(const Node& n, const std::vector<const void*>& in, size_t k) {
  if (in.size() < k) return n.op_type + " needs " + std::to_string(k) + " inputs, got " + std::to_string(in.size());
  for (size_t j = 0; j < k; ++j)
    if (!in[j]) return n.op_type + ": input " + std::to_string(j) + " is missing";
  return "";
}
template <class T>
std::string check_inputs(const Node& n, const std::vector<const Tensor<T>*>& in, size_t k, bool float_only = true) {
  if (in.size() < k) return n.op_type + " needs " + std::to_string(k) + " inputs, got " + std::to_string(in.size());
  for (size_t j = 0; j < k; ++j) {
    if (!in[j]) return n.op_type + ": input " + std::to_string(j) + " is missing";
    if (float_only && !in[j]->is_float())
      return n.op_type + ": input " + std::to_string(j) + " has type " + data_type_name(in[j]->dtype) + ", only floating types are supported";
  }
  return "";
}
// The executor's budget (docs/RELIABILITY.md "ONNX budget"): one set of numbers for the CLI and the page
// (they fit wasm's 2 GiB heap). Every operator checks its output shape against max_tensor_elements before it
// allocates, and charges the multiply-adds of its products (MatMul, Gemm, Conv, pools) before it computes;
// the executor checks every output after the node ran, the bytes of all values and gradients alive at once,
// and the work of load-time folding and of one forward pass.
struct ExecLimits {
  int64_t max_tensor_elements = int64_t(1) << 26;  // one output or gradient (256 MB as float)
  int64_t max_rank = 16;                            // one output
  int64_t max_live_bytes = int64_t(1) << 30;        // every value and gradient alive at once
  int64_t max_node_work = int64_t(1) << 36;         // multiply-adds (or element visits) of one node
  int64_t max_fold_work = int64_t(1) << 30;         // all of load-time constant folding together
  int64_t max_forward_work = int64_t(1) << 40;      // one forward pass, every node together
};
// The limits in force for operators on this thread, and the work the running node may still do. Set by the
// executor around every operator call; operators only read the limits and charge work.
struct OpContext {
  ExecLimits limits;
  int64_t work_left = std::numeric_limits<int64_t>::max();
};
OpContext& op_context();

// Output shapes are checked before allocating: no negative dims, rank ≤ max_rank, ∏ max(d, 1) ≤
// max_tensor_elements (overflow-checked, so no partial product of an accepted shape overflows).
constexpr int64_t kMaxOutputElements = int64_t(1) << 26;  // the default max_tensor_elements
inline std::string check_output_size(const Shape& s) {
  const ExecLimits& L = op_context().limits;
  for (int64_t d : s)
    if (d < 0) return "negative output dimension in " + shape_str(s);
  if (static_cast<int64_t>(s.size()) > L.max_rank)
    return "output of rank " + std::to_string(s.size()) + ", above the limit of " + std::to_string(L.max_rank);
  if (!shape_fits(s, L.max_tensor_elements))
    return "output " + shape_str(s) + " would have more than " + std::to_string(L.max_tensor_elements) +
           " elements (the executor's limit per tensor)";
  return "";
}
// Charges a ∏ factors of work (multiply-adds) to the running node; a message when over the budget.
inline std::string charge_work(std::initializer_list<int64_t> factors) {
  int64_t w = 1;
  bool ok = true;
  for (int64_t f : factors) ok = ok && f >= 0 && checked_mul(w, f, &w);
  OpContext& c = op_context();
  if (!ok || w > c.work_left) return "needs more work than the executor allows for one node or for folding (" +
                                     (ok ? std::to_string(w) : std::string("over 2^63")) + " multiply-adds)";
  c.work_left -= w;
  return "";
}

// Reads an integer tensor (or a float one holding integers) as a list.
template <class T>
std::vector<int64_t> as_ints(const Tensor<T>& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  for (size_t k = 0; k < v.size(); ++k) v[k] = t.is_float() ? saturate_i64(static_cast<double>(t.f[k])) : t.i[k];
  return v;
}

}  // namespace attnlab::onnx
