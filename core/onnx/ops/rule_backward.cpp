// rule_backward (contract in onnx/op.h): the operators whose backward the propagation rules replace.
#include <cmath>

#include "onnx/ops/common.h"

namespace attnlab::onnx {
namespace {

// Tanh and a fused Gelu by the identity rule: relevance passes unchanged, x · d_x = f(x) · d_y (for GELU the same as
// the decomposed x · Φ(x) with its gate held: d_x = Φ(x) · d_y).
template <class T>
std::string identity_rule_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                              const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need,
                              std::vector<Tensor<T>>& din) {
  if (!need[0]) return "";
  if (!in[0] || !out[0]) return n.op_type + ": missing input or output";
  din[0] = Tensor<T>::floats(in[0]->shape);
  if (!dout[0]) return "";
  for (size_t k = 0; k < din[0].f.size(); ++k) {
    const T x = in[0]->f[k];
    const T ratio = x == T(0) ? T(1) : out[0]->f[k] / x;
    din[0].f[k] = dout[0]->f[k] * ratio;
  }
  return "";
}

}  // namespace

template <class T>
BackwardFn<T> rule_backward(const std::string& op_type) {
  if (op_type == "LayerNormalization") return &ln_bwd_hold_scale<T>;
  if (op_type == "Tanh" || op_type == "Gelu") return &identity_rule_bwd<T>;
  return nullptr;
}

template BackwardFn<float> rule_backward<float>(const std::string&);
template BackwardFn<double> rule_backward<double>(const std::string&);

}  // namespace attnlab::onnx
