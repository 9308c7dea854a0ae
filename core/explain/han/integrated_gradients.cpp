// HAN integrated gradients at both levels (han_importance.h), on the path integral every model kind shares
// (explain/integrated_gradients_path.h: trapezoid segments, the ones that miss completeness bisected): the path
// a * x, a in [0, 1], from the zero baseline. Word level: x = the embedded words (HanOverrides::input_scale = a per
// copy of the document), its path points in parts side by side on the core's threads; sentence level: x = the
// sentence vectors of the document (han_sentence_forward on a * s), in chunks of at most kHanExplainBatchTokens
// sentence vectors. The completeness sums (sum of attributions vs p(x) - p(0)) are returned per level.
#include <algorithm>

#include "explain/han/han_importance.h"
#include "explain/importance.h"  // explain_parts
#include "explain/integrated_gradients_path.h"
#include "parallel/parallel_for.h"

namespace attnlab {
namespace {

// Word level: for each alpha, p(alpha) and g_t = d p / d x_t (alpha x) . x_t for every token in document order.
std::vector<IgPathPoint> han_word_points(const HanExplainInput& in, const std::vector<double>& alphas) {
  const HanConfig& cfg = *in.cfg;
  const HanParams<float>& p = *in.params;
  const size_t T = han_document_tokens(in.doc), n = alphas.size(), parts = explain_parts(n, std::max<size_t>(1, T));
  const int S = static_cast<int>(in.doc.size());
  std::vector<IgPathPoint> out(n);
  parallel_for(parts, [&](size_t part) {
    const size_t k0 = split_begin(n, parts, part), k1 = split_begin(n, parts, part + 1);
    std::vector<float> scale;
    for (size_t k = k0; k < k1; ++k) scale.push_back(static_cast<float>(alphas[k]));
    std::vector<HanDocument> docs(k1 - k0, in.doc);
    HanOverrides<float> ov;
    ov.input_scale = &scale;
    HanCache<float> c;
    han_forward(cfg, p, docs, c, ov);
    const Mat<float> d_logits = han_d_probability(cfg, c.logits, in.target);
    HanGradients<float> g;
    han_backward<float>(cfg, p, c, d_logits, {}, nullptr, &g);
    for (size_t k = k0; k < k1; ++k) {
      IgPathPoint& pt = out[k];
      const Eigen::Index col = static_cast<Eigen::Index>(k - k0);
      pt.p = han_probability(cfg, c.logits, col, in.target);
      pt.g.reserve(T);
      for (int i = 0; i < S; ++i) {
        const int gi = c.doc_first[col] + i;
        for (size_t t = 0; t < in.doc[i].size(); ++t)
          pt.g.push_back(double(g.d_words[gi].col(static_cast<Eigen::Index>(t)).cast<double>().dot(
              p.embedding.col(in.doc[i][t]).cast<double>())));
      }
    }
  });
  return out;
}

// Sentence level: for each alpha, p(alpha) and g_i = d p / d s_i (alpha s) . s_i for every sentence vector s_i.
std::vector<IgPathPoint> han_sentence_points(const HanExplainInput& in, const Mat<float>& sv, const std::vector<double>& alphas) {
  const int S = static_cast<int>(sv.cols());
  const size_t per = static_cast<size_t>(std::max<long>(1, kHanExplainBatchTokens / std::max(1, S)));
  std::vector<IgPathPoint> out(alphas.size());
  for (size_t k0 = 0; k0 < alphas.size(); k0 += per) {
    const size_t k1 = std::min(alphas.size(), k0 + per);
    Mat<float> path(sv.rows(), static_cast<Eigen::Index>(S * (k1 - k0)));
    for (size_t k = k0; k < k1; ++k) path.middleCols(static_cast<Eigen::Index>((k - k0) * S), S) = sv * static_cast<float>(alphas[k]);
    HanCache<float> cs;
    han_sentence_forward(*in.cfg, *in.params, path, std::vector<int>(k1 - k0, S), cs);
    const Mat<float> ds = han_d_probability(*in.cfg, cs.logits, in.target);
    HanBackwardOptions so;
    so.sentence_level_only = true;
    HanGradients<float> gs;
    han_backward<float>(*in.cfg, *in.params, cs, ds, so, nullptr, &gs);
    for (size_t k = k0; k < k1; ++k) {
      IgPathPoint& pt = out[k];
      pt.p = han_probability(*in.cfg, cs.logits, static_cast<Eigen::Index>(k - k0), in.target);
      for (int i = 0; i < S; ++i)
        pt.g.push_back(double(gs.d_sentence_vectors.col(static_cast<Eigen::Index>((k - k0) * S + i)).cast<double>().dot(
            sv.col(i).cast<double>())));
    }
  }
  return out;
}

}  // namespace

HanImportance han_integrated_gradients_importance(const HanExplainInput& in) {
  HanImportance out;
  if (!han_input_ok(in)) return out;
  const int S = static_cast<int>(in.doc.size());
  const int T = static_cast<int>(han_document_tokens(in.doc));
  const int steps = std::max(1, in.ig_steps);
  std::string error;  // the evaluators below always give one point per alpha, so the paths cannot fail
  std::vector<double> words;
  std::pair<double, double> ends;
  integrated_gradients_path(
      T, steps,
      [&](const std::vector<double>& alphas, std::vector<IgPathPoint>* pts, std::string*) {
        *pts = han_word_points(in, alphas);
        return true;
      },
      &words, &error, &ends);
  out.word_target = ends.second - ends.first;
  out.word.assign(S, {});
  size_t q = 0;
  for (int i = 0; i < S; ++i)
    for (size_t t = 0; t < in.doc[i].size(); ++t) {
      out.word[i].push_back(words[q++]);
      out.word_sum += out.word[i].back();
    }
  // The sentence vectors of the document itself (scale 1).
  HanCache<float> c1;
  han_forward(*in.cfg, *in.params, {in.doc}, c1);
  const Mat<float> sv = c1.sentence_vectors;  // [2Hw x S]
  integrated_gradients_path(
      S, steps,
      [&](const std::vector<double>& alphas, std::vector<IgPathPoint>* pts, std::string*) {
        *pts = han_sentence_points(in, sv, alphas);
        return true;
      },
      &out.sentence, &error, &ends);
  out.sentence_target = ends.second - ends.first;
  for (double v : out.sentence) out.sentence_sum += v;
  return out;
}

}  // namespace attnlab
