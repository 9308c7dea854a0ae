// DequantizeLinear (opset 10–21; opset 19's FLOAT8 and 21's INT4 / UINT4 inputs are refused by the reader, 21's
// blocked quantization (block_size ≠ 0) here): y = (x − zero_point) · scale for integer x (INT8, UINT8, INT32); scale
// (and zero_point, default 0) either scalars or 1-D along `axis` (default 1, opset ≥ 13). Float output,
// no gradient (its input is an integer tensor; in models it dequantizes weights and is folded at load).
#include "onnx/ops/common.h"

namespace attnlab::onnx {
namespace {

template <class T>
std::string dequantize_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 2, false); !e.empty()) return e;
  const Tensor<T>&x = *in[0], &scale = *in[1];
  const Tensor<T>* zp = in.size() > 2 ? in[2] : nullptr;
  if (n.attr_int("block_size", 0) != 0) return "blocked quantization (block_size, opset 21) is not supported";
  if (x.is_float()) return "the input must be an integer tensor";
  if (!scale.is_float()) return "the scale must be a float tensor";
  if (zp && (zp->is_float() || zp->numel() != scale.numel())) return "zero_point must be an integer tensor shaped like the scale";
  out[0] = Tensor<T>::floats(x.shape);
  const int64_t ns = scale.numel();
  if (ns == 1 && scale.rank() <= 1) {
    const T s = scale.f[0];
    const int64_t z = zp ? zp->i[0] : 0;
    for (size_t k = 0; k < x.i.size(); ++k) out[0].f[k] = T(static_cast<double>(x.i[k]) - static_cast<double>(z)) * s;
    return "";
  }
  if (scale.rank() != 1) return "scale must be a scalar or 1-D";
  int64_t ax;
  if (!norm_axis(n.attr_int("axis", 1), x.rank(), &ax)) return "axis out of range for " + shape_str(x.shape);
  if (x.shape[ax] != ns) return "scale has " + std::to_string(ns) + " values, axis " + std::to_string(ax) + " has " + std::to_string(x.shape[ax]);
  int64_t inner = 1;
  for (int k = static_cast<int>(ax) + 1; k < x.rank(); ++k) inner *= x.shape[k];
  for (size_t k = 0; k < x.i.size(); ++k) {
    const int64_t c = (static_cast<int64_t>(k) / inner) % ns;
    out[0].f[k] = T(static_cast<double>(x.i[k]) - static_cast<double>(zp ? zp->i[c] : 0)) * scale.f[c];
  }
  return "";
}

}  // namespace

template <class T>
void register_quantize_ops(OpRegistry<T>& r) {
  r["DequantizeLinear"] = {&dequantize_fwd<T>, nullptr, 10};
}
template void register_quantize_ops<float>(OpRegistry<float>&);
template void register_quantize_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
