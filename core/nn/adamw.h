// AdamW (Loshchilov & Hutter 2019; PyTorch's torch.optim.AdamW): decoupled weight decay, then Adam:
//   theta -= lr_t · wd · theta   (only for parameters with decay[i] = true)
//   m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g²;  theta -= lr_t / (1-b1^t) · m / (sqrt(v)/sqrt(1-b2^t) + eps)
// with the learning-rate schedule lr_t = lr · min(t / warmup, (total - t) / (total - warmup)) (linear warm-up
// over `warmup` steps, then linear decay to 0 at `total`; warmup 0 = no warm-up, total 0 = no decay).
#pragma once
#include <vector>

#include "nn/tensor.h"

namespace attnlab {

struct AdamWOptions {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.01;
  long warmup = 0, total = 0;
};

// The schedule's factor at step t (1-based).
double adamw_lr_factor(const AdamWOptions& o, long t);

template <class T>
class AdamW {
 public:
  // decay[i]: whether params[i] gets weight decay (matrices yes; biases, LayerNorm and [CLS] vectors no).
  AdamW(AdamWOptions options, const std::vector<Mat<T>*>& params, std::vector<bool> decay);
  void step(const std::vector<Mat<T>*>& params, const std::vector<Mat<T>*>& grads);
  long steps() const { return t_; }
  double current_lr() const;  // lr of the last step

 private:
  AdamWOptions o_;
  std::vector<bool> decay_;
  long t_ = 0;
  std::vector<Mat<T>> m_, v_;
};

}  // namespace attnlab
