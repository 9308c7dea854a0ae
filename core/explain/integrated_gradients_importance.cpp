// Integrated gradients of the core's text models from the zero-embedding baseline along the straight path
// alpha * x, alpha in [0, 1]: one batched forward + backward per part of the path points; the adaptive path itself is
// integrated_gradients_path.h (shared with a user's ONNX transformer).
#include <algorithm>

#include "explain/importance.h"
#include "explain/integrated_gradients_path.h"
#include "nn/embedding.h"

namespace attnlab {

namespace {

// Embedded input scaled by each alpha: column t*A + a holds alphas[a] * x_t.
Mat<float> scaled_inputs(const Mat<float>& x, const std::vector<double>& alphas) {
  const Eigen::Index A = static_cast<Eigen::Index>(alphas.size());
  Mat<float> xs(x.rows(), x.cols() * A);
  for (Eigen::Index t = 0; t < x.cols(); ++t)
    for (Eigen::Index a = 0; a < A; ++a) xs.col(t * A + a) = x.col(t) * static_cast<float>(alphas[a]);
  return xs;
}

// Forward + backward at every alpha, in parts (importance.h explain_parts) side by side on the core's threads.
std::vector<IgPathPoint> path_points(const ExplainInput& in, const Mat<float>& x, const std::vector<double>& alphas) {
  const int T = static_cast<int>(x.cols());
  const size_t parts = explain_parts(alphas.size(), static_cast<size_t>(T));  // importance.h
  std::vector<IgPathPoint> out(alphas.size());
  parallel_for(parts, [&](size_t k) {
    const size_t a0 = split_begin(alphas.size(), parts, k), a1 = split_begin(alphas.size(), parts, k + 1);
    const std::vector<double> chunk(alphas.begin() + a0, alphas.begin() + a1);
    const Eigen::Index A = static_cast<Eigen::Index>(chunk.size());
    TextCache<float> cache;
    cache.run.logits_only = kExplainLogitsOnly;  // importance.h
    text_forward(*in.cfg, *in.params, scaled_inputs(x, chunk), std::vector<int>(chunk.size(), T), cache);
    const Mat<float> d_logits = d_class_probability(*in.cfg, cache.logits, in.target);
    Mat<float> d_x;
    text_backward<float>(*in.cfg, *in.params, cache, d_logits, {}, nullptr, &d_x);
    for (Eigen::Index a = 0; a < A; ++a) {
      IgPathPoint& pt = out[a0 + a];
      pt.p = class_probability(*in.cfg, cache.logits, a, in.target);
      pt.g.resize(T);
      for (int t = 0; t < T; ++t) pt.g[t] = d_x.col(t * A + a).cast<double>().dot(x.col(t).cast<double>());
    }
  });
  return out;
}

}  // namespace

std::vector<double> integrated_gradients_importance(const ExplainInput& in) {
  const int T = static_cast<int>(in.ids.size());
  Mat<float> x;
  embedding_forward(in.params->embedding, in.ids, x);  // [E x T]
  std::vector<double> out;
  std::string error;
  integrated_gradients_path(
      T, in.ig_steps,
      [&](const std::vector<double>& alphas, std::vector<IgPathPoint>* pts, std::string*) {
        *pts = path_points(in, x, alphas);
        return true;
      },
      &out, &error);  // cannot fail: this evaluator always gives one point per alpha
  return out;
}

}  // namespace attnlab
