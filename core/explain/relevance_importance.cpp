// Chefer, Gur & Wolf 2021, "Generic attention-model explainability" (self-attention rule): R = I; for each layer
// from the bottom, R ← R + Ā·R with Ā = mean over heads of (∇A ⊙ A)⁺, ∇A = d logit_target / d A; a token's score
// is R[CLS, token].
#include "explain/self_attention_maps.h"

namespace attnlab {

std::vector<double> relevance_from_maps(const SelfAttentionMaps& m) {
  Mat<double> r = Mat<double>::Identity(m.n, m.n);
  for (int l = 0; l < m.layers; ++l) {
    Mat<double> a = Mat<double>::Zero(m.n, m.n);
    for (int h = 0; h < m.heads; ++h) a += m.dA[l][h].cwiseProduct(m.A[l][h]).cwiseMax(0.0);
    a /= double(m.heads);
    r += a * r;
  }
  return cls_row(r);
}

std::vector<double> relevance_importance(const ExplainInput& in) {
  return relevance_from_maps(self_attention_maps(in, true));
}

}  // namespace attnlab
