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
// The debate's next round: with param readings=1 (the default), each further token measure of the model ranks the
// weights too (attention_measures.h unit_readings: integrated gradients; a transformer's rollout, flow, Chefer
// relevance, attention × gradient ("grad_attention"), attention norm, AttnLRP, CP-LRP, value zeroing, ALTI; a user's
// ONNX transformer's rows), most positive first as S&S's signed gradient (ig_steps: integrated gradients' path
// segments). A model kind without token measures (a HAN) has S&S's five alone.
// Row: {<ranking>: {removed k, fraction k/T, flipped, curve: [p of the originally predicted class after
// 1..k removals]}, num_tokens, predicted[, readings_note: why an instance has no readings]}; with no flip at all:
// removed T, fraction 1, flipped false.
// Single-token instances (every ranking is the same) get {"skipped": "single token"} and are left out
// (likewise no tokens / out-of-range ids).
// Summary: {<ranking>: {fraction_mean, fraction_median, flip_rate}, fraction_mean_flipped_by_all: {<ranking>:
// mean fraction over the instances that flip under every one of S&S's five rankings (S&S's comparison; the readings
// over the same instances)}, n_flipped_by_all,
// order: rankings by fraction_mean, fewest removals first (S&S expect gradient-based rankings before
// attention and random last), n_used, n_skipped}.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>
#include <string>

#include "experiments/all.h"
#include "experiments/attention_measures.h"

namespace attnlab {
namespace {

using nlohmann::json;
const char* const kRankings[] = {"attention", "gradient", "attention_x_gradient", "leave_one_out", "random"};

json run_erase_until_flip(const AttentionModel& model, const Instance& inst, const ExperimentOptions& options, Rng& rng,
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
  if (options.get_int("readings", 1) == 0) return row;
  UnitReadings readings;  // after the shuffle: S&S's rankings draw what they drew before the readings were added
  std::string error;
  if (!unit_readings(model, inst, *fi, options.get_int("ig_steps", 50), rng, &readings, &error)) {
    row["readings_note"] = error;
    return row;
  }
  for (size_t m = 0; m < readings.names.size(); ++m)
    row[readings.names[m]] = erase_until_flip(*fi, order_by_score(readings.scores[m]), true);
  return row;
}

// The rankings of the rows: S&S's five, then the readings in the order the rows list them.
std::vector<std::string> rankings_of(const std::vector<const json*>& rows) {
  std::vector<std::string> out(std::begin(kRankings), std::end(kRankings));
  for (const json* r : rows)
    for (const auto& kv : r->items())
      if (kv.value().is_object() && kv.value().contains("fraction") &&
          std::find(out.begin(), out.end(), kv.key()) == out.end())
        out.push_back(kv.key());
  return out;
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
  const std::vector<std::string> rankings = rankings_of(used);
  for (size_t i = 0; i < rankings.size(); ++i) {
    const char* name = rankings[i].c_str();
    // S&S's five over every row used; a reading over the rows that have it (an instance's readings may be missing:
    // readings_note), with its count.
    const bool reading = i >= std::size(kRankings);
    std::vector<double> fractions, fractions_all;
    int flips = 0;
    for (const json* r : used) {
      if (reading && part(*r, name).empty()) continue;
      fractions.push_back(row_number(part(*r, name), "fraction"));
      if (row_flag(part(*r, name), "flipped")) ++flips;
    }
    for (const json* r : all_flip)
      if (!reading || !part(*r, name).empty()) fractions_all.push_back(row_number(part(*r, name), "fraction"));
    const double mean = mean_of(fractions);
    out[name] = {{"fraction_mean", mean},
                 {"fraction_median", median_of(fractions)},
                 {"flip_rate", fractions.empty() ? kNaN : double(flips) / fractions.size()}};
    if (reading) out[name]["n"] = fractions.size();
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
