// The helpers every AttentionInstance user shares (attention_model.h).
#include "model/attention_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "nn/rng.h"

namespace attnlab {

std::vector<double> erase_units(const std::vector<double>& weights, const std::vector<int>& groups,
                                const std::vector<int>& units) {
  std::vector<double> out = weights;
  const int G = groups.empty() ? 0 : groups.back() + 1;
  std::vector<char> touched(static_cast<size_t>(G), 0);
  for (int u : units) {
    out[static_cast<size_t>(u)] = 0;
    touched[static_cast<size_t>(groups[static_cast<size_t>(u)])] = 1;
  }
  std::vector<double> sum(static_cast<size_t>(G), 0.0);
  for (size_t u = 0; u < out.size(); ++u) sum[static_cast<size_t>(groups[u])] += out[u];
  for (size_t u = 0; u < out.size(); ++u) {
    const size_t g = static_cast<size_t>(groups[u]);
    if (touched[g]) out[u] = sum[g] > 0 ? out[u] / sum[g] : 0.0;
  }
  return out;
}

std::vector<double> AttentionInstance::group_weights() const {
  const int G = num_groups();
  return std::vector<double>(static_cast<size_t>(G), G ? 1.0 / G : 0.0);
}

void AttentionInstance::add_d_output_combination(const std::vector<double>& weights, const std::vector<double>& coeff,
                                                 double scale, std::vector<double>& g) const {
  for (size_t c = 0; c < coeff.size(); ++c) {
    if (coeff[c] == 0) continue;
    const std::vector<double> dp = d_output(weights, static_cast<int>(c));
    for (size_t u = 0; u < g.size() && u < dp.size(); ++u) g[u] += scale * coeff[c] * dp[u];
  }
}

std::vector<int> order_by_score(const std::vector<double>& score) {
  std::vector<int> order(score.size());
  std::iota(order.begin(), order.end(), 0);
  const auto key = [&](int i) { return std::isnan(score[i]) ? -std::numeric_limits<double>::infinity() : score[i]; };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) > key(b); });
  return order;
}

std::vector<double> random_position_scores(int T, Rng& rng) {
  std::vector<int> shuffled(static_cast<size_t>(T));
  std::iota(shuffled.begin(), shuffled.end(), 0);
  rng.shuffle(shuffled);
  std::vector<double> score(static_cast<size_t>(T));
  for (int j = 0; j < T; ++j) score[static_cast<size_t>(shuffled[static_cast<size_t>(j)])] = T - j;
  return score;
}

}  // namespace attnlab
