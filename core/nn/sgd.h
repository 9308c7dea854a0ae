// SGD with momentum as PyTorch implements it (dampening 0, weight decay added to the gradient):
//   g += wd * theta;  v = mu * v + g (v = g on the first step);  theta -= lr * (nesterov ? g + mu v : v).
// Adam lives in nn/adam.h; both take the same parameter / gradient lists.
#pragma once
#include <vector>

#include "nn/tensor.h"

namespace attnlab {

struct SgdOptions {
  double lr = 0.01, momentum = 0.9, weight_decay = 0.0;
  bool nesterov = false;
};

template <class T>
class Sgd {
 public:
  Sgd(SgdOptions options, const std::vector<Mat<T>*>& params);
  // grads[i] matches params[i] in shape.
  void step(const std::vector<Mat<T>*>& params, const std::vector<Mat<T>*>& grads);
  void set_lr(double lr) { o_.lr = lr; }

 private:
  SgdOptions o_;
  bool first_ = true;
  std::vector<Mat<T>> v_;
};

extern template class Sgd<float>;
extern template class Sgd<double>;

}  // namespace attnlab
