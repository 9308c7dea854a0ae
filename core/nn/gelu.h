// GELU, exact form (Hendrycks & Gimpel 2016; PyTorch's default, ONNX Erf): y = x · Φ(x) = 0.5 x (1 + erf(x/√2)).
// dy/dx = Φ(x) + x φ(x). Element-wise on any shape. float runs four lanes at a time on simd::erf / simd::exp
// (a few ulp from std::erf / std::exp; Eigen 3.4 has no wasm packet path, and libm's erf is slow there);
// double (gradient checks) uses std::erf / std::exp.
#pragma once
#include <cmath>

#include "nn/simd.h"
#include "nn/tensor.h"

namespace attnlab {

template <class T>
inline T gelu(T x) {
  return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440)));
}

template <class T>
inline T gelu_derivative(T x) {
  const T cdf = T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440)));
  const T pdf = T(0.39894228040143267794) * std::exp(T(-0.5) * x * x);
  return cdf + x * pdf;
}

namespace simd {
inline v4 gelu(v4 x) { return splat(0.5f) * x * (splat(1.f) + erf(x * splat(0.70710678118654752440f))); }
inline v4 gelu_derivative(v4 x) {
  const v4 cdf = splat(0.5f) * (splat(1.f) + erf(x * splat(0.70710678118654752440f)));
  const v4 pdf = splat(0.39894228040143267794f) * exp(splat(-0.5f) * x * x);
  return cdf + x * pdf;
}
}  // namespace simd

// y = gelu(x) (same shape).
inline void gelu_forward(const Mat<double>& x, Mat<double>& y) {
  y = x.unaryExpr([](double v) { return gelu(v); });
}
inline void gelu_forward(const Mat<float>& x, Mat<float>& y) {
  y.resize(x.rows(), x.cols());
  simd::map4(x.data(), nullptr, y.data(), x.size(), [](simd::v4 v) { return simd::gelu(v); });
}

// d_x = d_y ⊙ gelu'(x) (written).
inline void gelu_backward(const Mat<double>& x, const Mat<double>& d_y, Mat<double>& d_x) {
  d_x = (d_y.array() * x.unaryExpr([](double v) { return gelu_derivative(v); }).array()).matrix();
}
inline void gelu_backward(const Mat<float>& x, const Mat<float>& d_y, Mat<float>& d_x) {
  d_x.resize(x.rows(), x.cols());
  simd::map4(x.data(), d_y.data(), d_x.data(), x.size(), [](simd::v4 v) { return simd::gelu_derivative(v); });
}

// The identity rule of the propagation rules (AttnLRP, CP-LRP) in gradient form: relevance passes unchanged
// (x · d_x = gelu(x) · d_y), so d_x = d_y ⊙ gelu(x) / x = d_y ⊙ Φ(x) — defined at x = 0 too. Written.
template <class T>
inline T gelu_identity_factor(T x) {
  return T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440)));
}
template <class T>
inline void gelu_identity_backward(const Mat<T>& x, const Mat<T>& d_y, Mat<T>& d_x) {
  d_x = (d_y.array() * x.unaryExpr([](T v) { return gelu_identity_factor(v); }).array()).matrix();
}

}  // namespace attnlab
