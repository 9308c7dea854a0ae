// Token positions ranked by the magnitude of an importance score: from most to least important by |score|,
// ties keeping the earlier position first (stable). Shared by the experiments that cut a ranking into a
// top-k rationale (eraser, plausibility).
#pragma once
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace attnlab {

inline std::vector<int> ranking_by_magnitude(const std::vector<double>& score) {
  std::vector<int> order(score.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return std::fabs(score[a]) > std::fabs(score[b]); });
  return order;
}

// From the highest to the lowest signed score (ties: earlier position first).
inline std::vector<int> ranking_by_value(const std::vector<double>& score) {
  std::vector<int> order(score.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score[a] > score[b]; });
  return order;
}

}  // namespace attnlab
