// Serrano & Smith 2019 §5 on HAN: rank the units of a document once (highest first, ties by position) by
//   "attention"             sentence: beta_i; word: beta_i * alpha_it (the word's share of the document),
//   "gradient"              d p_pred / d beta_i, resp. d p_pred / d alpha_it (signed, at the model's weights),
//   "attention_x_gradient"  beta_i * d p / d beta_i, resp. alpha_it * d p / d alpha_it,
//   "random"                a shuffle from the instance's stream,
// then erase them cumulatively in that order (renormalising each softmax group; see han_erase_max.cpp for the
// levels) until the argmax class changes. Word-level prefixes are evaluated in batches of 32.
// Row: {level, num_units, predicted, <ranking>: {removed k, fraction k/N, flipped}}; no flip: removed N,
// fraction 1, flipped false. Fewer than 2 units: {"skipped"}.
// Summary: {level, <ranking>: {fraction_mean, fraction_median, flip_rate}, fraction_mean_flipped_by_all,
// n_flipped_by_all, order (rankings by fraction_mean, fewest removals first), n_used, n_skipped}.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "experiments/attention_measures.h"
#include "experiments/han_attention_model.h"
#include "experiments/han_experiment.h"

namespace attnlab {
// Named, not anonymous: the unity build compiles the HAN experiments together, each with its own run / summarize.
namespace han_erase_until_flip_impl {

using nlohmann::json;
const char* const kRankings[] = {"attention", "gradient", "attention_x_gradient", "random"};

json run(const HanModel& model, const HanInstance& inst, const ExperimentOptions& o, Rng& rng) {
  const std::string level = han_level(o);
  if (level.empty()) return {{"skipped", "param level must be \"sentence\" or \"word\""}};
  if (inst.doc.empty()) return {{"skipped", "no tokens"}};
  const HanAttentionModel m(model, level == "word");
  const Instance in = han_instance_of(inst.index, inst.label, inst.doc);
  if (const char* why = m.skip_reason(in, 2)) return {{"skipped", why}};
  const std::unique_ptr<AttentionInstance> fi = m.freeze(in, nullptr);
  const int n = fi->size();
  const std::vector<double> grad = fi->d_output(fi->attention(), fi->predicted());
  std::vector<int> random(n);
  std::iota(random.begin(), random.end(), 0);
  rng.shuffle(random);
  json row = {{"level", level}, {"num_units", n}, {"predicted", fi->predicted()}};
  row["attention"] = erase_until_flip(*fi, order_by_score(fi->effective_attention()), false);
  row["gradient"] = erase_until_flip(*fi, order_by_score(grad), false);
  row["attention_x_gradient"] = erase_until_flip(*fi, order_by_score(attention_x_gradient(*fi, grad)), false);
  row["random"] = erase_until_flip(*fi, random, false);
  return row;
}

json summarize(const HanModel&, const std::vector<json>& rows, const ExperimentOptions& o) {
  std::vector<const json*> used, all_flip;
  int skipped = 0;
  for (const json& r : rows) (r.contains("skipped") ? (void)++skipped : used.push_back(&r));
  for (const json* r : used) {
    bool all = true;
    for (const char* name : kRankings) all = all && (*r)[name]["flipped"].get<bool>();
    if (all) all_flip.push_back(r);
  }
  json out = {{"level", han_level(o)}};
  json by_all = json::object();
  std::vector<std::pair<double, std::string>> means;
  for (const char* name : kRankings) {
    std::vector<double> fr, fr_all;
    int flips = 0;
    for (const json* r : used) {
      fr.push_back((*r)[name]["fraction"].get<double>());
      flips += (*r)[name]["flipped"].get<bool>();
    }
    for (const json* r : all_flip) fr_all.push_back((*r)[name]["fraction"].get<double>());
    out[name] = {{"fraction_mean", mean_of(fr)}, {"fraction_median", median_of(fr)},
                 {"flip_rate", used.empty() ? std::nan("") : double(flips) / used.size()}};
    by_all[name] = mean_of(fr_all);
    means.push_back({std::isnan(mean_of(fr)) ? std::numeric_limits<double>::infinity() : mean_of(fr), name});
  }
  std::stable_sort(means.begin(), means.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  json order = json::array();
  for (const auto& m : means) order.push_back(m.second);
  out["fraction_mean_flipped_by_all"] = by_all;
  out["n_flipped_by_all"] = all_flip.size();
  out["order"] = order;
  out["n_used"] = used.size();
  out["n_skipped"] = skipped;
  return out;
}

}  // namespace han_erase_until_flip_impl

HanExperiment han_erase_until_flip_experiment() {
  return {"erase-until-flip",
          "HAN: fraction of attention weights erased, by ranking, until the decision flips (Serrano & Smith 5); "
          "level=sentence|word",
          han_erase_until_flip_impl::run, han_erase_until_flip_impl::summarize};
}

}  // namespace attnlab
