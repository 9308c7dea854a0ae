#include "nn/conicity.h"

#include <algorithm>
#include <cmath>

namespace attnlab {
namespace {

constexpr double kConicityEps = 1e-6;

// The mean of sequence b's real columns.
template <class T>
Vec<T> sequence_mean(const Mat<T>& h, int B, int b, int len) {
  Vec<T> m = Vec<T>::Zero(h.rows());
  for (int t = 0; t < len; ++t) m += h.col(static_cast<Eigen::Index>(t) * B + b);
  return m / T(len);
}

}  // namespace

template <class T>
std::vector<T> conicity_forward(const Mat<T>& h, const std::vector<int>& lengths) {
  const int B = static_cast<int>(lengths.size());
  std::vector<T> out(B, T(0));
  for (int b = 0; b < B; ++b) {
    const int len = lengths[b];
    if (len <= 0) continue;
    const Vec<T> m = sequence_mean(h, B, b, len);
    const T mn = m.norm();
    T sum = 0;
    for (int t = 0; t < len; ++t) {
      const auto ht = h.col(static_cast<Eigen::Index>(t) * B + b);
      sum += std::abs(ht.dot(m)) / std::max(ht.norm() * mn, T(kConicityEps));
    }
    out[b] = sum / T(len);
  }
  return out;
}

// d|cos(a, m)| / da = sgn * (m / (|a||m|) - cos a / |a|^2) where |a||m| > eps (else the clamp: m / eps); the same
// with a and m swapped for d/dm; m = mean, so each state also gets (1/T) of the summed d/dm.
template <class T>
void conicity_backward(const Mat<T>& h, const std::vector<int>& lengths, const std::vector<T>& scale, Mat<T>& d_h) {
  const int B = static_cast<int>(lengths.size());
  for (int b = 0; b < B; ++b) {
    const int len = lengths[b];
    if (len <= 0 || scale[b] == T(0)) continue;
    const Vec<T> m = sequence_mean(h, B, b, len);
    const T mn = m.norm();
    const T k = scale[b] / T(len);  // d conicity / d |cos_t|
    Vec<T> d_m = Vec<T>::Zero(h.rows());
    for (int t = 0; t < len; ++t) {
      const Eigen::Index col = static_cast<Eigen::Index>(t) * B + b;
      const auto ht = h.col(col);
      const T hn = ht.norm(), dot = ht.dot(m);
      const T sgn = dot > T(0) ? T(1) : (dot < T(0) ? T(-1) : T(0));
      if (hn * mn > T(kConicityEps)) {
        const T cos = dot / (hn * mn);
        d_h.col(col) += (k * sgn) * (m / (hn * mn) - cos * ht / (hn * hn));
        d_m += (k * sgn) * (ht / (hn * mn) - cos * m / (mn * mn));
      } else {
        d_h.col(col) += (k * sgn / T(kConicityEps)) * m;
        d_m += (k * sgn / T(kConicityEps)) * ht;
      }
    }
    for (int t = 0; t < len; ++t) d_h.col(static_cast<Eigen::Index>(t) * B + b) += d_m / T(len);
  }
}

#define ATTNLAB_INSTANTIATE(T)                                                                        \
  template std::vector<T> conicity_forward<T>(const Mat<T>&, const std::vector<int>&);                \
  template void conicity_backward<T>(const Mat<T>&, const std::vector<int>&, const std::vector<T>&, Mat<T>&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
