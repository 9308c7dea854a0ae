// GELU, exact form (Hendrycks & Gimpel 2016; PyTorch's default, ONNX Erf): y = x · Φ(x) = 0.5 x (1 + erf(x/√2)).
// dy/dx = Φ(x) + x φ(x). Element-wise on any shape.
#pragma once
#include <cmath>

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

// y = gelu(x) (same shape).
template <class T>
void gelu_forward(const Mat<T>& x, Mat<T>& y) {
  y = x.unaryExpr([](T v) { return gelu(v); });
}

// d_x = d_y ⊙ gelu'(x) (written).
template <class T>
void gelu_backward(const Mat<T>& x, const Mat<T>& d_y, Mat<T>& d_x) {
  d_x = (d_y.array() * x.unaryExpr([](T v) { return gelu_derivative(v); }).array()).matrix();
}

}  // namespace attnlab
