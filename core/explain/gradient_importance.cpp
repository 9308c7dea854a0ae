// Jain & Wallace gradient importance (attention detached, gradient x input, absolute, normalised).
#include <cmath>

#include "explain/importance.h"

namespace attnlab {

std::vector<double> gradient_importance(const ExplainInput& in) {
  TextCache<float> cache;
  cache.run.logits_only = kExplainLogitsOnly;  // importance.h
  text_forward_ids(*in.cfg, *in.params, TextBatch::from_sequences({in.ids}), cache);
  const Mat<float> d_logits = d_class_probability(*in.cfg, cache.logits, in.target);
  Mat<float> d_x;
  BackwardOptions opts;
  opts.detach_attention = true;
  text_backward<float>(*in.cfg, *in.params, cache, d_logits, opts, nullptr, &d_x);
  std::vector<double> out(in.ids.size());
  double sum = 0;
  for (size_t t = 0; t < in.ids.size(); ++t) {
    const Eigen::Index col = static_cast<Eigen::Index>(t);
    out[t] = std::abs(static_cast<double>(d_x.col(col).cast<double>().dot(cache.x.col(col).cast<double>())));
    sum += out[t];
  }
  if (sum > 0)
    for (double& v : out) v /= sum;
  return out;
}

}  // namespace attnlab
