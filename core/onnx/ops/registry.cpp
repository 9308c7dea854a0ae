// The operator registry: every family file registers its operators here (see ops/common.h).
#include <mutex>

#include "onnx/ops/common.h"

namespace attnlab::onnx {

namespace {
template <class T>
OpRegistry<T> build() {
  OpRegistry<T> r;
  register_unary_ops(r);
  register_binary_ops(r);
  register_conv_ops(r);
  register_pool_ops(r);
  register_gemm_ops(r);
  register_softmax_ops(r);
  register_batchnorm_ops(r);
  register_shape_ops(r);
  register_layout_ops(r);
  register_reduce_ops(r);
  register_quantize_ops(r);
  register_norm_ops(r);
  register_sequence_ops(r);
  return r;
}
template <class T>
const OpRegistry<T>& registry() {
  static const OpRegistry<T> r = build<T>();  // thread-safe static init
  return r;
}
}  // namespace

template <class T>
const OpEntry<T>* find_op(const std::string& op_type) {
  const auto& r = registry<T>();
  auto it = r.find(op_type);
  return it == r.end() ? nullptr : &it->second;
}
template const OpEntry<float>* find_op<float>(const std::string&);
template const OpEntry<double>* find_op<double>(const std::string&);

OpContext& op_context() {
  thread_local OpContext context;
  return context;
}

std::vector<std::string> supported_op_names() {
  std::vector<std::string> names;
  for (const auto& kv : registry<float>()) names.push_back(kv.first);
  return names;
}

// Broadcasting helpers declared in tensor.h.
bool broadcast_shapes(const Shape& a, const Shape& b, Shape* out) {
  const size_t r = std::max(a.size(), b.size());
  out->assign(r, 1);
  for (size_t k = 0; k < r; ++k) {
    const int64_t da = k < r - a.size() ? 1 : a[k - (r - a.size())];
    const int64_t db = k < r - b.size() ? 1 : b[k - (r - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[k] = da == 1 ? db : da;
  }
  return true;
}
Shape broadcast_strides(const Shape& in, const Shape& out) {
  const Shape st = strides_of(in);
  Shape s(out.size(), 0);
  const size_t off = out.size() - in.size();
  for (size_t k = 0; k < in.size(); ++k) s[off + k] = in[k] == 1 ? 0 : st[k];
  return s;
}

}  // namespace attnlab::onnx
