// Attention norm (Kobayashi et al. 2020, "Attention is not only a weight"): the contribution of token j to the
// [CLS] output of a layer is the vector Σ_h α_h[CLS, j] f_h(x_j), f_h(x) = Wo[:, head h] (Wv_h LN1(x) + bv_h);
// its score is that vector's Euclidean norm (the output bias is not attributed). Last layer by default.
#include "explain/self_attention_maps.h"

namespace attnlab {

std::vector<double> attention_norm_from_maps(const SelfAttentionMaps& m, int layer) {
  const int l = layer < 0 ? m.layers - 1 : layer;
  std::vector<double> out;
  for (int j = 1; j < m.n; ++j) {
    Vec<double> v = Vec<double>::Zero(m.transformed_values[l][0].rows());
    for (int h = 0; h < m.heads; ++h) v += m.A[l][h](0, j) * m.transformed_values[l][h].col(j);
    out.push_back(v.norm());
  }
  return out;
}

std::vector<double> attention_norm_importance(const ExplainInput& in) {
  return attention_norm_from_maps(self_attention_maps(in, false));
}

}  // namespace attnlab
