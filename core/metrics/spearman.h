// Spearman rank correlation rho: the Pearson correlation of the two inputs' ranks, with tied values given
// the average of the ranks they span (as scipy.stats.spearmanr). Undefined (NaN) when the sizes differ,
// n < 2, any value is NaN, or either input is constant (its ranks have zero variance). O(n log n).
#pragma once
#include <vector>

namespace attnlab {

// 1-based ranks; tied values get the mean of their ranks (e.g. {10, 20, 20, 30} -> {1, 2.5, 2.5, 4}).
std::vector<double> average_ranks(const std::vector<double>& v);

double spearman_rho(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace attnlab
