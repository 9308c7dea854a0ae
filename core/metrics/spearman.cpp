// Spearman rho = Pearson correlation of average ranks (ties share the mean rank), as scipy.stats.spearmanr.
// Edge cases (NaN result): sizes differ, n < 2, a NaN value, or a constant input. The result is clamped to
// [-1, 1] against rounding.
#include "metrics/spearman.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace attnlab {

std::vector<double> average_ranks(const std::vector<double>& v) {
  const size_t n = v.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(n);
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && v[order[j]] == v[order[i]]) ++j;
    const double r = 0.5 * static_cast<double>(i + 1 + j);  // mean of ranks i+1 .. j
    for (size_t k = i; k < j; ++k) ranks[order[k]] = r;
    i = j;
  }
  return ranks;
}

double spearman_rho(const std::vector<double>& x, const std::vector<double>& y) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (x.size() != y.size() || x.size() < 2) return nan;
  for (size_t i = 0; i < x.size(); ++i)
    if (std::isnan(x[i]) || std::isnan(y[i])) return nan;
  const std::vector<double> rx = average_ranks(x), ry = average_ranks(y);
  const double n = static_cast<double>(x.size());
  const double mean = (n + 1) / 2;  // ranks always average (n+1)/2
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < rx.size(); ++i) {
    const double a = rx[i] - mean, b = ry[i] - mean;
    sxy += a * b;
    sxx += a * a;
    syy += b * b;
  }
  if (sxx <= 0 || syy <= 0) return nan;  // constant input
  return std::min(1.0, std::max(-1.0, sxy / std::sqrt(sxx * syy)));
}

}  // namespace attnlab
