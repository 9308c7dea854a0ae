#include "nn/cbam.h"

namespace attnlab {

template <class T>
void cbam_forward(const CbamSpec& spec, const CbamParams<T>& p, const FeatureShape& sh, const Mat<T>& x, Mat<T>& y,
                  CbamCache<T>& cache) {
  const int n = static_cast<int>(x.cols()), hw = sh.hw(), C = sh.c;
  if (spec.channel) {
    cache.desc.resize(C, 2 * n);
    cache.c_argmax.resize(static_cast<size_t>(C) * n);
    for (int b = 0; b < n; ++b)
      for (int c = 0; c < C; ++c) {
        auto plane = x.col(b).segment(c * hw, hw);
        cache.desc(c, b) = plane.mean();
        Eigen::Index k;
        cache.desc(c, n + b) = plane.maxCoeff(&k);
        cache.c_argmax[static_cast<size_t>(b) * C + c] = static_cast<int>(k);
      }
    linear_forward(p.fc1, cache.desc, cache.hidden);
    cache.hidden = cache.hidden.cwiseMax(T(0));
    Mat<T> z;
    linear_forward(p.fc2, cache.hidden, z);  // [C x 2N]
    cache.mc = z.leftCols(n) + z.rightCols(n);
    sigmoid_inplace<T>(cache.mc);
    cache.x1.resize(x.rows(), n);
    for (int b = 0; b < n; ++b)
      for (int c = 0; c < C; ++c) cache.x1.col(b).segment(c * hw, hw) = x.col(b).segment(c * hw, hw) * cache.mc(c, b);
  } else {
    cache.x1 = x;
  }
  if (!spec.spatial) {
    y = cache.x1;
    return;
  }
  cache.s.resize(2 * hw, n);
  cache.s_argmax.resize(static_cast<size_t>(hw) * n);
  for (int b = 0; b < n; ++b) {
    const T* xb = cache.x1.col(b).data();
    for (int q = 0; q < hw; ++q) {
      T mx = xb[q], sum = xb[q];
      int arg = 0;
      for (int c = 1; c < C; ++c) {
        const T v = xb[c * hw + q];
        sum += v;
        if (v > mx) {
          mx = v;
          arg = c;
        }
      }
      cache.s(q, b) = mx;
      cache.s(hw + q, b) = sum / T(C);
      cache.s_argmax[static_cast<size_t>(b) * hw + q] = arg;
    }
  }
  const Conv2dSpec cs = spec.spatial_conv();
  conv2d_forward(cs, p.conv, FeatureShape{2, sh.h, sh.w}, cache.s, cache.ms);
  sigmoid_inplace<T>(cache.ms);
  y.resize(x.rows(), n);
  for (int b = 0; b < n; ++b)
    for (int c = 0; c < C; ++c)
      y.col(b).segment(c * hw, hw) = cache.x1.col(b).segment(c * hw, hw).cwiseProduct(cache.ms.col(b));
}

template <class T>
void cbam_backward(const CbamSpec& spec, const CbamParams<T>& p, const FeatureShape& sh, const Mat<T>& x,
                   const CbamCache<T>& cache, const Mat<T>& dy, CbamParams<T>* grads, Mat<T>& dx) {
  const int n = static_cast<int>(x.cols()), hw = sh.hw(), C = sh.c;
  Mat<T> dx1;
  if (spec.spatial) {
    Mat<T> dt(hw, n);
    dx1.resize(x.rows(), n);
    for (int b = 0; b < n; ++b) {
      dt.col(b).setZero();
      for (int c = 0; c < C; ++c) {
        dt.col(b) += dy.col(b).segment(c * hw, hw).cwiseProduct(cache.x1.col(b).segment(c * hw, hw));
        dx1.col(b).segment(c * hw, hw) = dy.col(b).segment(c * hw, hw).cwiseProduct(cache.ms.col(b));
      }
    }
    dt = (dt.array() * cache.ms.array() * (T(1) - cache.ms.array())).matrix();
    Mat<T> ds;
    conv2d_backward(spec.spatial_conv(), p.conv, FeatureShape{2, sh.h, sh.w}, cache.s, dt,
                    grads ? &grads->conv : nullptr, &ds);
    for (int b = 0; b < n; ++b)
      for (int q = 0; q < hw; ++q) {
        dx1(cache.s_argmax[static_cast<size_t>(b) * hw + q] * hw + q, b) += ds(q, b);
        const T g = ds(hw + q, b) / T(C);
        for (int c = 0; c < C; ++c) dx1(c * hw + q, b) += g;
      }
  } else {
    dx1 = dy;
  }
  if (!spec.channel) {
    dx = dx1;
    return;
  }
  dx.resize(x.rows(), n);
  Mat<T> dz(C, n);
  for (int b = 0; b < n; ++b)
    for (int c = 0; c < C; ++c) {
      dz(c, b) = dx1.col(b).segment(c * hw, hw).dot(x.col(b).segment(c * hw, hw));
      dx.col(b).segment(c * hw, hw) = dx1.col(b).segment(c * hw, hw) * cache.mc(c, b);
    }
  dz = (dz.array() * cache.mc.array() * (T(1) - cache.mc.array())).matrix();
  Mat<T> dz2(C, 2 * n);
  dz2 << dz, dz;
  Mat<T> dh, ddesc;
  linear_backward(p.fc2, cache.hidden, dz2, grads ? &grads->fc2 : nullptr, &dh);
  dh = (cache.hidden.array() > T(0)).select(dh, T(0));
  linear_backward(p.fc1, cache.desc, dh, grads ? &grads->fc1 : nullptr, &ddesc);
  for (int b = 0; b < n; ++b)
    for (int c = 0; c < C; ++c) {
      dx.col(b).segment(c * hw, hw).array() += ddesc(c, b) / T(hw);
      dx(c * hw + cache.c_argmax[static_cast<size_t>(b) * C + c], b) += ddesc(c, n + b);
    }
}

#define ATTNLAB_INSTANTIATE(T)                                                                                     \
  template void cbam_forward<T>(const CbamSpec&, const CbamParams<T>&, const FeatureShape&, const Mat<T>&, Mat<T>&, \
                                CbamCache<T>&);                                                                    \
  template void cbam_backward<T>(const CbamSpec&, const CbamParams<T>&, const FeatureShape&, const Mat<T>&,        \
                                 const CbamCache<T>&, const Mat<T>&, CbamParams<T>*, Mat<T>&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
