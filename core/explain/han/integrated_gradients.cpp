// HAN integrated gradients at both levels (han_importance.h): the path a * x, a in (0, 1], from the zero
// baseline, midpoint rule with ig_steps points, all points in one batch. Word level: x = the embedded words
// (HanOverrides::input_scale = a per copy of the document); sentence level: x = the sentence vectors of the
// document (han_sentence_forward on a * s). The completeness sums (sum of attributions vs p(x) - p(0)) are
// returned; more steps close the gap.
#include <algorithm>

#include "explain/han/han_importance.h"

namespace attnlab {

HanImportance han_integrated_gradients_importance(const HanExplainInput& in) {
  HanImportance out;
  if (!han_input_ok(in)) return out;
  const HanConfig& cfg = *in.cfg;
  const HanParams<float>& p = *in.params;
  const int m = std::max(1, in.ig_steps);
  const int S = static_cast<int>(in.doc.size());
  std::vector<float> scale(m + 1);
  for (int k = 0; k < m; ++k) scale[k] = (k + 0.5f) / m;
  scale[m] = 0.f;  // the baseline
  std::vector<HanDocument> docs(m + 1, in.doc);
  HanOverrides<float> ov;
  ov.input_scale = &scale;
  HanCache<float> c;
  han_forward(cfg, p, docs, c, ov);
  Mat<float> d_logits = han_d_probability(cfg, c.logits, in.target);
  d_logits.col(m).setZero();
  HanGradients<float> g;
  han_backward<float>(cfg, p, c, d_logits, {}, nullptr, &g);
  out.word.assign(S, {});
  for (int i = 0; i < S; ++i) out.word[i].assign(in.doc[i].size(), 0.0);
  for (int k = 0; k < m; ++k)
    for (int i = 0; i < S; ++i) {
      const int gi = c.doc_first[k] + i;
      for (size_t t = 0; t < in.doc[i].size(); ++t)
        out.word[i][t] += double(g.d_words[gi].col(static_cast<Eigen::Index>(t)).cast<double>().dot(
                              p.embedding.col(in.doc[i][t]).cast<double>())) / m;
    }
  // The document itself (scale 1) and the sentence vectors it produces.
  HanCache<float> c1;
  han_forward(cfg, p, {in.doc}, c1);
  const double p1 = han_probability(cfg, c1.logits, 0, in.target);
  out.word_target = p1 - han_probability(cfg, c.logits, m, in.target);
  for (const auto& w : out.word)
    for (double v : w) out.word_sum += v;
  // Sentence level: copies of the sentence vectors scaled along the path.
  const Mat<float>& sv = c1.sentence_vectors;  // [2Hw x S]
  Mat<float> path(sv.rows(), static_cast<Eigen::Index>(S) * (m + 1));
  for (int k = 0; k <= m; ++k) path.middleCols(static_cast<Eigen::Index>(k) * S, S) = sv * scale[k];
  HanCache<float> cs;
  han_sentence_forward(cfg, p, path, std::vector<int>(m + 1, S), cs);
  Mat<float> ds = han_d_probability(cfg, cs.logits, in.target);
  ds.col(m).setZero();
  HanBackwardOptions so;
  so.sentence_level_only = true;
  HanGradients<float> gs;
  han_backward<float>(cfg, p, cs, ds, so, nullptr, &gs);
  out.sentence.assign(S, 0.0);
  for (int k = 0; k < m; ++k)
    for (int i = 0; i < S; ++i)
      out.sentence[i] += double(gs.d_sentence_vectors.col(static_cast<Eigen::Index>(k) * S + i).cast<double>().dot(
                             sv.col(i).cast<double>())) / m;
  out.sentence_target = p1 - han_probability(cfg, cs.logits, m, in.target);
  for (double v : out.sentence) out.sentence_sum += v;
  return out;
}

}  // namespace attnlab
