#include "nn/sgd.h"

namespace attnlab {

template <class T>
Sgd<T>::Sgd(SgdOptions options, const std::vector<Mat<T>*>& params) : o_(options) {
  for (const Mat<T>* p : params) v_.push_back(Mat<T>::Zero(p->rows(), p->cols()));
}

template <class T>
void Sgd<T>::step(const std::vector<Mat<T>*>& params, const std::vector<Mat<T>*>& grads) {
  const T lr = T(o_.lr), mu = T(o_.momentum), wd = T(o_.weight_decay);
  for (size_t i = 0; i < params.size(); ++i) {
    Mat<T> g = *grads[i];
    if (wd != T(0)) g += wd * *params[i];
    if (mu != T(0)) {
      if (first_) v_[i] = g;
      else v_[i] = mu * v_[i] + g;
      if (o_.nesterov) g += mu * v_[i];
      else g = v_[i];
    }
    *params[i] -= lr * g;
  }
  first_ = false;
}

template class Sgd<float>;
template class Sgd<double>;

}  // namespace attnlab
