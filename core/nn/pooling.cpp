#include "nn/pooling.h"

namespace attnlab {

template <class T>
void relu_forward(const Mat<T>& x, Mat<T>& y) {
  y = x.cwiseMax(T(0));
}

template <class T>
void relu_backward(const Mat<T>& y, const Mat<T>& dy, Mat<T>& dx) {
  dx = (y.array() > T(0)).select(dy, T(0));
}

FeatureShape pool_output_shape(const PoolSpec& s, const FeatureShape& in) {
  if (s.k <= 0 || s.stride <= 0 || in.c <= 0 || in.h < s.k || in.w < s.k) return {};
  return {in.c, (in.h - s.k) / s.stride + 1, (in.w - s.k) / s.stride + 1};
}

template <class T>
void max_pool_forward(const PoolSpec& s, const FeatureShape& in, const Mat<T>& x, Mat<T>& y,
                      std::vector<int>& argmax) {
  const FeatureShape out = pool_output_shape(s, in);
  const int n = static_cast<int>(x.cols());
  y.resize(out.size(), n);
  argmax.resize(static_cast<size_t>(out.size()) * n);
  for (int b = 0; b < n; ++b) {
    const T* xi = x.col(b).data();
    T* yo = y.col(b).data();
    int* am = argmax.data() + static_cast<size_t>(b) * out.size();
    for (int c = 0; c < in.c; ++c)
      for (int oy = 0; oy < out.h; ++oy)
        for (int ox = 0; ox < out.w; ++ox) {
          int best = c * in.hw() + oy * s.stride * in.w + ox * s.stride;
          for (int i = 0; i < s.k; ++i)
            for (int j = 0; j < s.k; ++j) {
              const int idx = c * in.hw() + (oy * s.stride + i) * in.w + ox * s.stride + j;
              if (xi[idx] > xi[best]) best = idx;
            }
          const int o = c * out.hw() + oy * out.w + ox;
          yo[o] = xi[best];
          am[o] = best;
        }
  }
}

template <class T>
void max_pool_backward(const PoolSpec& s, const FeatureShape& in, const std::vector<int>& argmax, const Mat<T>& dy,
                       Mat<T>& dx) {
  const FeatureShape out = pool_output_shape(s, in);
  const int n = static_cast<int>(dy.cols());
  dx.setZero(in.size(), n);
  for (int b = 0; b < n; ++b) {
    const int* am = argmax.data() + static_cast<size_t>(b) * out.size();
    for (int o = 0; o < out.size(); ++o) dx(am[o], b) += dy(o, b);
  }
}

template <class T>
void avg_pool_forward(const PoolSpec& s, const FeatureShape& in, const Mat<T>& x, Mat<T>& y) {
  const FeatureShape out = pool_output_shape(s, in);
  const int n = static_cast<int>(x.cols());
  const T scale = T(1) / T(s.k * s.k);
  y.resize(out.size(), n);
  for (int b = 0; b < n; ++b)
    for (int c = 0; c < in.c; ++c)
      for (int oy = 0; oy < out.h; ++oy)
        for (int ox = 0; ox < out.w; ++ox) {
          T sum = 0;
          for (int i = 0; i < s.k; ++i)
            for (int j = 0; j < s.k; ++j) sum += x(c * in.hw() + (oy * s.stride + i) * in.w + ox * s.stride + j, b);
          y(c * out.hw() + oy * out.w + ox, b) = sum * scale;
        }
}

template <class T>
void avg_pool_backward(const PoolSpec& s, const FeatureShape& in, const Mat<T>& dy, Mat<T>& dx) {
  const FeatureShape out = pool_output_shape(s, in);
  const int n = static_cast<int>(dy.cols());
  const T scale = T(1) / T(s.k * s.k);
  dx.setZero(in.size(), n);
  for (int b = 0; b < n; ++b)
    for (int c = 0; c < in.c; ++c)
      for (int oy = 0; oy < out.h; ++oy)
        for (int ox = 0; ox < out.w; ++ox) {
          const T g = dy(c * out.hw() + oy * out.w + ox, b) * scale;
          for (int i = 0; i < s.k; ++i)
            for (int j = 0; j < s.k; ++j) dx(c * in.hw() + (oy * s.stride + i) * in.w + ox * s.stride + j, b) += g;
        }
}

#define ATTNLAB_INSTANTIATE(T)                                                                                  \
  template void relu_forward<T>(const Mat<T>&, Mat<T>&);                                                        \
  template void relu_backward<T>(const Mat<T>&, const Mat<T>&, Mat<T>&);                                        \
  template void max_pool_forward<T>(const PoolSpec&, const FeatureShape&, const Mat<T>&, Mat<T>&,               \
                                    std::vector<int>&);                                                         \
  template void max_pool_backward<T>(const PoolSpec&, const FeatureShape&, const std::vector<int>&, const Mat<T>&, \
                                     Mat<T>&);                                                                  \
  template void avg_pool_forward<T>(const PoolSpec&, const FeatureShape&, const Mat<T>&, Mat<T>&);              \
  template void avg_pool_backward<T>(const PoolSpec&, const FeatureShape&, const Mat<T>&, Mat<T>&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
