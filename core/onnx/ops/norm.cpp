// LayerNormalization (opset 17): X [..., D₁…] normalised over the axes [axis, rank) (axis default −1), per row
//   Y = (X − μ) · r · Scale + B,  μ = mean, r = 1 / √(var + ε) (population variance), Scale and the optional B
//   holding either one value or the normalised axes' D = ∏ shape[axis:] values (row-major over those axes).
//   The optional Mean and InvStdDev outputs are given with the normalised axes kept as 1 (the spec's shape).
// Backward, per row with x̂ = (X − μ)·r and g = dY · Scale:  dX = r · (g − mean(g) − x̂ · mean(g · x̂)),
//   (ln_bwd_hold_scale, for the propagation rules: r held constant, dX = r · (g − mean(g))),
//   dScale = Σ_rows dY · x̂,  dB = Σ_rows dY (the Mean / InvStdDev outputs carry no gradient).
#include <cmath>

#include "onnx/ops/common.h"
#include "onnx/ops/parts.h"

namespace attnlab::onnx {
namespace {

struct LnDims {
  int64_t rows = 1, d = 1, axis = 0;
};

template <class T>
std::string ln_dims(const Node& n, const std::vector<const Tensor<T>*>& in, LnDims* ld) {
  const Tensor<T>& x = *in[0];
  if (x.rank() < 1) return "LayerNormalization of a scalar";
  if (!norm_axis(n.attr_int("axis", -1), x.rank(), &ld->axis)) return "axis out of range for " + shape_str(x.shape);
  for (int k = 0; k < ld->axis; ++k) ld->rows *= x.shape[k];
  for (int k = static_cast<int>(ld->axis); k < x.rank(); ++k) ld->d *= x.shape[k];
  for (size_t k = 1; k < 3 && k < in.size(); ++k)
    if (in[k] && in[k]->numel() != ld->d && in[k]->numel() != 1)
      return std::string(k == 1 ? "Scale" : "B") + " " + shape_str(in[k]->shape) + " must hold 1 or " +
             std::to_string(ld->d) + " values (the normalised axes of " + shape_str(x.shape) + ")";
  return "";
}

// Mean and 1 / √(population variance + ε) of one row of d values.
template <class T>
void ln_row_stats(const T* xp, int64_t d, double eps, double* mu, double* rs) {
  const double n = static_cast<double>(std::max<int64_t>(d, 1));
  double m = 0, var = 0;
  for (int64_t j = 0; j < d; ++j) m += xp[j];
  m /= n;
  for (int64_t j = 0; j < d; ++j) var += (xp[j] - m) * (xp[j] - m);
  *mu = m;
  *rs = 1.0 / std::sqrt(var / n + eps);
}

template <class T>
std::string ln_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 2); !e.empty()) return e;
  if (in.size() > 2 && in[2] && !in[2]->is_float()) return "B must be a float tensor";
  LnDims ld;
  if (auto e = ln_dims(n, in, &ld); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  const Tensor<T>& sc = *in[1];
  const Tensor<T>* b = in.size() > 2 ? in[2] : nullptr;
  const double eps = n.attr_float("epsilon", 1e-5f);
  out[0] = Tensor<T>::uninit(x.shape);  // every row written below
  Shape stat_shape = x.shape;
  for (size_t k = static_cast<size_t>(ld.axis); k < stat_shape.size(); ++k) stat_shape[k] = 1;
  const bool want_stats = out.size() > 1;
  if (want_stats) {
    out[1] = Tensor<T>::floats(stat_shape);
    if (out.size() > 2) out[2] = Tensor<T>::floats(stat_shape);
  }
  for_parts(ld.rows, ld.d * kElementWork, [&](int64_t r0, int64_t r1) {  // rows in parts (ops/parts.h)
    for (int64_t r = r0; r < r1; ++r) {
      const T* xp = x.f.data() + r * ld.d;
      T* yp = out[0].f.data() + r * ld.d;
      double mu, rs;
      ln_row_stats(xp, ld.d, eps, &mu, &rs);
      for (int64_t j = 0; j < ld.d; ++j) {
        const T s = sc.f[sc.f.size() == 1 ? 0 : j];
        const T bb = b ? b->f[b->f.size() == 1 ? 0 : j] : T(0);
        yp[j] = static_cast<T>((xp[j] - mu) * rs) * s + bb;
      }
      if (want_stats) {
        out[1].f[r] = static_cast<T>(mu);
        if (out.size() > 2) out[2].f[r] = static_cast<T>(rs);
      }
    }
  });
  return "";
}

// hold_scale: the propagation rules' form (onnx/propagation.h) — r held constant, so dX = r · (g − mean(g)).
template <class T>
std::string ln_bwd_impl(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& dout,
                        const std::vector<bool>& need, std::vector<Tensor<T>>& din, bool hold_scale) {
  LnDims ld;
  if (auto e = ln_dims(n, in, &ld); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  const Tensor<T>& sc = *in[1];
  const double eps = n.attr_float("epsilon", 1e-5f);
  if (!dout[0]) {  // only Mean / InvStdDev were used downstream: they carry no gradient
    for (size_t k = 0; k < need.size(); ++k)
      if (need[k]) din[k] = Tensor<T>::floats(in[k]->shape);
    return "";
  }
  const Values<T>& dy = dout[0]->f;
  if (need[0]) din[0] = Tensor<T>::floats(x.shape);
  if (need.size() > 1 && need[1]) din[1] = Tensor<T>::floats(sc.shape);
  const bool need_b = need.size() > 2 && need[2];
  if (need_b) din[2] = Tensor<T>::floats(in[2]->shape);
  std::vector<double> xh(static_cast<size_t>(ld.d)), g(static_cast<size_t>(ld.d));
  for (int64_t r = 0; r < ld.rows; ++r) {
    const T* xp = x.f.data() + r * ld.d;
    const T* gy = dy.data() + r * ld.d;
    double mu, rs;
    ln_row_stats(xp, ld.d, eps, &mu, &rs);
    double mg = 0, mgx = 0;
    for (int64_t j = 0; j < ld.d; ++j) {
      xh[j] = (xp[j] - mu) * rs;
      g[j] = static_cast<double>(gy[j]) * sc.f[sc.f.size() == 1 ? 0 : j];
      mg += g[j];
      if (!hold_scale) mgx += g[j] * xh[j];
    }
    mg /= static_cast<double>(std::max<int64_t>(ld.d, 1));
    mgx /= static_cast<double>(std::max<int64_t>(ld.d, 1));
    for (int64_t j = 0; j < ld.d; ++j) {
      if (need[0]) din[0].f[r * ld.d + j] = static_cast<T>(rs * (g[j] - mg - xh[j] * mgx));
      if (need.size() > 1 && need[1]) din[1].f[din[1].f.size() == 1 ? 0 : j] += static_cast<T>(gy[j] * xh[j]);
      if (need_b) din[2].f[din[2].f.size() == 1 ? 0 : j] += gy[j];
    }
  }
  return "";
}

template <class T>
std::string ln_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                   const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need, std::vector<Tensor<T>>& din) {
  return ln_bwd_impl(n, in, dout, need, din, false);
}

}  // namespace

template <class T>
std::string ln_bwd_hold_scale(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                              const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need,
                              std::vector<Tensor<T>>& din) {
  return ln_bwd_impl(n, in, dout, need, din, true);
}
template std::string ln_bwd_hold_scale<float>(const Node&, const std::vector<const Tensor<float>*>&,
                                              const std::vector<const Tensor<float>*>&,
                                              const std::vector<const Tensor<float>*>&, const std::vector<bool>&,
                                              std::vector<Tensor<float>>&);
template std::string ln_bwd_hold_scale<double>(const Node&, const std::vector<const Tensor<double>*>&,
                                               const std::vector<const Tensor<double>*>&,
                                               const std::vector<const Tensor<double>*>&, const std::vector<bool>&,
                                               std::vector<Tensor<double>>&);

template <class T>
void register_norm_ops(OpRegistry<T>& r) {
  r["LayerNormalization"] = {&ln_fwd<T>, &ln_bwd<T>, 17};
}
template void register_norm_ops<float>(OpRegistry<float>&);
template void register_norm_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
