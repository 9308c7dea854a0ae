#include "nn/mil_pooling.h"

#include <cmath>

namespace attnlab {

const char* pool_head_name(PoolHead head) {
  switch (head) {
    case PoolHead::Gap: return "gap";
    case PoolHead::Gmp: return "gmp";
    case PoolHead::Lse: return "lse";
  }
  return "?";
}

bool parse_pool_head(const std::string& name, PoolHead* out) {
  if (name == "gap") *out = PoolHead::Gap;
  else if (name == "gmp") *out = PoolHead::Gmp;
  else if (name == "lse") *out = PoolHead::Lse;
  else return false;
  return true;
}

template <class T>
void global_pool_forward(PoolHead head, double r, const FeatureShape& sh, const Mat<T>& x, Mat<T>& pooled,
                         GlobalPoolCache<T>& cache) {
  const int n = static_cast<int>(x.cols()), hw = sh.hw();
  pooled.resize(sh.c, n);
  if (head == PoolHead::Gmp) cache.argmax.resize(static_cast<size_t>(sh.c) * n);
  if (head == PoolHead::Lse) cache.weights.resize(x.rows(), n);
  for (int b = 0; b < n; ++b)
    for (int c = 0; c < sh.c; ++c) {
      auto plane = x.col(b).segment(c * hw, hw);
      if (head == PoolHead::Gap) {
        pooled(c, b) = plane.mean();
      } else if (head == PoolHead::Gmp) {
        Eigen::Index k;
        pooled(c, b) = plane.maxCoeff(&k);
        cache.argmax[static_cast<size_t>(b) * sh.c + c] = static_cast<int>(k);
      } else {
        const T m = plane.maxCoeff();
        auto w = cache.weights.col(b).segment(c * hw, hw);
        w = ((plane.array() - m) * T(r)).exp().matrix();
        const T s = w.sum();
        pooled(c, b) = m + T(std::log(double(s) / hw) / r);
        w /= s;
      }
    }
}

template <class T>
void global_pool_backward(PoolHead head, double /*r*/, const FeatureShape& sh, const GlobalPoolCache<T>& cache,
                          const Mat<T>& dpooled, Mat<T>& dx) {
  const int n = static_cast<int>(dpooled.cols()), hw = sh.hw();
  dx.setZero(sh.size(), n);
  for (int b = 0; b < n; ++b)
    for (int c = 0; c < sh.c; ++c) {
      const T g = dpooled(c, b);
      if (head == PoolHead::Gap) dx.col(b).segment(c * hw, hw).setConstant(g / T(hw));
      else if (head == PoolHead::Gmp) dx(c * hw + cache.argmax[static_cast<size_t>(b) * sh.c + c], b) = g;
      else dx.col(b).segment(c * hw, hw) = g * cache.weights.col(b).segment(c * hw, hw);
    }
}

#define ATTNLAB_INSTANTIATE(T)                                                                               \
  template void global_pool_forward<T>(PoolHead, double, const FeatureShape&, const Mat<T>&, Mat<T>&,        \
                                       GlobalPoolCache<T>&);                                                 \
  template void global_pool_backward<T>(PoolHead, double, const FeatureShape&, const GlobalPoolCache<T>&,    \
                                        const Mat<T>&, Mat<T>&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

}  // namespace attnlab
