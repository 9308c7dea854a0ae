// Linear layer y = W x + b on column batches. x: [in x B], W: [out x in], b: [out x 1], y: [out x B].
// Under WebAssembly the float products run on the SIMD kernel of nn/matmul.h (Eigen 3.4 has no wasm packet
// path); natively they are Eigen's products as written.
#pragma once
#include "nn/matmul.h"
#include "nn/tensor.h"

namespace attnlab {

template <class T>
struct LinearParams {
  Mat<T> w;  // [out x in]
  Mat<T> b;  // [out x 1]
};

template <class T>
void linear_forward(const LinearParams<T>& p, const Mat<T>& x, Mat<T>& y) {
#if defined(__wasm__)
  y.setZero(p.w.rows(), x.cols());
  matmul_acc(y, p.w, x);
  y.colwise() += p.b.col(0);  // the bias after the product, in the order of the native build
#else
  y.noalias() = p.w * x;
  y.colwise() += p.b.col(0);
#endif
}

// Accumulates dW, db into grads (nullable); writes d_x = W^T d_y (nullable).
template <class T>
void linear_backward(const LinearParams<T>& p, const Mat<T>& x, const Mat<T>& d_y, LinearParams<T>* grads,
                     Mat<T>* d_x) {
#if defined(__wasm__)
  if (grads) {
    matmul_acc_nt(grads->w, d_y, x);
    grads->b += d_y.rowwise().sum();
  }
  if (d_x) {
    d_x->setZero(p.w.cols(), d_y.cols());
    matmul_acc_tn(*d_x, p.w, d_y);
  }
#else
  if (grads) {
    grads->w.noalias() += d_y * x.transpose();
    grads->b += d_y.rowwise().sum();
  }
  if (d_x) d_x->noalias() = p.w.transpose() * d_y;
#endif
}

}  // namespace attnlab
