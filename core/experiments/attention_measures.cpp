// The measures shared by the experiments (attention_measures.h).
#include "experiments/attention_measures.h"

#include <algorithm>
#include <set>

#include "experiments/frozen_encoder.h"  // jensen_shannon, argmax

namespace attnlab {

AttentionTaus kendall_vs_importances(const AttentionInstance& fi) {
  AttentionTaus t;
  t.attention = fi.effective_attention();
  t.gradient = fi.importance(Importance::Gradient, fi.predicted());
  t.loo = fi.importance(Importance::LeaveOneOut, fi.predicted());
  t.vs_gradient = kendall_tau(t.attention, t.gradient);
  t.vs_loo = kendall_tau(t.attention, t.loo);
  return t;
}

ErasedOne erase_one(const AttentionInstance& fi, int unit) {
  ErasedOne r;
  r.probs = fi.output(erase_units(fi.attention(), fi.groups(), {unit}));
  r.jsd = jensen_shannon(r.probs, fi.probs());
  r.flipped = argmax(r.probs) != fi.predicted();
  return r;
}

nlohmann::json erase_until_flip(const AttentionInstance& fi, const std::vector<int>& order, bool with_curve) {
  const int n = static_cast<int>(order.size());
  std::vector<double> curve;
  for (int k0 = 1; k0 <= n; k0 += kEraseBlock) {
    const int k1 = std::min(n, k0 + kEraseBlock - 1);
    std::vector<std::vector<double>> variants;
    for (int k = k0; k <= k1; ++k)
      variants.push_back(erase_units(fi.attention(), fi.groups(), std::vector<int>(order.begin(), order.begin() + k)));
    const std::vector<std::vector<double>> probs = fi.outputs(variants);
    for (int k = k0; k <= k1; ++k) {
      const std::vector<double>& p = probs[static_cast<size_t>(k - k0)];
      curve.push_back(p[static_cast<size_t>(fi.predicted())]);
      if (argmax(p) != fi.predicted()) {
        nlohmann::json r = {{"removed", k}, {"fraction", double(k) / n}, {"flipped", true}};
        if (with_curve) r["curve"] = curve;
        return r;
      }
    }
  }
  nlohmann::json r = {{"removed", n}, {"fraction", 1.0}, {"flipped", false}};
  if (with_curve) r["curve"] = curve;
  return r;
}

std::vector<double> attention_x_gradient(const AttentionInstance& fi, const std::vector<double>& gradient) {
  std::vector<double> out(gradient.size());
  for (size_t u = 0; u < gradient.size(); ++u) out[u] = fi.attention()[u] * gradient[u];
  return out;
}

bool unit_readings(const AttentionModel& model, const Instance& instance, const AttentionInstance& fi, int ig_steps,
                   Rng& rng, UnitReadings* out, std::string* error) {
  *out = UnitReadings();
  if (model.token_measure_names().empty()) return true;
  TokenMeasures ms;
  if (!model.token_measures(instance, ig_steps, fi.predicted(), rng, &ms, error)) return false;
  static const std::set<std::string> own = {"attention", "gradient", "leave_one_out", "random"};
  for (size_t m = 0; m < ms.names.size(); ++m) {
    if (own.count(ms.names[m])) continue;
    const std::vector<double>& score = ms.scores[m];
    std::vector<double> per_unit;
    per_unit.reserve(fi.unit_tokens().size());
    for (const int t : fi.unit_tokens()) {
      if (t < 0 || static_cast<size_t>(t) >= score.size()) {
        *error = ms.names[m] + ": no value for token " + std::to_string(t);
        return false;
      }
      per_unit.push_back(score[static_cast<size_t>(t)]);
    }
    out->names.push_back(ms.names[m]);
    out->scores.push_back(std::move(per_unit));
  }
  return true;
}

}  // namespace attnlab
