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
#include <string>
#include <vector>

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
// Output shapes computed from data or attributes (ConstantOfShape, Expand, Pad, Conv / pool pads) are
// checked before allocating: no negative dims, at most kMaxOutputElements elements (no int64 overflow).
constexpr int64_t kMaxOutputElements = int64_t(1) << 27;
inline std::string check_output_size(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0) return "negative output dimension in " + shape_str(s);
    if (d > 0 && n > kMaxOutputElements / d) return "output " + shape_str(s) + " would have more than 2^27 elements";
    n *= d;
  }
  return "";
}

// Reads an integer tensor (or a float one holding integers) as a list.
template <class T>
std::vector<int64_t> as_ints(const Tensor<T>& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  for (size_t k = 0; k < v.size(); ++k) v[k] = t.is_float() ? static_cast<int64_t>(t.f[k]) : t.i[k];
  return v;
}

}  // namespace attnlab::onnx
