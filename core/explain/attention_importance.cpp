// Attention weights as importance.
#include "explain/importance.h"

namespace attnlab {

std::vector<double> attention_importance(const ExplainInput& in) {
  TextCache<float> cache;
  text_forward_ids(*in.cfg, *in.params, TextBatch::from_sequences({in.ids}), cache);
  std::vector<double> out(in.ids.size());
  for (size_t t = 0; t < in.ids.size(); ++t) out[t] = cache.attention.alpha(static_cast<Eigen::Index>(t), 0);
  return out;
}

}  // namespace attnlab
