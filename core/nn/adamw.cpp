// AdamW with warm-up and linear decay (contract in adamw.h).
#include "nn/adamw.h"

#include "nn/param_blocks.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

double adamw_lr_factor(const AdamWOptions& o, long t) {
  double f = 1.0;
  if (o.warmup > 0 && t <= o.warmup) f = double(t) / double(o.warmup);
  else if (o.total > o.warmup) f = std::max(0.0, double(o.total - t) / double(o.total - o.warmup));
  return f;
}

template <class T>
AdamW<T>::AdamW(AdamWOptions options, const std::vector<Mat<T>*>& params, std::vector<bool> decay)
    : o_(options), decay_(std::move(decay)) {
  decay_.resize(params.size(), false);
  for (const Mat<T>* p : params) {
    m_.push_back(Mat<T>::Zero(p->rows(), p->cols()));
    v_.push_back(Mat<T>::Zero(p->rows(), p->cols()));
  }
}

template <class T>
double AdamW<T>::current_lr() const {
  return o_.lr * adamw_lr_factor(o_, std::max(1L, t_));
}

template <class T>
void AdamW<T>::step(const std::vector<Mat<T>*>& params, const std::vector<Mat<T>*>& grads) {
  ++t_;
  const double lr = o_.lr * adamw_lr_factor(o_, t_);
  const T b1 = T(o_.beta1), b2 = T(o_.beta2), eps = T(o_.eps);
  const T bc1 = T(1) - T(std::pow(o_.beta1, double(t_)));
  const T bc2_sqrt = T(std::sqrt(1.0 - std::pow(o_.beta2, double(t_))));
  const T step = T(lr) / bc1;
  const T shrink = T(1.0 - lr * o_.weight_decay);
  for_each_param_block(params, [&](size_t i, Eigen::Index b, Eigen::Index n) {
    auto theta = param_segment(*params[i], b, n);
    auto g = param_segment(*grads[i], b, n);
    auto m = param_segment(m_[i], b, n);
    auto v = param_segment(v_[i], b, n);
    if (decay_[i]) theta *= shrink;
    m = b1 * m + (T(1) - b1) * g;
    v = b2 * v + (T(1) - b2) * g.square();
    theta -= step * m / (v.sqrt() / bc2_sqrt + eps);
  });
}

template class AdamW<float>;
template class AdamW<double>;

}  // namespace attnlab
