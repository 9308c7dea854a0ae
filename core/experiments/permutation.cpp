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
#include "experiments/frozen_encoder.h"  // total_variation

namespace attnlab {
namespace {

using nlohmann::json;

// The weights shuffled within each softmax group (one group: one shuffle of the whole vector).
std::vector<double> shuffled_within_groups(const AttentionInstance& fi, Rng& rng) {
  std::vector<double> w = fi.attention();
  if (fi.num_groups() <= 1) {
    rng.shuffle(w);
    return w;
  }
  const std::vector<int>& g = fi.groups();
  for (size_t a = 0; a < w.size();) {
    size_t b = a;
    while (b < w.size() && g[b] == g[a]) ++b;
    std::vector<double> part(w.begin() + a, w.begin() + b);
    rng.shuffle(part);
    std::copy(part.begin(), part.end(), w.begin() + a);
    a = b;
  }
  return w;
}

json run_permutation(const AttentionModel& model, const Instance& inst, const ExperimentOptions& options, Rng& rng,
                     const void*) {
  json row = json::object();
  const std::unique_ptr<AttentionInstance> fi = freeze_or_skip(model, inst, 2, row);
  if (!fi) return row;
  const int permutations = std::min(10000, std::max(1, options.get_int("permutations", 100)));
  std::vector<std::vector<double>> variants;
  variants.reserve(permutations);
  for (int k = 0; k < permutations; ++k) variants.push_back(shuffled_within_groups(*fi, rng));
  std::vector<double> deltas;
  deltas.reserve(permutations);
  for (const std::vector<double>& p : fi->outputs(variants)) deltas.push_back(total_variation(p, fi->probs()));
  row["median_delta"] = median_of(deltas);
  row["max_attention"] = *std::max_element(fi->attention().begin(), fi->attention().end());
  row["deltas"] = deltas;
  row["predicted"] = fi->predicted();
  row["num_tokens"] = fi->size();
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

json summarize_permutation(const AttentionModel& model, const std::vector<json>& rows, const ExperimentOptions&) {
  std::vector<const json*> used;
  std::map<int, std::vector<const json*>> by_class;
  for (int c = 0; c < listed_classes(model); ++c) by_class[c];
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
