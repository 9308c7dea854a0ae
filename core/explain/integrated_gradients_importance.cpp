// Integrated gradients from the zero-embedding baseline; the m interpolation points run as one batch.
#include "explain/importance.h"
#include "nn/embedding.h"

namespace attnlab {

std::vector<double> integrated_gradients_importance(const ExplainInput& in) {
  const int T = static_cast<int>(in.ids.size());
  const int m = std::max(1, in.ig_steps);
  Mat<float> x;
  embedding_forward(in.params->embedding, in.ids, x);  // [E x T]
  // Batch of m scaled copies: column t*m + k holds (k+0.5)/m * x_t.
  Mat<float> xs(x.rows(), static_cast<Eigen::Index>(T) * m);
  for (int t = 0; t < T; ++t)
    for (int k = 0; k < m; ++k) xs.col(static_cast<Eigen::Index>(t) * m + k) = x.col(t) * ((k + 0.5f) / m);
  TextCache<float> cache;
  text_forward(*in.cfg, *in.params, xs, std::vector<int>(m, T), cache);
  const Mat<float> d_logits = d_class_probability(*in.cfg, cache.logits, in.target);
  Mat<float> d_x;
  text_backward<float>(*in.cfg, *in.params, cache, d_logits, {}, nullptr, &d_x);
  std::vector<double> out(T);
  for (int t = 0; t < T; ++t) {
    double s = 0;
    for (int k = 0; k < m; ++k)
      s += d_x.col(static_cast<Eigen::Index>(t) * m + k).cast<double>().dot(x.col(t).cast<double>());
    out[t] = s / m;
  }
  return out;
}

}  // namespace attnlab
