// Helpers shared by the HAN importance methods (han_importance.h): input check, p_target and its gradient.
#include <cmath>

#include "explain/han/han_importance.h"

namespace attnlab {

bool han_input_ok(const HanExplainInput& in) {
  if (!in.cfg || !in.params || in.doc.empty()) return false;
  for (const auto& s : in.doc) {
    if (s.empty()) return false;
    for (int id : s)
      if (id < 0 || id >= in.params->embedding.cols()) return false;
  }
  return in.target >= 0 && in.target < in.cfg->num_classes;
}

size_t han_document_tokens(const HanDocument& doc) {
  size_t n = 0;
  for (const auto& s : doc) n += s.size();
  return n;
}

double han_probability(const HanConfig& cfg, const Mat<float>& logits, Eigen::Index d, int target) {
  const Mat<float> p = han_class_probabilities(cfg, Mat<float>(logits.col(d)));
  return p(target, 0);
}

Mat<float> han_d_probability(const HanConfig& cfg, const Mat<float>& logits, int target) {
  const Eigen::Index D = logits.cols();
  if (cfg.outputs() == 1) {  // p1 = sigmoid(z): dp1/dz = p1 (1 - p1); p0 = 1 - p1
    Mat<float> g(1, D);
    for (Eigen::Index d = 0; d < D; ++d) {
      const float p = sigmoid(logits(0, d));
      g(0, d) = (target == 1 ? 1.f : -1.f) * p * (1.f - p);
    }
    return g;
  }
  const Mat<float> p = han_class_probabilities(cfg, logits);  // dp_c/dz_k = p_c (delta_ck - p_k)
  Mat<float> g(logits.rows(), D);
  for (Eigen::Index d = 0; d < D; ++d)
    for (Eigen::Index k = 0; k < logits.rows(); ++k) g(k, d) = p(target, d) * ((k == target ? 1.f : 0.f) - p(k, d));
  return g;
}

}  // namespace attnlab
