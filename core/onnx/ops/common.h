// Shared pieces of the operator files: the registry type, each family's registration function, and
// broadcasting loops (numpy semantics).
#pragma once
#include <map>
#include <utility>
#include <string>
#include <vector>

#include "onnx/op.h"

namespace attnlab::onnx {

template <class T>
using OpRegistry = std::map<std::string, OpEntry<T>>;

template <class T> void register_unary_ops(OpRegistry<T>& r);      // unary.cpp
template <class T> void register_binary_ops(OpRegistry<T>& r);     // binary.cpp
template <class T> void register_conv_ops(OpRegistry<T>& r);       // conv.cpp
template <class T> void register_pool_ops(OpRegistry<T>& r);       // pool.cpp
template <class T> void register_gemm_ops(OpRegistry<T>& r);       // gemm.cpp
template <class T> void register_softmax_ops(OpRegistry<T>& r);    // softmax.cpp
template <class T> void register_batchnorm_ops(OpRegistry<T>& r);  // batchnorm.cpp
template <class T> void register_shape_ops(OpRegistry<T>& r);      // shape_ops.cpp
template <class T> void register_layout_ops(OpRegistry<T>& r);     // layout_ops.cpp
// LayerNormalization's backward with the normalising scale held constant (norm.cpp; rule_backward.cpp uses it).
template <class T>
std::string ln_bwd_hold_scale(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                              const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need,
                              std::vector<Tensor<T>>& din);
template <class T> void register_reduce_ops(OpRegistry<T>& r);     // reduce.cpp
template <class T> void register_quantize_ops(OpRegistry<T>& r);   // quantize.cpp
template <class T> void register_norm_ops(OpRegistry<T>& r);       // norm.cpp
template <class T> void register_sequence_ops(OpRegistry<T>& r);   // sequence_ops.cpp

// Calls f(k, ia, ib) for every output index k of `out`, with ia / ib the offsets into inputs whose
// broadcast strides (aligned to out's rank, 0 where broadcast) are sa / sb.
template <class F>
void broadcast_loop2(const Shape& out, const Shape& sa, const Shape& sb, F&& f);  // below, through broadcast_rows2

// As broadcast_loop2, a row of the innermost axis at a time: f(k, ia, ib, len, step_a, step_b) for the output
// elements k .. k + len − 1, whose operands are at ia + j · step_a and ib + j · step_b (steps 0 or 1 when broadcast).
// broadcast_rows2_part: the same for the rows row0 .. row1 − 1 alone (of broadcast_rows(out) rows), so an op can
// cut its output into parts by rows.
inline int64_t broadcast_rows(const Shape& out) {
  const int64_t n = shape_numel(out);
  return n == 0 ? 0 : out.empty() ? 1 : n / out.back();
}
template <class F>
void broadcast_rows2_part(const Shape& out, const Shape& sa, const Shape& sb, int64_t row0, int64_t row1, F&& f) {
  const int r = static_cast<int>(out.size());
  if (shape_numel(out) == 0 || row0 >= row1) return;
  if (r == 0) {
    f(int64_t(0), int64_t(0), int64_t(0), int64_t(1), int64_t(0), int64_t(0));
    return;
  }
  const int64_t inner = out[r - 1];
  std::vector<int64_t> idx(r, 0);
  int64_t base_a = 0, base_b = 0;
  int64_t q = row0;  // the odometer at row0
  for (int d = r - 2; d >= 0; --d) {
    idx[d] = q % out[d];
    q /= out[d];
    base_a += idx[d] * sa[d];
    base_b += idx[d] * sb[d];
  }
  for (int64_t k = row0 * inner, end = row1 * inner; k < end; k += inner) {
    f(k, base_a, base_b, inner, sa[r - 1], sb[r - 1]);
    for (int d = r - 2; d >= 0; --d) {  // odometer over the outer axes
      ++idx[d];
      base_a += sa[d];
      base_b += sb[d];
      if (idx[d] < out[d]) break;
      base_a -= sa[d] * out[d];
      base_b -= sb[d] * out[d];
      idx[d] = 0;
    }
  }
}
template <class F>
void broadcast_rows2(const Shape& out, const Shape& sa, const Shape& sb, F&& f) {
  broadcast_rows2_part(out, sa, sb, 0, broadcast_rows(out), std::forward<F>(f));
}

template <class F>
void broadcast_loop2(const Shape& out, const Shape& sa, const Shape& sb, F&& f) {
  broadcast_rows2(out, sa, sb, [&](int64_t k, int64_t ia, int64_t ib, int64_t len, int64_t step_a, int64_t step_b) {
    for (int64_t j = 0; j < len; ++j, ia += step_a, ib += step_b) f(k + j, ia, ib);
  });
}

template <class F>
void broadcast_loop3(const Shape& out, const Shape& sa, const Shape& sb, const Shape& sc, F&& f) {
  const int r = static_cast<int>(out.size());
  const int64_t n = shape_numel(out);
  if (n == 0) return;
  if (r == 0) {
    f(int64_t(0), int64_t(0), int64_t(0), int64_t(0));
    return;
  }
  std::vector<int64_t> idx(r, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t ia = 0, ib = 0, ic = 0;
    for (int d = 0; d < r; ++d) {
      ia += idx[d] * sa[d];
      ib += idx[d] * sb[d];
      ic += idx[d] * sc[d];
    }
    f(k, ia, ib, ic);
    for (int d = r - 1; d >= 0; --d) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace attnlab::onnx
