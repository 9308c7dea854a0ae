// Integrated gradients from the zero-embedding baseline along the straight path alpha * x, alpha in [0, 1].
// One forward + backward pass at each breakpoint 0 = b_0 < ... < b_n = 1 gives the probability p(b) and the
// path gradient g_t(b) = d p / d x_t (b x) . x_t; the path integral is the trapezoid rule over the segments
// (ig_steps uniform ones to start). Along the path d p(alpha x) / d alpha = sum_t g_t(alpha), so over each
// segment [a, b] the trapezoid's sum over tokens must equal p(b) - p(a): its miss is the segment's exact
// completeness error, known from passes already made. Trained attention models can switch sharply along the
// path (p jumps within a 1e-3 stretch of alpha), where a uniform grid breaks completeness (sum of attributions
// = p(x) - p(baseline)); so the segments missing by more than kMaxSegmentError are bisected, worst first,
// round by round, until none is left, a segment is narrower than kMinWidth, or 4 * ig_steps segments are in use.
// kMinWidth is below float's spacing of alpha (the scaled input is float): a BiLSTM's state can switch within
// ~1e-6 of alpha (tests/core/test_explain.cpp, SST-2 test line 34), which a 1e-6 floor left 89 % incomplete.
// Smooth segments, however steep, cost no extra pass.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "explain/importance.h"
#include "nn/embedding.h"

namespace attnlab {

namespace {

constexpr double kMaxSegmentError = 1e-3;
constexpr double kMinWidth = 1e-9;

// Embedded input scaled by each alpha: column t*A + a holds alphas[a] * x_t.
Mat<float> scaled_inputs(const Mat<float>& x, const std::vector<double>& alphas) {
  const Eigen::Index A = static_cast<Eigen::Index>(alphas.size());
  Mat<float> xs(x.rows(), x.cols() * A);
  for (Eigen::Index t = 0; t < x.cols(); ++t)
    for (Eigen::Index a = 0; a < A; ++a) xs.col(t * A + a) = x.col(t) * static_cast<float>(alphas[a]);
  return xs;
}

// One path point: p(alpha x), g_t, and their sum over tokens.
struct PathPoint {
  double alpha = 0, p = 0, slope = 0;
  std::vector<double> g;
};

// Forward + backward at every alpha, in chunks of at most kExplainBatchTokens tokens (at least one point).
std::vector<PathPoint> path_points(const ExplainInput& in, const Mat<float>& x, const std::vector<double>& alphas) {
  const int T = static_cast<int>(x.cols());
  const size_t per = std::max<size_t>(1, static_cast<size_t>(kExplainBatchTokens / std::max<Eigen::Index>(1, x.cols())));
  std::vector<PathPoint> out(alphas.size());
  for (size_t a0 = 0; a0 < alphas.size(); a0 += per) {
    const std::vector<double> chunk(alphas.begin() + a0, alphas.begin() + std::min(alphas.size(), a0 + per));
    const Eigen::Index A = static_cast<Eigen::Index>(chunk.size());
    TextCache<float> cache;
    cache.run.logits_only = kExplainLogitsOnly;  // importance.h
    text_forward(*in.cfg, *in.params, scaled_inputs(x, chunk), std::vector<int>(chunk.size(), T), cache);
    const Mat<float> d_logits = d_class_probability(*in.cfg, cache.logits, in.target);
    Mat<float> d_x;
    text_backward<float>(*in.cfg, *in.params, cache, d_logits, {}, nullptr, &d_x);
    for (Eigen::Index a = 0; a < A; ++a) {
      PathPoint& pt = out[a0 + a];
      pt.alpha = chunk[a];
      pt.p = class_probability(*in.cfg, cache.logits, a, in.target);
      pt.g.resize(T);
      for (int t = 0; t < T; ++t) pt.g[t] = d_x.col(t * A + a).cast<double>().dot(x.col(t).cast<double>());
      pt.slope = std::accumulate(pt.g.begin(), pt.g.end(), 0.0);
    }
  }
  return out;
}

// Trapezoid sum over tokens of segment [a, b] minus p(b) - p(a).
double segment_error(const PathPoint& a, const PathPoint& b) {
  return 0.5 * (b.alpha - a.alpha) * (a.slope + b.slope) - (b.p - a.p);
}

}  // namespace

std::vector<double> integrated_gradients_importance(const ExplainInput& in) {
  const int T = static_cast<int>(in.ids.size());
  const int m = std::max(1, in.ig_steps);
  const size_t max_segments = static_cast<size_t>(4 * m);
  Mat<float> x;
  embedding_forward(in.params->embedding, in.ids, x);  // [E x T]

  std::vector<double> alphas(m + 1);
  for (int k = 0; k <= m; ++k) alphas[k] = double(k) / m;
  std::vector<PathPoint> pts = path_points(in, x, alphas);  // sorted by alpha
  while (pts.size() - 1 < max_segments) {
    std::vector<std::pair<double, size_t>> bad;  // (|error|, segment), worst first
    for (size_t s = 0; s + 1 < pts.size(); ++s) {
      const double e = std::abs(segment_error(pts[s], pts[s + 1]));
      if (e > kMaxSegmentError && pts[s + 1].alpha - pts[s].alpha > kMinWidth) bad.push_back({e, s});
    }
    if (bad.empty()) break;
    std::stable_sort(bad.begin(), bad.end(), [](const auto& u, const auto& v) { return u.first > v.first; });
    bad.resize(std::min(bad.size(), max_segments - (pts.size() - 1)));
    std::vector<double> mids;
    for (const auto& [e, s] : bad) mids.push_back(0.5 * (pts[s].alpha + pts[s + 1].alpha));
    std::vector<PathPoint> added = path_points(in, x, mids);
    for (PathPoint& p : added) pts.push_back(std::move(p));
    std::sort(pts.begin(), pts.end(), [](const PathPoint& u, const PathPoint& v) { return u.alpha < v.alpha; });
  }

  std::vector<double> out(T, 0.0);
  for (size_t s = 0; s + 1 < pts.size(); ++s) {
    const double half_width = 0.5 * (pts[s + 1].alpha - pts[s].alpha);
    for (int t = 0; t < T; ++t) out[t] += half_width * (pts[s].g[t] + pts[s + 1].g[t]);
  }
  return out;
}

}  // namespace attnlab
