#include "nn/adam.h"

#include <cmath>

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
  for (size_t i = 0; i < params.size(); ++i) {
    auto theta = params[i]->array();
    auto g = grads[i]->array();
    auto m = m_[i].array();
    auto v = v_[i].array();
    if (wd != T(0)) g += wd * theta;
    m = b1 * m + (T(1) - b1) * g;
    v = b2 * v + (T(1) - b2) * g.square();
    if (o_.amsgrad) {
      auto vmax = vmax_[i].array();
      vmax = vmax.max(v);
      theta -= step * m / (vmax.sqrt() / bc2_sqrt + eps);
    } else {
      theta -= step * m / (v.sqrt() / bc2_sqrt + eps);
    }
  }
}

template class Adam<float>;
template class Adam<double>;

}  // namespace attnlab
