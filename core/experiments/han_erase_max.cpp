// Serrano & Smith 2019 §4 on HAN: erase the single highest attention weight vs a random other one,
// renormalise within the same softmax, and compare the output distributions with the original (JS
// divergence) and the decisions (flip). level "sentence": beta_i with the sentence encoder states frozen;
// level "word": the word with the largest effective weight beta_i * alpha_it, erased from its sentence's
// alpha (renormalised there; a one-word sentence gives a zero sentence vector), the sentence level re-run.
// Row: {level, num_units, top: {index, weight, jsd, flipped}, random: {...}, jsd_difference (top - random)};
// fewer than 2 units: {"skipped"}. Summary: {level, flip_rate_top, flip_rate_random, jsd_top_mean,
// jsd_random_mean, jsd_difference_mean, fraction_top_larger (jsd_top > jsd_random), n_used, n_skipped}.
#include <cmath>

#include "experiments/frozen_encoder.h"
#include "experiments/attention_measures.h"
#include "experiments/han_attention_model.h"
#include "experiments/han_experiment.h"

namespace attnlab {
// Named, not anonymous: the unity build compiles the HAN experiments together, each with its own run / summarize.
namespace han_erase_max_impl {

using nlohmann::json;

json run(const HanModel& model, const HanInstance& inst, const ExperimentOptions& o, Rng& rng) {
  json row = json::object();
  const std::string level = han_level(o);
  if (level.empty()) return {{"skipped", "param level must be \"sentence\" or \"word\""}};
  if (inst.doc.empty()) return {{"skipped", "no tokens"}};
  const HanAttentionModel m(model, level == "word");
  const Instance in = han_instance_of(inst.index, inst.label, inst.doc);
  if (const char* why = m.skip_reason(in, 2)) return {{"skipped", why}};
  const std::unique_ptr<AttentionInstance> fi = m.freeze(in, nullptr);
  const std::vector<double> weight = fi->effective_attention();
  const int n = fi->size();
  const int top = order_by_score(weight)[0];
  int rnd = static_cast<int>(rng.below(static_cast<uint64_t>(n - 1)));
  if (rnd >= top) ++rnd;
  auto erase = [&](int unit) {
    const ErasedOne e = erase_one(*fi, unit);
    return json{{"index", unit}, {"weight", weight[unit]}, {"jsd", e.jsd}, {"flipped", e.flipped}};
  };
  row["level"] = level;
  row["num_units"] = n;
  row["top"] = erase(top);
  row["random"] = erase(rnd);
  row["jsd_difference"] = row["top"]["jsd"].get<double>() - row["random"]["jsd"].get<double>();
  row["predicted"] = fi->predicted();
  return row;
}

json summarize(const HanModel&, const std::vector<json>& rows, const ExperimentOptions& o) {
  std::vector<double> jt, jr, diff;
  int ft = 0, fr = 0, larger = 0, skipped = 0;
  for (const json& r : rows) {
    if (r.contains("skipped")) {
      ++skipped;
      continue;
    }
    jt.push_back(r["top"]["jsd"].get<double>());
    jr.push_back(r["random"]["jsd"].get<double>());
    diff.push_back(jt.back() - jr.back());
    ft += r["top"]["flipped"].get<bool>();
    fr += r["random"]["flipped"].get<bool>();
    larger += jt.back() > jr.back();
  }
  const double n = static_cast<double>(jt.size());
  const double nan = std::nan("");
  return {{"level", han_level(o)},
          {"flip_rate_top", n ? ft / n : nan},
          {"flip_rate_random", n ? fr / n : nan},
          {"jsd_top_mean", mean_of(jt)},
          {"jsd_random_mean", mean_of(jr)},
          {"jsd_difference_mean", mean_of(diff)},
          {"jsd_difference_median", median_of(diff)},
          {"fraction_top_larger", n ? larger / n : nan},
          {"n_used", jt.size()},
          {"n_skipped", skipped}};
}

}  // namespace han_erase_max_impl

HanExperiment han_erase_max_experiment() {
  return {"erase-max",
          "HAN: erase the top attention weight vs a random one, JSD and flips (Serrano & Smith 4); level=sentence|word",
          han_erase_max_impl::run, han_erase_max_impl::summarize};
}

}  // namespace attnlab
