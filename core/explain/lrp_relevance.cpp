// transformer_relevance (contract in lrp_relevance.h).
#include "explain/lrp_relevance.h"

#include <stdexcept>

namespace attnlab {

double LrpRelevance::unexplained() const {
  double s = cls + positions;
  for (double v : tokens) s += v;
  return logit - s;
}

template <class T>
LrpRelevance transformer_relevance(const TextConfig& cfg, const TextParams<T>& params, const std::vector<int>& ids,
                                   int target, PropagationRule rule) {
  if (cfg.encoder != EncoderKind::Transformer) throw std::invalid_argument("relevance propagation needs a transformer");
  TextCache<T> cache;
  text_forward_ids(cfg, params, TextBatch::from_sequences({ids}), cache);
  Mat<T> d_logits = Mat<T>::Zero(cfg.outputs(), 1);
  if (cfg.outputs() == 1) d_logits(0, 0) = target == 1 ? T(1) : T(-1);
  else d_logits(target, 0) = T(1);
  TransformerBackwardOptions opts;
  opts.rule = rule;
  Mat<T> d_h0;
  transformer_backward<T>(cfg, params.transformer, params.decoder, cache.transformer, d_logits, opts, nullptr, nullptr,
                          nullptr, nullptr, nullptr, &d_h0);
  LrpRelevance r;
  r.logit = static_cast<double>((d_logits.transpose() * cache.logits)(0, 0));
  const auto& tc = cache.transformer;
  const int n = tc.n[0];  // [CLS] + kept tokens
  r.tokens.assign(ids.size(), 0.0);
  r.cls = static_cast<double>(params.transformer.cls.col(0).dot(d_h0.col(0)));
  for (int s = 0; s < n; ++s)
    r.positions += static_cast<double>(params.transformer.position.row(s).dot(d_h0.col(s).transpose()));
  for (int s = 1; s < n; ++s)  // tokens cut by max_len keep 0
    r.tokens[s - 1] = static_cast<double>(cache.x.col(s - 1).dot(d_h0.col(s)));
  return r;
}

template LrpRelevance transformer_relevance<float>(const TextConfig&, const TextParams<float>&,
                                                   const std::vector<int>&, int, PropagationRule);
template LrpRelevance transformer_relevance<double>(const TextConfig&, const TextParams<double>&,
                                                    const std::vector<int>&, int, PropagationRule);

}  // namespace attnlab
