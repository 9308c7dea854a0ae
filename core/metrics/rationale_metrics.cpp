// ERASER's plausibility metrics (see rationale_metrics.h).
#include "metrics/rationale_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "metrics/ranking.h"

namespace attnlab {

double f1_of(double precision, double recall) {
  if (precision == 0 || recall == 0) return 0;
  return 2 * precision * recall / (precision + recall);
}

std::vector<int> top_k_mask(const std::vector<double>& score, int k) {
  std::vector<int> mask(score.size(), 0);
  const std::vector<int> order = ranking_by_magnitude(score);
  k = std::max(0, std::min(k, static_cast<int>(score.size())));
  for (int j = 0; j < k; ++j) mask[order[j]] = 1;
  return mask;
}

PrecisionRecall token_prf(const std::vector<int>& predicted, const std::vector<int>& human) {
  int both = 0, npred = 0, nhuman = 0;
  const size_t n = std::min(predicted.size(), human.size());
  for (size_t t = 0; t < n; ++t) {
    both += (predicted[t] != 0 && human[t] != 0);
  }
  for (int v : predicted) npred += v != 0;
  for (int v : human) nhuman += v != 0;
  PrecisionRecall r;
  r.precision = npred ? double(both) / npred : 0.0;
  r.recall = nhuman ? double(both) / nhuman : 0.0;
  r.f1 = f1_of(r.precision, r.recall);
  return r;
}

double auprc(const std::vector<double>& score, const std::vector<int>& human) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (score.size() != human.size()) return nan;
  int positives = 0;
  for (int v : human) positives += v != 0;
  if (positives == 0) return nan;
  std::vector<int> order(score.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score[a] > score[b]; });
  double area = 0, prev_recall = 0, prev_precision = 1;  // the curve starts at (recall 0, precision 1)
  int tp = 0, fp = 0;
  for (size_t j = 0; j < order.size(); ++j) {
    (human[order[j]] != 0 ? tp : fp) += 1;
    if (j + 1 < order.size() && score[order[j + 1]] == score[order[j]]) continue;  // one point per distinct score
    const double recall = double(tp) / positives, precision = double(tp) / (tp + fp);
    area += (recall - prev_recall) * (precision + prev_precision) / 2;
    prev_recall = recall;
    prev_precision = precision;
  }
  return area;
}

std::vector<std::pair<int, int>> mask_spans(const std::vector<int>& mask) {
  std::vector<std::pair<int, int>> spans;
  const int n = static_cast<int>(mask.size());
  for (int t = 0; t < n;) {
    if (mask[t] == 0) {
      ++t;
      continue;
    }
    const int begin = t;
    while (t < n && mask[t] != 0) ++t;
    spans.emplace_back(begin, t);
  }
  return spans;
}

PrecisionRecall iou_span_match(const std::vector<int>& predicted, const std::vector<int>& human, double threshold) {
  const auto pred = mask_spans(predicted), truth = mask_spans(human);
  int matched = 0;
  for (const auto& p : pred) {
    double best = 0;
    for (const auto& h : truth) {
      const int inter = std::max(0, std::min(p.second, h.second) - std::max(p.first, h.first));
      const int uni = (p.second - p.first) + (h.second - h.first) - inter;
      if (uni > 0) best = std::max(best, double(inter) / uni);
    }
    matched += best >= threshold;
  }
  PrecisionRecall r;
  r.precision = pred.empty() ? 0.0 : double(matched) / pred.size();
  r.recall = truth.empty() ? 0.0 : double(matched) / truth.size();
  r.f1 = f1_of(r.precision, r.recall);
  return r;
}

}  // namespace attnlab
