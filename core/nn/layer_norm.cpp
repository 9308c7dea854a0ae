// LayerNorm forward / backward (contract in layer_norm.h).
#include "nn/layer_norm.h"

#include <cmath>

namespace attnlab {

template <class T>
void layer_norm_forward(const LayerNormParams<T>& p, const Mat<T>& x, Mat<T>& y, LayerNormCache<T>& c) {
  const Eigen::Index d = x.rows(), n = x.cols();
  c.xhat.resize(d, n);
  c.rstd.resize(n);
  y.resize(d, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    const T mean = x.col(j).mean();
    const T var = (x.col(j).array() - mean).square().mean();
    const T r = T(1) / std::sqrt(var + T(kLayerNormEps));
    c.rstd(j) = r;
    c.xhat.col(j) = (x.col(j).array() - mean) * r;
    y.col(j) = (c.xhat.col(j).array() * p.gamma.col(0).array() + p.beta.col(0).array()).matrix();
  }
}

template <class T>
void layer_norm_backward(const LayerNormParams<T>& p, const LayerNormCache<T>& c, const Mat<T>& d_y,
                         LayerNormParams<T>* grads, Mat<T>* d_x, bool hold_scale) {
  const Eigen::Index d = d_y.rows(), n = d_y.cols();
  if (grads) {
    grads->gamma.col(0) += (d_y.array() * c.xhat.array()).rowwise().sum().matrix();
    grads->beta.col(0) += d_y.rowwise().sum();
  }
  if (!d_x) return;
  d_x->resize(d, n);
  // d_x = rstd / d * (d * g - sum(g) - xhat * sum(g ⊙ xhat)), g = d_y ⊙ gamma.
  for (Eigen::Index j = 0; j < n; ++j) {
    const auto g = (d_y.col(j).array() * p.gamma.col(0).array()).eval();
    const T sg = g.sum(), sgx = hold_scale ? T(0) : (g * c.xhat.col(j).array()).sum();
    d_x->col(j) = ((T(d) * g - sg - c.xhat.col(j).array() * sgx) * (c.rstd(j) / T(d))).matrix();
  }
}

template void layer_norm_forward<float>(const LayerNormParams<float>&, const Mat<float>&, Mat<float>&,
                                        LayerNormCache<float>&);
template void layer_norm_forward<double>(const LayerNormParams<double>&, const Mat<double>&, Mat<double>&,
                                         LayerNormCache<double>&);
template void layer_norm_backward<float>(const LayerNormParams<float>&, const LayerNormCache<float>&,
                                         const Mat<float>&, LayerNormParams<float>*, Mat<float>*, bool);
template void layer_norm_backward<double>(const LayerNormParams<double>&, const LayerNormCache<double>&,
                                          const Mat<double>&, LayerNormParams<double>*, Mat<double>*, bool);

}  // namespace attnlab
