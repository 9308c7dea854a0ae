// GAP + linear head forward/backward with Eigen maps over the row-major buffers; see gap_linear_head.h.
#include "nn/gap_linear_head.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "nn/rng.h"

namespace attnlab {
namespace {

template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// GAP of every sample as a [K, N] column-major matrix.
template <class T>
Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> gap(const T* features, int n, int k, int hw) {
  Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> g(k, n);
  for (int s = 0; s < n; ++s) {
    Eigen::Map<const RowMat<T>> f(features + static_cast<size_t>(s) * k * hw, k, hw);
    g.col(s) = f.rowwise().sum() / static_cast<T>(hw);
  }
  return g;
}

}  // namespace

template <class T>
void GapLinearHead<T>::forward(const T* features, int n, int hw, T* logits) const {
  Eigen::Map<const RowMat<T>> w(weight.data(), classes, channels);
  Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>> b(bias.data(), classes);
  // logits as [C, N] column-major == [N, C] row-major
  Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> out(logits, classes, n);
  out.noalias() = w * gap(features, n, channels, hw);
  out.colwise() += b;
}

template <class T>
void GapLinearHead<T>::backward(const T* features, int n, int hw, const T* dlogits, T* dfeatures, T* dweight,
                                T* dbias) const {
  Eigen::Map<const RowMat<T>> w(weight.data(), classes, channels);
  Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> dl(dlogits, classes, n);  // [C, N]
  if (dfeatures) {
    const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> dg = w.transpose() * dl / static_cast<T>(hw);  // [K, N]
    for (int s = 0; s < n; ++s) {
      Eigen::Map<RowMat<T>> df(dfeatures + static_cast<size_t>(s) * channels * hw, channels, hw);
      df = dg.col(s).replicate(1, hw);
    }
  }
  if (dweight) {
    Eigen::Map<RowMat<T>> dw(dweight, classes, channels);
    dw.noalias() = dl * gap(features, n, channels, hw).transpose();
  }
  if (dbias) {
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> db(dbias, classes);
    db = dl.rowwise().sum();
  }
}

template <class T>
std::vector<T> softmax_rows(const T* logits, int n, int classes) {
  std::vector<T> out(static_cast<size_t>(n) * classes);
  for (int s = 0; s < n; ++s) {
    const T* l = logits + static_cast<size_t>(s) * classes;
    double mx = -INFINITY;
    for (int c = 0; c < classes; ++c) mx = std::max(mx, static_cast<double>(l[c]));
    double sum = 0;
    for (int c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(l[c]) - mx);
    for (int c = 0; c < classes; ++c)
      out[static_cast<size_t>(s) * classes + c] = static_cast<T>(std::exp(static_cast<double>(l[c]) - mx) / sum);
  }
  return out;
}

namespace {
void redraw(std::vector<float>& v, Rng& rng) {
  if (v.empty()) return;
  double mean = 0, sq = 0;
  for (float x : v) mean += x;
  mean /= v.size();
  for (float x : v) sq += (x - mean) * (x - mean);
  const double sd = std::sqrt(sq / v.size());
  for (float& x : v) x = static_cast<float>(mean + sd * rng.normal());
}
}  // namespace

GapLinearHead<float> randomized_head(const GapLinearHead<float>& head, uint64_t seed) {
  GapLinearHead<float> r = head;
  Rng rng(seed);
  redraw(r.weight, rng);
  redraw(r.bias, rng);
  return r;
}

template struct GapLinearHead<float>;
template struct GapLinearHead<double>;
template std::vector<float> softmax_rows<float>(const float*, int, int);
template std::vector<double> softmax_rows<double>(const double*, int, int);

}  // namespace attnlab
