// Leave-one-out erasure: the T shortened inputs run in parts (importance.h explain_parts), side by side on the
// core's threads.
#include <algorithm>
#include <cmath>

#include "explain/importance.h"

namespace attnlab {

std::vector<double> leave_one_out_importance(const ExplainInput& in) {
  const size_t n = in.ids.size();
  TextCache<float> full;
  full.run.logits_only = kExplainLogitsOnly;  // importance.h
  text_forward_ids(*in.cfg, *in.params, TextBatch::from_sequences({in.ids}), full);
  const double p = class_probability(*in.cfg, full.logits, 0, in.target);
  std::vector<double> out(n);
  if (n == 1) {
    const Mat<float> logits = empty_input_logits(*in.cfg, *in.params);  // empty input (zero context / [CLS] alone)
    out[0] = std::abs(p - class_probability(*in.cfg, logits, 0, in.target));
    return out;
  }
  const size_t parts = explain_parts(n, n - 1);  // importance.h: the split does not depend on the threads
  parallel_for(parts, [&](size_t k) {
    const size_t s0 = split_begin(n, parts, k), s1 = split_begin(n, parts, k + 1);
    std::vector<std::vector<int>> seqs(s1 - s0);
    for (size_t t = s0; t < s1; ++t) {
      seqs[t - s0] = in.ids;
      seqs[t - s0].erase(seqs[t - s0].begin() + static_cast<long>(t));
    }
    TextCache<float> cache;
    cache.run.logits_only = kExplainLogitsOnly;
    text_forward_ids(*in.cfg, *in.params, TextBatch::from_sequences(seqs), cache);
    for (size_t t = s0; t < s1; ++t)
      out[t] = std::abs(p - class_probability(*in.cfg, cache.logits, static_cast<Eigen::Index>(t - s0), in.target));
  });
  return out;
}

}  // namespace attnlab
