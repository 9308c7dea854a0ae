// The frozen HAN document and its attention interventions (han_frozen.h).
#include "experiments/han_frozen.h"

#include "experiments/frozen_encoder.h"  // argmax
#include "explain/han/han_importance.h"

namespace attnlab {

int HanFrozen::num_words() const {
  int n = 0;
  for (const auto& a : alpha) n += static_cast<int>(a.size());
  return n;
}

HanFrozen han_freeze(const HanModel& model, const HanDocument& doc) {
  HanFrozen f;
  const HanParams<double> p = model.params.cast<double>();
  HanCache<double> c;
  han_forward(model.config, p, {doc}, c);
  const Mat<double> pr = han_class_probabilities(model.config, c.logits);
  for (Eigen::Index k = 0; k < pr.rows(); ++k) f.probs.push_back(pr(k, 0));
  f.predicted = argmax(f.probs);
  const int S = c.S;
  f.h = c.sentence_encoder.out.leftCols(S);  // D = 1: column i = sentence i
  for (int i = 0; i < S; ++i) {
    f.beta.push_back(c.sentence_attention.alpha(i, 0));
    const auto a = han_word_alpha(c, i);
    f.alpha.emplace_back(a.begin(), a.end());
    const HanWordChunk<double>& ch = c.chunks[c.sentence_chunk[i]];
    const int b = c.sentence_col[i], B = static_cast<int>(ch.sentences.size()), n = ch.lengths[b];
    Mat<double> st(ch.encoder.out.rows(), n);
    for (int t = 0; t < n; ++t) st.col(t) = ch.encoder.out.col(static_cast<Eigen::Index>(t) * B + b);
    f.word_states.push_back(std::move(st));
  }
  // d p_pred / d logits, then the attention gradients (attention as inputs: its own values imposed).
  Mat<double> d_logits(model.config.outputs(), 1);
  if (model.config.outputs() == 1) {
    const double p1 = pr(1, 0);
    d_logits(0, 0) = (f.predicted == 1 ? 1.0 : -1.0) * p1 * (1 - p1);
  } else {
    for (Eigen::Index k = 0; k < d_logits.rows(); ++k)
      d_logits(k, 0) = pr(f.predicted, 0) * ((k == f.predicted ? 1.0 : 0.0) - pr(k, 0));
  }
  HanGradients<double> g;
  han_backward<double>(model.config, p, c, d_logits, {}, nullptr, &g);
  for (int i = 0; i < S; ++i) {
    f.d_beta.push_back(g.d_sentence_alpha(i, 0));
    f.d_alpha.push_back(g.d_word_alpha[i]);
  }
  return f;
}

std::vector<double> han_output_with_sentence_attention(const HanModel& model, const HanFrozen& f,
                                                       const std::vector<double>& beta) {
  Vec<double> v = Vec<double>::Zero(f.h.rows());
  for (size_t i = 0; i < beta.size(); ++i) v += beta[i] * f.h.col(static_cast<Eigen::Index>(i));
  const Mat<double> logits = model.params.classifier.w.cast<double>() * v + model.params.classifier.b.cast<double>();
  const Mat<double> pr = han_class_probabilities(model.config, logits);
  std::vector<double> out;
  for (Eigen::Index k = 0; k < pr.rows(); ++k) out.push_back(pr(k, 0));
  return out;
}

std::vector<std::vector<double>> han_outputs_with_word_attention(
    const HanModel& model, const HanDocument& doc, const std::vector<std::vector<std::vector<double>>>& variants) {
  std::vector<std::vector<double>> out;
  if (variants.empty()) return out;
  const std::vector<HanDocument> docs(variants.size(), doc);
  std::vector<std::vector<float>> wa;
  for (const auto& v : variants)
    for (const auto& s : v) wa.emplace_back(s.begin(), s.end());
  HanOverrides<float> ov;
  ov.word_alpha = &wa;
  HanCache<float> c;
  han_forward(model.config, model.params, docs, c, ov);
  const Mat<float> pr = han_class_probabilities(model.config, c.logits);
  for (Eigen::Index d = 0; d < pr.cols(); ++d) {
    std::vector<double> p;
    for (Eigen::Index k = 0; k < pr.rows(); ++k) p.push_back(pr(k, d));
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace attnlab
