// Kendall rank correlation tau-b (ties handled) with a two-sided p-value from the normal approximation
// with the tie-corrected variance (as scipy.stats.kendalltau(method="asymptotic")). O(n^2), fine for
// sentence lengths.
#pragma once
#include <vector>

namespace attnlab {

struct KendallResult {
  double tau = 0.0;  // NaN when either input is constant or n < 2
  double p = 1.0;    // NaN when tau is NaN
  int n = 0;
};

KendallResult kendall_tau(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace attnlab
