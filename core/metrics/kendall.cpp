// Kendall tau-b with the asymptotic two-sided p-value, following scipy.stats.kendalltau(method="asymptotic"):
//   tau = (C - D) / sqrt((n0 - n1) (n0 - n2)),  n0 = n(n-1)/2, n1/n2 = pairs tied in x/y,
//   var(C - D) = (v0 - vt - vu)/18 + v1 + v2,  v0 = n(n-1)(2n+5), vt = sum t(t-1)(2t+5) over x tie groups,
//   v1 = 2 n1 n2 / (n(n-1)),  v2 = sum t(t-1)(t-2) * sum u(u-1)(u-2) / (9 n(n-1)(n-2)),
//   p = erfc(|z| / sqrt 2), z = (C - D) / sqrt(var).
// Edge cases: sizes differ, n < 2, any NaN, or either input constant -> tau = p = NaN (scipy also gives NaN).
// For n = 2 the v2 term is 0/0 in scipy (giving p = NaN there); here it is taken as 0, its limit (both tie
// sums are 0 when n = 2), so p = erfc(1/sqrt 2) = 0.3173. O(n^2) pair loop.
#include "metrics/kendall.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {
namespace {

struct TieStats {
  double pairs = 0;  // sum t(t-1)/2
  double v0 = 0;     // sum t(t-1)(t-2)
  double v1 = 0;     // sum t(t-1)(2t+5)
};

TieStats tie_stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  TieStats s;
  size_t i = 0;
  while (i < v.size()) {
    size_t j = i + 1;
    while (j < v.size() && v[j] == v[i]) ++j;
    const double t = static_cast<double>(j - i);
    if (t > 1) {
      s.pairs += t * (t - 1) / 2;
      s.v0 += t * (t - 1) * (t - 2);
      s.v1 += t * (t - 1) * (2 * t + 5);
    }
    i = j;
  }
  return s;
}

int sign(double d) { return (d > 0) - (d < 0); }

}  // namespace

KendallResult kendall_tau(const std::vector<double>& x, const std::vector<double>& y) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  KendallResult r;
  r.tau = nan;
  r.p = nan;
  if (x.size() != y.size()) return r;
  r.n = static_cast<int>(x.size());
  if (x.size() < 2) return r;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) return r;
  }

  const size_t n = x.size();
  long long con_minus_dis = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      con_minus_dis += sign(x[i] - x[j]) * sign(y[i] - y[j]);
    }
  }
  const TieStats tx = tie_stats(x);
  const TieStats ty = tie_stats(y);
  const double nd = static_cast<double>(n);
  const double tot = nd * (nd - 1) / 2;
  if (tx.pairs == tot || ty.pairs == tot) return r;  // a constant input

  const double s = static_cast<double>(con_minus_dis);
  double tau = s / std::sqrt(tot - tx.pairs) / std::sqrt(tot - ty.pairs);
  r.tau = std::min(1.0, std::max(-1.0, tau));

  const double m = nd * (nd - 1);
  double var = (m * (2 * nd + 5) - tx.v1 - ty.v1) / 18 + (2 * tx.pairs * ty.pairs) / m;
  if (n > 2) var += tx.v0 * ty.v0 / (9 * m * (nd - 2));
  if (var > 0) {
    const double z = s / std::sqrt(var);
    r.p = std::erfc(std::fabs(z) / std::sqrt(2.0));
  }
  return r;
}

}  // namespace attnlab
