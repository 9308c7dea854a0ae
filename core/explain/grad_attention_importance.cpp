// Gradient × attention of the last layer: mean over heads of A ⊙ ∇A at the [CLS] row (∇A = d logit_target / d A),
// signed — the attention weight scaled by how much the output moves with it (Serrano & Smith's attention ×
// gradient ranking, per head, on self-attention).
#include "explain/self_attention_maps.h"

namespace attnlab {

std::vector<double> grad_attention_from_maps(const SelfAttentionMaps& m) {
  const int l = m.layers - 1;
  Mat<double> a = Mat<double>::Zero(m.n, m.n);
  for (int h = 0; h < m.heads; ++h) a += m.dA[l][h].cwiseProduct(m.A[l][h]);
  return cls_row(a / double(m.heads));
}

std::vector<double> grad_attention_importance(const ExplainInput& in) {
  return grad_attention_from_maps(self_attention_maps(in, true));
}

}  // namespace attnlab
