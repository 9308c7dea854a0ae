// Serrano & Smith 2019, "Is Attention Interpretable?", §5 (erasing until the decision flips): with the
// encoder states of an instance frozen, rank the positions once on the original instance (highest first,
// ties by position) by
//   "attention"            alpha_t,
//   "gradient"             d p_pred / d alpha_t at the model's alpha (signed; frozen_encoder.h),
//   "attention_x_gradient" alpha_t * d p_pred / d alpha_t,
//   "leave_one_out"        |p_pred(x) - p_pred(x without t)| (explain/importance.h),
//   "random"               a shuffle from the instance's random stream,
// then for each ranking zero the weights cumulatively in that order, renormalising the rest, until the
// argmax class changes. Removing every weight leaves a zero context (the decoder bias alone).
// Row: {<ranking>: {removed k, fraction k/T, flipped, curve: [p of the originally predicted class after
// 1..k removals]}, num_tokens, predicted}; with no flip at all: removed T, fraction 1, flipped false.
// Single-token instances (every ranking is the same) get {"skipped": "single token"} and are left out
// (likewise no tokens / out-of-range ids).
// Summary: {<ranking>: {fraction_mean, fraction_median, flip_rate}, fraction_mean_flipped_by_all: {<ranking>:
// mean fraction over the instances that flip under every ranking (S&S's comparison)}, n_flipped_by_all,
// order: rankings by fraction_mean, fewest removals first (S&S expect gradient-based rankings before
// attention and random last), n_used, n_skipped}.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "experiments/all.h"
#include "experiments/attention_measures.h"

namespace attnlab {
namespace {

using nlohmann::json;
const char* const kRankings[] = {"attention", "gradient", "attention_x_gradient", "leave_one_out", "random"};

json run_erase_until_flip(const AttentionModel& model, const Instance& inst, const ExperimentOptions&, Rng& rng,
                          const void*) {
  json row = json::object();
  const std::unique_ptr<AttentionInstance> fi = freeze_or_skip(model, inst, 2, row);
  if (!fi) return row;
  const int T = fi->size();
  const std::vector<double> grad = fi->d_output(fi->attention(), fi->predicted());
  std::vector<int> random(T);
  std::iota(random.begin(), random.end(), 0);
  rng.shuffle(random);
  row["attention"] = erase_until_flip(*fi, order_by_score(fi->effective_attention()), true);
  row["gradient"] = erase_until_flip(*fi, order_by_score(grad), true);
  row["attention_x_gradient"] = erase_until_flip(*fi, order_by_score(attention_x_gradient(*fi, grad)), true);
  row["leave_one_out"] =
      erase_until_flip(*fi, order_by_score(fi->importance(Importance::LeaveOneOut, fi->predicted())), true);
  row["random"] = erase_until_flip(*fi, random, true);
  row["num_tokens"] = T;
  row["predicted"] = fi->predicted();
  return row;
}

json summarize_erase_until_flip(const AttentionModel&, const std::vector<json>& rows, const ExperimentOptions&) {
  std::vector<const json*> used;
  int skipped = 0;
  for (const json& r : rows) {
    if (r.contains("skipped"))
      ++skipped;
    else
      used.push_back(&r);
  }
  const json empty = json::object();
  const auto part = [&](const json& r, const char* name) -> const json& {
    auto it = r.find(name);
    return it != r.end() && it->is_object() ? *it : empty;
  };
  std::vector<const json*> all_flip;
  for (const json* r : used) {
    bool all = true;
    for (const char* name : kRankings) all = all && row_flag(part(*r, name), "flipped");
    if (all) all_flip.push_back(r);
  }
  json out;
  json flipped_by_all = json::object();
  std::vector<std::pair<double, std::string>> means;
  for (const char* name : kRankings) {
    std::vector<double> fractions, fractions_all;
    int flips = 0;
    for (const json* r : used) {
      fractions.push_back(row_number(part(*r, name), "fraction"));
      if (row_flag(part(*r, name), "flipped")) ++flips;
    }
    for (const json* r : all_flip) fractions_all.push_back(row_number(part(*r, name), "fraction"));
    const double mean = mean_of(fractions);
    out[name] = {{"fraction_mean", mean},
                 {"fraction_median", median_of(fractions)},
                 {"flip_rate", used.empty() ? kNaN : double(flips) / used.size()}};
    flipped_by_all[name] = mean_of(fractions_all);
    means.push_back({std::isnan(mean) ? std::numeric_limits<double>::infinity() : mean, name});
  }
  std::stable_sort(means.begin(), means.end(),
                   [](const std::pair<double, std::string>& a, const std::pair<double, std::string>& b) {
                     return a.first < b.first;
                   });
  json order = json::array();
  for (const auto& m : means) order.push_back(m.second);
  out["fraction_mean_flipped_by_all"] = flipped_by_all;
  out["n_flipped_by_all"] = all_flip.size();
  out["order"] = order;
  out["n_used"] = used.size();
  out["n_skipped"] = skipped;
  return out;
}

}  // namespace

Experiment erase_until_flip_experiment() {
  Experiment e;
  e.name = "erase-until-flip";
  e.description =
      "Fraction of attention weights erased, by ranking, until the decision flips (Serrano & Smith 5)";
  e.run = run_erase_until_flip;
  e.summarize = summarize_erase_until_flip;
  return e;
}

}  // namespace attnlab
