// Integrated gradients from the zero-embedding baseline along the straight path alpha * x, alpha in [0, 1].
// The path integral is computed with the midpoint rule on segments that start uniform (ig_steps of them)
// and are bisected where the explained probability changes by more than kMaxSegmentChange across a
// segment: trained attention models can switch sharply along the path (p jumps within a 1e-3 stretch of
// alpha), and a uniform grid then misses the jump and breaks completeness (sum of attributions =
// p(x) - p(baseline)). Refinement stops at kMinWidth or when 4 * ig_steps segments are in use.
#include <algorithm>
#include <cmath>

#include "explain/importance.h"
#include "nn/embedding.h"

namespace attnlab {

namespace {

constexpr double kMaxSegmentChange = 0.02;
constexpr double kMinWidth = 1e-6;

// Embedded input scaled by each alpha: column t*A + a holds alphas[a] * x_t.
Mat<float> scaled_inputs(const Mat<float>& x, const std::vector<double>& alphas) {
  const Eigen::Index A = static_cast<Eigen::Index>(alphas.size());
  Mat<float> xs(x.rows(), x.cols() * A);
  for (Eigen::Index t = 0; t < x.cols(); ++t)
    for (Eigen::Index a = 0; a < A; ++a) xs.col(t * A + a) = x.col(t) * static_cast<float>(alphas[a]);
  return xs;
}

// Path points a chunk: at most kExplainBatchTokens tokens (at least one point).
size_t points_per_chunk(const Mat<float>& x) {
  return std::max<size_t>(1, static_cast<size_t>(kExplainBatchTokens / std::max<Eigen::Index>(1, x.cols())));
}

std::vector<double> path_probabilities(const ExplainInput& in, const Mat<float>& x, const std::vector<double>& alphas) {
  const int T = static_cast<int>(x.cols());
  const size_t per = points_per_chunk(x);
  std::vector<double> p(alphas.size());
  for (size_t a0 = 0; a0 < alphas.size(); a0 += per) {
    const std::vector<double> chunk(alphas.begin() + a0, alphas.begin() + std::min(alphas.size(), a0 + per));
    TextCache<float> cache;
    text_forward(*in.cfg, *in.params, scaled_inputs(x, chunk), std::vector<int>(chunk.size(), T), cache);
    for (size_t a = 0; a < chunk.size(); ++a)
      p[a0 + a] = class_probability(*in.cfg, cache.logits, static_cast<Eigen::Index>(a), in.target);
  }
  return p;
}

}  // namespace

std::vector<double> integrated_gradients_importance(const ExplainInput& in) {
  const int T = static_cast<int>(in.ids.size());
  const int m = std::max(1, in.ig_steps);
  const size_t max_segments = static_cast<size_t>(4 * m);
  Mat<float> x;
  embedding_forward(in.params->embedding, in.ids, x);  // [E x T]

  // Breakpoints 0 = b_0 < ... < b_n = 1 with the probability at each.
  std::vector<double> breaks(m + 1);
  for (int k = 0; k <= m; ++k) breaks[k] = double(k) / m;
  std::vector<double> probs = path_probabilities(in, x, breaks);
  while (breaks.size() - 1 < max_segments) {
    std::vector<double> mids;
    for (size_t s = 0; s + 1 < breaks.size(); ++s)
      if (std::abs(probs[s + 1] - probs[s]) > kMaxSegmentChange && breaks[s + 1] - breaks[s] > kMinWidth)
        mids.push_back(0.5 * (breaks[s] + breaks[s + 1]));
    if (mids.empty()) break;
    mids.resize(std::min(mids.size(), max_segments - (breaks.size() - 1)));
    const std::vector<double> mid_probs = path_probabilities(in, x, mids);
    std::vector<std::pair<double, double>> all;
    for (size_t i = 0; i < breaks.size(); ++i) all.push_back({breaks[i], probs[i]});
    for (size_t i = 0; i < mids.size(); ++i) all.push_back({mids[i], mid_probs[i]});
    std::sort(all.begin(), all.end());
    breaks.clear();
    probs.clear();
    for (const auto& [b, p] : all) {
      breaks.push_back(b);
      probs.push_back(p);
    }
  }

  // Midpoint gradients of every segment (in chunks of path points), weighted by the segment widths.
  std::vector<double> alphas, widths;
  for (size_t s = 0; s + 1 < breaks.size(); ++s) {
    alphas.push_back(0.5 * (breaks[s] + breaks[s + 1]));
    widths.push_back(breaks[s + 1] - breaks[s]);
  }
  std::vector<double> out(T, 0.0);
  const size_t per = points_per_chunk(x);
  for (size_t a0 = 0; a0 < alphas.size(); a0 += per) {
    const std::vector<double> chunk(alphas.begin() + a0, alphas.begin() + std::min(alphas.size(), a0 + per));
    const Eigen::Index A = static_cast<Eigen::Index>(chunk.size());
    TextCache<float> cache;
    text_forward(*in.cfg, *in.params, scaled_inputs(x, chunk), std::vector<int>(chunk.size(), T), cache);
    const Mat<float> d_logits = d_class_probability(*in.cfg, cache.logits, in.target);
    Mat<float> d_x;
    text_backward<float>(*in.cfg, *in.params, cache, d_logits, {}, nullptr, &d_x);
    for (int t = 0; t < T; ++t)  // the same order of additions as one batch: a = 0, 1, … for every t
      for (Eigen::Index a = 0; a < A; ++a)
        out[t] += widths[a0 + a] * d_x.col(t * A + a).cast<double>().dot(x.col(t).cast<double>());
  }
  return out;
}

}  // namespace attnlab
