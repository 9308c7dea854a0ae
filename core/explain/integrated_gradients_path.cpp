// The adaptive trapezoid path of integrated gradients (integrated_gradients_path.h).
#include "explain/integrated_gradients_path.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnlab {

namespace {

constexpr double kMaxSegmentError = 1e-3;
constexpr double kMinWidth = 1e-9;

// Trapezoid sum over tokens of segment [a, b] minus p(b) - p(a).
double ig_segment_error(const IgPathPoint& a, const IgPathPoint& b) {
  return 0.5 * (b.alpha - a.alpha) * (a.slope + b.slope) - (b.p - a.p);
}

bool ig_evaluate(int T, const IgPathEvaluator& eval, const std::vector<double>& alphas, std::vector<IgPathPoint>* pts,
              std::string* error) {
  pts->clear();
  if (!eval(alphas, pts, error)) return false;
  if (pts->size() != alphas.size()) {
    *error = "integrated gradients: the model returned " + std::to_string(pts->size()) + " path points for " +
             std::to_string(alphas.size());
    return false;
  }
  for (size_t a = 0; a < pts->size(); ++a) {
    IgPathPoint& p = (*pts)[a];
    if (static_cast<int>(p.g.size()) != T) {
      *error = "integrated gradients: a path point has " + std::to_string(p.g.size()) + " token gradients for " +
               std::to_string(T) + " tokens";
      return false;
    }
    p.alpha = alphas[a];
    p.slope = std::accumulate(p.g.begin(), p.g.end(), 0.0);
  }
  return true;
}

}  // namespace

bool integrated_gradients_path(int T, int steps, const IgPathEvaluator& eval, std::vector<double>* out, std::string* error,
                               std::pair<double, double>* p_ends) {
  const int m = std::max(1, steps);
  const size_t max_segments = static_cast<size_t>(4 * m);
  std::vector<double> alphas(m + 1);
  for (int k = 0; k <= m; ++k) alphas[k] = double(k) / m;
  std::vector<IgPathPoint> pts;  // sorted by alpha
  if (!ig_evaluate(T, eval, alphas, &pts, error)) return false;
  while (pts.size() - 1 < max_segments) {
    std::vector<std::pair<double, size_t>> bad;  // (|error|, segment), worst first
    for (size_t s = 0; s + 1 < pts.size(); ++s) {
      const double e = std::abs(ig_segment_error(pts[s], pts[s + 1]));
      if (e > kMaxSegmentError && pts[s + 1].alpha - pts[s].alpha > kMinWidth) bad.push_back({e, s});
    }
    if (bad.empty()) break;
    std::stable_sort(bad.begin(), bad.end(), [](const auto& u, const auto& v) { return u.first > v.first; });
    bad.resize(std::min(bad.size(), max_segments - (pts.size() - 1)));
    std::vector<double> mids;
    for (const auto& [e, s] : bad) mids.push_back(0.5 * (pts[s].alpha + pts[s + 1].alpha));
    std::vector<IgPathPoint> added;
    if (!ig_evaluate(T, eval, mids, &added, error)) return false;
    for (IgPathPoint& p : added) pts.push_back(std::move(p));
    std::sort(pts.begin(), pts.end(), [](const IgPathPoint& u, const IgPathPoint& v) { return u.alpha < v.alpha; });
  }
  out->assign(static_cast<size_t>(T), 0.0);
  for (size_t s = 0; s + 1 < pts.size(); ++s) {
    const double half_width = 0.5 * (pts[s + 1].alpha - pts[s].alpha);
    for (int t = 0; t < T; ++t) (*out)[t] += half_width * (pts[s].g[t] + pts[s + 1].g[t]);
  }
  if (p_ends) *p_ends = {pts.front().p, pts.back().p};
  return true;
}

}  // namespace attnlab
