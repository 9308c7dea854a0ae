// Leave-one-out erasure: all T shortened inputs run as one batch.
#include <cmath>

#include "explain/importance.h"

namespace attnlab {

std::vector<double> leave_one_out_importance(const ExplainInput& in) {
  const size_t n = in.ids.size();
  TextCache<float> full;
  text_forward_ids(*in.cfg, *in.params, TextBatch::from_sequences({in.ids}), full);
  const double p = class_probability(*in.cfg, full.logits, 0, in.target);
  std::vector<double> out(n);
  if (n == 1) {
    const Mat<float> logits = empty_input_logits(*in.cfg, *in.params);  // empty input (zero context / [CLS] alone)
    out[0] = std::abs(p - class_probability(*in.cfg, logits, 0, in.target));
    return out;
  }
  std::vector<std::vector<int>> seqs(n);
  for (size_t t = 0; t < n; ++t) {
    seqs[t] = in.ids;
    seqs[t].erase(seqs[t].begin() + static_cast<long>(t));
  }
  TextCache<float> cache;
  text_forward_ids(*in.cfg, *in.params, TextBatch::from_sequences(seqs), cache);
  for (size_t t = 0; t < n; ++t)
    out[t] = std::abs(p - class_probability(*in.cfg, cache.logits, static_cast<Eigen::Index>(t), in.target));
  return out;
}

}  // namespace attnlab
