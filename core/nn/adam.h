// Adam as PyTorch implements it (optionally AMSGrad; weight decay added to the gradient, L2 style):
//   g += wd*theta; m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; vmax = max(vmax, v) (amsgrad)
//   theta -= lr/(1-b1^t) * m / (sqrt(v_or_vmax)/sqrt(1-b2^t) + eps)
#pragma once
#include <vector>

#include "nn/tensor.h"

namespace attnlab {

struct AdamOptions {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.0;
  bool amsgrad = false;
};

template <class T>
class Adam {
 public:
  Adam(AdamOptions options, const std::vector<Mat<T>*>& params);
  // grads[i] matches params[i] in shape.
  void step(const std::vector<Mat<T>*>& params, const std::vector<Mat<T>*>& grads);

 private:
  AdamOptions o_;
  long t_ = 0;
  std::vector<Mat<T>> m_, v_, vmax_;
};

}  // namespace attnlab
