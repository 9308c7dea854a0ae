// Reading attention maps, values and attention gradients out of one transformer forward/backward
// (contract in self_attention_maps.h), plus the shared helpers (head fusion, residual augmentation).
#include "explain/self_attention_maps.h"

#include <algorithm>

namespace attnlab {

const char* head_fusion_name(HeadFusion f) {
  switch (f) {
    case HeadFusion::Max: return "max";
    case HeadFusion::Min: return "min";
    default: return "mean";
  }
}

SelfAttentionMaps self_attention_maps(const ExplainInput& in, bool with_gradients) {
  const TextConfig& cfg = *in.cfg;
  const TextParams<float>& p = *in.params;
  TextCache<float> cache;
  text_forward_ids(cfg, p, TextBatch::from_sequences({in.ids}), cache);
  SelfAttentionMaps m;
  const auto& tc = cache.transformer;
  m.layers = static_cast<int>(tc.layers.size());
  m.heads = cfg.heads;
  m.n = tc.n[0];
  const Mat<float> probs = class_probabilities(cfg, cache.logits);
  for (Eigen::Index k = 0; k < probs.rows(); ++k) m.probabilities.push_back(probs(k, 0));
  const int d = cfg.embedding_dim, dk = d / cfg.heads;
  m.A.resize(m.layers);
  m.transformed_values.resize(m.layers);
  for (int l = 0; l < m.layers; ++l) {
    const Mat<double> v = tc.layers[l].attn.v.leftCols(m.n).cast<double>();
    const Mat<double> wo = p.transformer.layers[l].attn.o.w.cast<double>();
    for (int h = 0; h < m.heads; ++h) {
      m.A[l].push_back(tc.probs(l, 0, h).topLeftCorner(m.n, m.n).cast<double>());
      m.transformed_values[l].push_back(wo.middleCols(h * dk, dk) * v.middleRows(h * dk, dk));
    }
  }
  if (with_gradients) {
    // d logit_target / d logits: binary one logit z = logit(p1): +1 for class 1, -1 for class 0.
    Mat<float> d_logits = Mat<float>::Zero(cfg.outputs(), 1);
    if (cfg.outputs() == 1) d_logits(0, 0) = in.target == 1 ? 1.f : -1.f;
    else d_logits(in.target, 0) = 1.f;
    std::vector<std::vector<Mat<float>>> d_probs;
    transformer_backward<float>(cfg, p.transformer, p.decoder, tc, d_logits, {}, nullptr, nullptr, nullptr, &d_probs);
    m.dA.resize(m.layers);
    for (int l = 0; l < m.layers; ++l)
      for (int h = 0; h < m.heads; ++h) m.dA[l].push_back(d_probs[l][h].topLeftCorner(m.n, m.n).cast<double>());
  }
  return m;
}

Mat<double> fuse_heads(const std::vector<Mat<double>>& heads, HeadFusion fusion) {
  Mat<double> out = heads[0];
  for (size_t h = 1; h < heads.size(); ++h) {
    if (fusion == HeadFusion::Max) out = out.cwiseMax(heads[h]);
    else if (fusion == HeadFusion::Min) out = out.cwiseMin(heads[h]);
    else out += heads[h];
  }
  if (fusion == HeadFusion::Mean) out /= double(heads.size());
  return out;
}

Mat<double> residual_augmented(const Mat<double>& A) {
  Mat<double> r = 0.5 * A + 0.5 * Mat<double>::Identity(A.rows(), A.cols());
  for (Eigen::Index i = 0; i < r.rows(); ++i) {
    const double s = r.row(i).sum();
    if (s > 0) r.row(i) /= s;
  }
  return r;
}

std::vector<double> cls_row(const Mat<double>& m) {
  std::vector<double> out;
  for (Eigen::Index j = 1; j < m.cols(); ++j) out.push_back(m(0, j));
  return out;
}

}  // namespace attnlab
