// Attention rollout (Abnar & Zuidema 2020): per layer the heads are fused (mean / max / min), Ã = 0.5·A + 0.5·I
// with rows renormalised, R = Ã_L ··· Ã_1; a token's score is R[CLS, token].
#include "explain/self_attention_maps.h"

namespace attnlab {

Mat<double> attention_rollout(const std::vector<Mat<double>>& fused_layers) {
  const Eigen::Index n = fused_layers.empty() ? 0 : fused_layers[0].rows();
  Mat<double> r = Mat<double>::Identity(n, n);
  for (const Mat<double>& a : fused_layers) r = residual_augmented(a) * r;
  return r;
}

std::vector<double> rollout_from_maps(const SelfAttentionMaps& m, HeadFusion fusion, int layers) {
  const int L = layers <= 0 ? m.layers : std::min(layers, m.layers);
  std::vector<Mat<double>> fused;
  for (int l = 0; l < L; ++l) fused.push_back(fuse_heads(m.A[l], fusion));
  return cls_row(attention_rollout(fused));
}

std::vector<double> rollout_importance(const ExplainInput& in) {
  return rollout_from_maps(self_attention_maps(in, false), HeadFusion::Mean);
}

}  // namespace attnlab
