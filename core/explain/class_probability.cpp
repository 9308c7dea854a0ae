// Shared by the explanation methods: the explained class's probability and its gradient w.r.t. logits.
#include "explain/importance.h"
#include "nn/loss.h"

namespace attnlab {

float class_probability(const TextConfig& cfg, const Mat<float>& logits, Eigen::Index b, int c) {
  return class_probabilities(cfg, Mat<float>(logits.col(b)))(c, 0);
}

Mat<float> d_class_probability(const TextConfig& cfg, const Mat<float>& logits, int c) {
  Mat<float> d(logits.rows(), logits.cols());
  if (cfg.outputs() == 1) {
    for (Eigen::Index b = 0; b < logits.cols(); ++b) {
      const float p = sigmoid(logits(0, b));
      d(0, b) = (c == 1 ? 1.f : -1.f) * p * (1.f - p);
    }
    return d;
  }
  const Mat<float> p = softmax_columns(logits);
  for (Eigen::Index b = 0; b < logits.cols(); ++b)
    for (Eigen::Index k = 0; k < logits.rows(); ++k) d(k, b) = p(c, b) * ((k == c ? 1.f : 0.f) - p(k, b));
  return d;
}

}  // namespace attnlab
