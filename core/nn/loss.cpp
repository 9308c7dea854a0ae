#include "nn/loss.h"

#include <cmath>

namespace attnlab {

template <class T>
T weighted_bce_with_logits(const Mat<T>& logits, const std::vector<int>& labels, T pos_weight, Mat<T>& d) {
  d.resize(1, logits.cols());
  T loss = 0;
  for (Eigen::Index b = 0; b < logits.cols(); ++b) {
    const T z = logits(0, b);
    const T y = labels[b] ? T(1) : T(0);
    const T w = labels[b] ? pos_weight : T(1);
    // softplus(z) - y z, computed stably
    const T softplus = z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
    loss += w * (softplus - y * z);
    d(0, b) = w * (sigmoid(z) - y);
  }
  return loss;
}

template <class T>
Mat<T> softmax_columns(const Mat<T>& logits) {
  Mat<T> p = logits;
  for (Eigen::Index b = 0; b < p.cols(); ++b) {
    p.col(b).array() -= p.col(b).maxCoeff();
    p.col(b) = p.col(b).array().exp().matrix();
    p.col(b) /= p.col(b).sum();
  }
  return p;
}

template <class T>
T weighted_cross_entropy(const Mat<T>& logits, const std::vector<int>& labels,
                         const std::vector<T>& class_weights, Mat<T>& d) {
  d = softmax_columns(logits);
  T loss = 0;
  for (Eigen::Index b = 0; b < logits.cols(); ++b) {
    const int y = labels[b];
    const T w = class_weights.empty() ? T(1) : class_weights[y];
    loss -= w * std::log(std::max(d(y, b), std::numeric_limits<T>::min()));
    d(y, b) -= T(1);
    d.col(b) *= w;
  }
  return loss;
}

#define ATTNLAB_INSTANTIATE(T)                                                                       \
  template T weighted_bce_with_logits<T>(const Mat<T>&, const std::vector<int>&, T, Mat<T>&);        \
  template T weighted_cross_entropy<T>(const Mat<T>&, const std::vector<int>&, const std::vector<T>&, \
                                       Mat<T>&);                                                     \
  template Mat<T> softmax_columns<T>(const Mat<T>&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
