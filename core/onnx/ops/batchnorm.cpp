// BatchNormalization, inference form only (training_mode = 1 and the running-statistics outputs are
// refused): X [N, C, ...], scale, B, mean, var [C] → Y = (X − mean) / √(var + epsilon) · scale + B.
// Backward: dX = dY · scale / √(var + ε); d scale = Σ dY · x̂, dB = Σ dY, d mean = −Σ dY · scale/σ,
// d var = Σ dY · (X − mean) · scale · (−½) (var + ε)^(−3/2).
#include <cmath>

#include "onnx/ops/common.h"
#include "onnx/ops/parts.h"

namespace attnlab::onnx {
namespace {

template <class T>
std::string bn_check(const Node& n, const std::vector<const Tensor<T>*>& in) {
  if (auto e = check_inputs(n, in, 5); !e.empty()) return e;
  if (n.attr_int("training_mode", 0) != 0) return "training_mode = 1 is not supported (inference only)";
  if (n.opset < 7 && n.attr_int("is_test", 0) == 0) return "training mode (is_test = 0) is not supported";
  const Tensor<T>& x = *in[0];
  if (x.rank() < 2) return "input must have rank ≥ 2";
  for (int k = 1; k < 5; ++k)
    if (in[k]->numel() != x.shape[1]) return "scale, B, mean and var must have C = " + std::to_string(x.shape[1]) + " values";
  return "";
}

template <class T>
std::string bn_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = bn_check(n, in); !e.empty()) return e;
  for (size_t k = 1; k < n.outputs.size(); ++k)
    if (!n.outputs[k].empty()) return "the running statistics outputs are not supported (inference only)";
  const Tensor<T>& x = *in[0];
  const T eps = T(n.attr_float("epsilon", 1e-5f));
  const int64_t N = x.shape[0], C = x.shape[1], S = x.numel() / std::max<int64_t>(1, N * C);
  out[0] = Tensor<T>::uninit(x.shape);  // every element written below
  for_parts(C, N * S * kElementWork, [&](int64_t c0, int64_t c1) {  // channels in parts (ops/parts.h)
    for (int64_t c = c0; c < c1; ++c) {
      const T a = in[1]->f[c] / std::sqrt(in[4]->f[c] + eps), b = in[2]->f[c] - in[3]->f[c] * a;
      for (int64_t b0 = 0; b0 < N; ++b0) {
        const T* xp = x.f.data() + (b0 * C + c) * S;
        T* yp = out[0].f.data() + (b0 * C + c) * S;
        for (int64_t s = 0; s < S; ++s) yp[s] = xp[s] * a + b;
      }
    }
  });
  return "";
}

template <class T>
std::string bn_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                   const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need, std::vector<Tensor<T>>& din) {
  const Tensor<T>& x = *in[0];
  const T eps = T(n.attr_float("epsilon", 1e-5f));
  const int64_t N = x.shape[0], C = x.shape[1], S = x.numel() / std::max<int64_t>(1, N * C);
  for (size_t k = 0; k < 5; ++k)
    if (need[k]) din[k] = Tensor<T>::floats(in[k]->shape);
  for_parts(C, N * S * kElementWork, [&](int64_t c0, int64_t c1) {  // channels in parts: each writes its own
    for (int64_t c = c0; c < c1; ++c) {
      const T sc = in[1]->f[c], mu = in[3]->f[c], var = in[4]->f[c];
      const T inv = T(1) / std::sqrt(var + eps);
      T sg = 0, sgx = 0;
      for (int64_t b0 = 0; b0 < N; ++b0) {
        const T* xp = x.f.data() + (b0 * C + c) * S;
        const T* g = dout[0]->f.data() + (b0 * C + c) * S;
        for (int64_t s = 0; s < S; ++s) {
          sg += g[s];
          sgx += g[s] * (xp[s] - mu);
          if (need[0]) din[0].f[(b0 * C + c) * S + s] = g[s] * sc * inv;
        }
      }
      if (need[1]) din[1].f[c] = sgx * inv;
      if (need[2]) din[2].f[c] = sg;
      if (need[3]) din[3].f[c] = -sg * sc * inv;
      if (need[4]) din[4].f[c] = sgx * sc * T(-0.5) * inv * inv * inv;
    }
  });
  return "";
}

}  // namespace

template <class T>
void register_batchnorm_ops(OpRegistry<T>& r) {
  r["BatchNormalization"] = {&bn_fwd<T>, &bn_bwd<T>, 6};
}
template void register_batchnorm_ops<float>(OpRegistry<float>&);
template void register_batchnorm_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
