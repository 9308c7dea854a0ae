// Jain & Wallace 2019, "Attention is not Explanation", permutation experiment: with the encoder states of
// an instance frozen, shuffle its attention weights P times (options "permutations", default 100; clamped to
// [1, 10000]) and measure the output change of each shuffle as the total variation distance between the
// permuted and the original class distributions (binary: |p' - p|). J&W plot the median change against the
// instance's maximum attention weight: a model whose output barely moves under shuffled attention is not
// using the weights as an explanation of its decision.
// Row: {median_delta, max_attention, deltas: [P], predicted, num_tokens}; single-token instances (nothing to
// permute) get {"skipped": "single token"} and are left out of the summary (as are those with no tokens or
// out-of-range ids).
// Summary: {median_delta_mean, median_delta_median, fraction_median_delta_below_0.01,
//   by_max_attention: [{bin, n, median_delta_mean}] over [0,0.25) [0.25,0.5) [0.5,0.75) [0.75,1],
//   per_class: {"0": {n, median_delta_mean, median_delta_median, fraction_median_delta_below_0.01}, ...}
//   (class = gold label when known, else predicted), n_used, n_skipped}.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "experiments/all.h"
#include "experiments/frozen_encoder.h"

namespace attnlab {
namespace {

using nlohmann::json;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

json run_permutation(const TextModel& model, const Instance& inst, const ExperimentOptions& options, Rng& rng,
                     const void*) {
  json row = json::object();
  if (const char* why = instance_skip_reason(model, inst, 2)) {
    row["skipped"] = why;
    return row;
  }
  const int permutations = std::min(10000, std::max(1, options.get_int("permutations", 100)));
  const FrozenEncoder fe = freeze_encoder(model, inst.ids);
  std::vector<double> deltas;
  deltas.reserve(permutations);
  for (int k = 0; k < permutations; ++k) {
    std::vector<double> shuffled = fe.alpha;
    rng.shuffle(shuffled);
    deltas.push_back(total_variation(output_with_attention(model, fe, shuffled), fe.probs));
  }
  row["median_delta"] = median_of(deltas);
  row["max_attention"] = *std::max_element(fe.alpha.begin(), fe.alpha.end());
  row["deltas"] = deltas;
  row["predicted"] = fe.predicted;
  row["num_tokens"] = inst.ids.size();
  return row;
}

json delta_statistics(const std::vector<const json*>& rows) {
  std::vector<double> medians;
  int below = 0;
  for (const json* r : rows) {
    const double m = row_number(*r, "median_delta");
    medians.push_back(m);
    if (m < 0.01) ++below;
  }
  json out;
  out["n"] = rows.size();
  out["median_delta_mean"] = mean_of(medians);
  out["median_delta_median"] = median_of(medians);
  out["fraction_median_delta_below_0.01"] = rows.empty() ? kNaN : double(below) / rows.size();
  return out;
}

json summarize_permutation(const TextModel& model, const std::vector<json>& rows, const ExperimentOptions&) {
  std::vector<const json*> used;
  std::map<int, std::vector<const json*>> by_class;
  for (int c = 0; c < model.config.num_classes; ++c) by_class[c];
  std::vector<std::vector<double>> bins(kMaxAttentionBins);
  int skipped = 0;
  for (const json& r : rows) {
    if (r.contains("skipped")) {
      ++skipped;
      continue;
    }
    used.push_back(&r);
    by_class[row_class(r)].push_back(&r);
    const int b = max_attention_bin(row_number(r, "max_attention"));
    bins[b < 0 ? 0 : b].push_back(row_number(r, "median_delta"));  // a row without the weight counts in the first bin
  }
  json out = delta_statistics(used);
  out.erase("n");  // run_experiment writes "n" (all rows); n_used counts the rows summarised
  out["n_used"] = used.size();
  out["n_skipped"] = skipped;
  out["by_max_attention"] = max_attention_bins_json(bins, "median_delta_mean");
  json per_class = json::object();
  for (const auto& kv : by_class) per_class[std::to_string(kv.first)] = delta_statistics(kv.second);
  out["per_class"] = per_class;
  return out;
}

}  // namespace

Experiment permutation_experiment() {
  Experiment e;
  e.name = "permutation";
  e.description = "Output change when the attention weights are randomly permuted (Jain & Wallace)";
  e.run = run_permutation;
  e.summarize = summarize_permutation;
  return e;
}

}  // namespace attnlab
