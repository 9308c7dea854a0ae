#include "nn/adam.h"

#include <cmath>

#include "nn/param_blocks.h"

namespace attnlab {

template <class T>
Adam<T>::Adam(AdamOptions options, const std::vector<Mat<T>*>& params) : o_(options) {
  for (const Mat<T>* p : params) {
    m_.push_back(Mat<T>::Zero(p->rows(), p->cols()));
    v_.push_back(Mat<T>::Zero(p->rows(), p->cols()));
    if (o_.amsgrad) vmax_.push_back(Mat<T>::Zero(p->rows(), p->cols()));
  }
}

template <class T>
void Adam<T>::step(const std::vector<Mat<T>*>& params, const std::vector<Mat<T>*>& grads) {
  ++t_;
  const T b1 = T(o_.beta1), b2 = T(o_.beta2), eps = T(o_.eps), wd = T(o_.weight_decay);
  const T bc1 = T(1) - T(std::pow(o_.beta1, double(t_)));
  const T bc2_sqrt = T(std::sqrt(1.0 - std::pow(o_.beta2, double(t_))));
  const T step = T(o_.lr) / bc1;
  for_each_param_block(params, [&](size_t i, Eigen::Index b, Eigen::Index n) {
    auto theta = param_segment(*params[i], b, n);
    auto g = param_segment(*grads[i], b, n);
    auto m = param_segment(m_[i], b, n);
    auto v = param_segment(v_[i], b, n);
    if (wd != T(0)) g += wd * theta;
    m = b1 * m + (T(1) - b1) * g;
    v = b2 * v + (T(1) - b2) * g.square();
    if (o_.amsgrad) {
      auto vmax = param_segment(vmax_[i], b, n);
      vmax = vmax.max(v);
      theta -= step * m / (vmax.sqrt() / bc2_sqrt + eps);
    } else {
      theta -= step * m / (v.sqrt() / bc2_sqrt + eps);
    }
  });
}

template class Adam<float>;
template class Adam<double>;

}  // namespace attnlab
