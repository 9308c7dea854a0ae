// Linear layer y = W x + b on column batches. x: [in x B], W: [out x in], b: [out x 1], y: [out x B].
#pragma once
#include "nn/tensor.h"

namespace attnlab {

template <class T>
struct LinearParams {
  Mat<T> w;  // [out x in]
  Mat<T> b;  // [out x 1]
};

template <class T>
void linear_forward(const LinearParams<T>& p, const Mat<T>& x, Mat<T>& y) {
  y.noalias() = p.w * x;
  y.colwise() += p.b.col(0);
}

// Accumulates dW, db into grads (nullable); writes d_x = W^T d_y (nullable).
template <class T>
void linear_backward(const LinearParams<T>& p, const Mat<T>& x, const Mat<T>& d_y, LinearParams<T>* grads,
                     Mat<T>* d_x) {
  if (grads) {
    grads->w.noalias() += d_y * x.transpose();
    grads->b += d_y.rowwise().sum();
  }
  if (d_x) d_x->noalias() = p.w.transpose() * d_y;
}

}  // namespace attnlab
