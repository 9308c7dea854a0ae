// HAN integrated gradients at both levels (han_importance.h): the path a * x, a in (0, 1], from the zero
// baseline, midpoint rule with ig_steps points; the word level in parts side by side on the core's threads. Word level:
// x = the embedded words (HanOverrides::input_scale = a per copy of the document); sentence level: x = the
// sentence vectors of the document (han_sentence_forward on a * s). The completeness sums (sum of attributions
// vs p(x) - p(0)) are returned; more steps close the gap.
#include <algorithm>

#include "explain/han/han_importance.h"
#include "explain/importance.h"  // explain_parts
#include "parallel/parallel_for.h"

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
  // Word level in parts side by side on the core's threads (explain_parts: 8, more when a part would exceed
  // kHanExplainBatchTokens tokens; at least one copy of the document a part), each point's contributions kept apart
  // and summed afterwards in the order of the points, so the values do not depend on the thread count.
  const size_t T = han_document_tokens(in.doc);
  const size_t points = static_cast<size_t>(m) + 1, parts = explain_parts(points, std::max<size_t>(1, T));
  out.word.assign(S, {});
  for (int i = 0; i < S; ++i) out.word[i].assign(in.doc[i].size(), 0.0);
  std::vector<std::vector<double>> contribution(static_cast<size_t>(m));  // [point][token in document order]
  double p_baseline = 0;
  parallel_for(parts, [&](size_t part) {
    const int k0 = static_cast<int>(split_begin(points, parts, part)), k1 = static_cast<int>(split_begin(points, parts, part + 1));
    std::vector<float> chunk_scale(scale.begin() + k0, scale.begin() + k1);
    std::vector<HanDocument> docs(static_cast<size_t>(k1 - k0), in.doc);
    HanOverrides<float> ov;
    ov.input_scale = &chunk_scale;
    HanCache<float> c;
    han_forward(cfg, p, docs, c, ov);
    Mat<float> d_logits = han_d_probability(cfg, c.logits, in.target);
    if (k1 == m + 1) {  // the baseline is the last point
      d_logits.col(m - k0).setZero();
      p_baseline = han_probability(cfg, c.logits, m - k0, in.target);
    }
    HanGradients<float> g;
    han_backward<float>(cfg, p, c, d_logits, {}, nullptr, &g);
    for (int k = k0; k < std::min(k1, m); ++k) {
      std::vector<double>& w = contribution[static_cast<size_t>(k)];
      w.reserve(T);
      for (int i = 0; i < S; ++i) {
        const int gi = c.doc_first[k - k0] + i;
        for (size_t t = 0; t < in.doc[i].size(); ++t)
          w.push_back(double(g.d_words[gi].col(static_cast<Eigen::Index>(t)).cast<double>().dot(
                          p.embedding.col(in.doc[i][t]).cast<double>())) / m);
      }
    }
  });
  for (const std::vector<double>& w : contribution) {
    size_t q = 0;
    for (int i = 0; i < S; ++i)
      for (size_t t = 0; t < in.doc[i].size(); ++t) out.word[i][t] += w[q++];
  }
  // The document itself (scale 1) and the sentence vectors it produces.
  HanCache<float> c1;
  han_forward(cfg, p, {in.doc}, c1);
  const double p1 = han_probability(cfg, c1.logits, 0, in.target);
  out.word_target = p1 - p_baseline;
  for (const auto& w : out.word)
    for (double v : w) out.word_sum += v;
  // Sentence level: copies of the sentence vectors scaled along the path, in chunks of at most
  // kHanExplainBatchTokens sentence vectors.
  const Mat<float>& sv = c1.sentence_vectors;  // [2Hw x S]
  const int per_s = static_cast<int>(std::max<long>(1, kHanExplainBatchTokens / std::max(1, S)));
  out.sentence.assign(S, 0.0);
  for (int k0 = 0; k0 <= m; k0 += per_s) {
    const int k1 = std::min(m + 1, k0 + per_s);
    Mat<float> path(sv.rows(), static_cast<Eigen::Index>(S) * (k1 - k0));
    for (int k = k0; k < k1; ++k) path.middleCols(static_cast<Eigen::Index>(k - k0) * S, S) = sv * scale[k];
    HanCache<float> cs;
    han_sentence_forward(cfg, p, path, std::vector<int>(static_cast<size_t>(k1 - k0), S), cs);
    Mat<float> ds = han_d_probability(cfg, cs.logits, in.target);
    if (k1 == m + 1) {
      ds.col(m - k0).setZero();
      out.sentence_target = p1 - han_probability(cfg, cs.logits, m - k0, in.target);
    }
    HanBackwardOptions so;
    so.sentence_level_only = true;
    HanGradients<float> gs;
    han_backward<float>(cfg, p, cs, ds, so, nullptr, &gs);
    for (int k = k0; k < std::min(k1, m); ++k)
      for (int i = 0; i < S; ++i)
        out.sentence[i] += double(gs.d_sentence_vectors.col(static_cast<Eigen::Index>(k - k0) * S + i).cast<double>().dot(
                               sv.col(i).cast<double>())) / m;
  }
  for (double v : out.sentence) out.sentence_sum += v;
  return out;
}

}  // namespace attnlab
