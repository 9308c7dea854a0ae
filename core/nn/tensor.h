// Matrix aliases shared by the layers. Everything is column-major Eigen. A batch of B sequences padded to
// T steps is stored as a matrix with T*B columns, column t*B + b holding step t of sequence b.
#pragma once
#include <Eigen/Core>
#include <vector>

namespace attnlab {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;

template <class T>
inline void sigmoid_inplace(Eigen::Ref<Mat<T>> x) {
  x = (T(1) + (-x.array()).exp()).inverse().matrix();
}

template <class T>
inline T sigmoid(T x) {
  return x >= T(0) ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x));
}

}  // namespace attnlab
