#include "nn/batch_norm.h"

#include <cmath>

namespace attnlab {

template <class T>
void batch_norm_forward(const BatchNormParams<T>& p, const FeatureShape& sh, const Mat<T>& x, bool training,
                        Mat<T>& y, BatchNormCache<T>& cache, BatchNormParams<T>* running, const BatchNormOptions& o) {
  const int n = static_cast<int>(x.cols()), hw = sh.hw();
  const double count = double(n) * hw;
  cache.training = training;
  cache.inv_std.resize(sh.c, 1);
  cache.xhat.resize(x.rows(), x.cols());
  y.resize(x.rows(), x.cols());
  for (int c = 0; c < sh.c; ++c) {
    double mean, var;
    if (training) {
      double sum = 0;
      for (int b = 0; b < n; ++b) sum += x.col(b).segment(c * hw, hw).template cast<double>().sum();
      mean = sum / count;
      double sq = 0;
      for (int b = 0; b < n; ++b)
        sq += (x.col(b).segment(c * hw, hw).template cast<double>().array() - mean).square().sum();
      var = sq / count;
      if (running) {
        const double unbiased = count > 1 ? sq / (count - 1) : var;
        running->running_mean(c, 0) = T((1 - o.momentum) * double(running->running_mean(c, 0)) + o.momentum * mean);
        running->running_var(c, 0) = T((1 - o.momentum) * double(running->running_var(c, 0)) + o.momentum * unbiased);
      }
    } else {
      mean = double(p.running_mean(c, 0));
      var = double(p.running_var(c, 0));
    }
    const T inv = T(1.0 / std::sqrt(var + o.eps));
    cache.inv_std(c, 0) = inv;
    const T g = p.gamma(c, 0), be = p.beta(c, 0), m = T(mean);
    for (int b = 0; b < n; ++b) {
      auto xh = cache.xhat.col(b).segment(c * hw, hw);
      xh = (x.col(b).segment(c * hw, hw).array() - m) * inv;
      y.col(b).segment(c * hw, hw) = (xh.array() * g + be).matrix();
    }
  }
}

template <class T>
void batch_norm_backward(const BatchNormParams<T>& p, const FeatureShape& sh, const BatchNormCache<T>& cache,
                         const Mat<T>& dy, BatchNormParams<T>* grads, Mat<T>* dx) {
  const int n = static_cast<int>(dy.cols()), hw = sh.hw();
  const T count = T(double(n) * hw);
  if (dx) dx->resize(dy.rows(), dy.cols());
  for (int c = 0; c < sh.c; ++c) {
    T sum_dy = 0, sum_dy_xhat = 0;
    for (int b = 0; b < n; ++b) {
      auto d = dy.col(b).segment(c * hw, hw);
      sum_dy += d.sum();
      sum_dy_xhat += d.dot(cache.xhat.col(b).segment(c * hw, hw));
    }
    if (grads) {
      grads->gamma(c, 0) += sum_dy_xhat;
      grads->beta(c, 0) += sum_dy;
    }
    if (!dx) continue;
    const T k = p.gamma(c, 0) * cache.inv_std(c, 0);
    for (int b = 0; b < n; ++b) {
      auto out = dx->col(b).segment(c * hw, hw);
      if (cache.training)
        out = (k * (dy.col(b).segment(c * hw, hw).array() - sum_dy / count -
                    cache.xhat.col(b).segment(c * hw, hw).array() * (sum_dy_xhat / count)))
                  .matrix();
      else
        out = k * dy.col(b).segment(c * hw, hw);
    }
  }
}

#define ATTNLAB_INSTANTIATE(T)                                                                                  \
  template void batch_norm_forward<T>(const BatchNormParams<T>&, const FeatureShape&, const Mat<T>&, bool,    \
                                      Mat<T>&, BatchNormCache<T>&, BatchNormParams<T>*, const BatchNormOptions&); \
  template void batch_norm_backward<T>(const BatchNormParams<T>&, const FeatureShape&, const BatchNormCache<T>&, \
                                       const Mat<T>&, BatchNormParams<T>*, Mat<T>*);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
