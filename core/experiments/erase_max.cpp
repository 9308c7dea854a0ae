// Serrano & Smith 2019, "Is Attention Interpretable?", §4 (single-weight erasure): with the encoder states of
// an instance frozen, zero its single highest attention weight (first on ties) and renormalise the rest, and
// separately zero one random other weight (uniform among the non-max positions, from the instance's random
// stream) and renormalise. Each is compared with the original output: Jensen-Shannon divergence of the
// class distributions (natural log, <= ln 2) and whether the decision (argmax) flips. If attention ranks
// importance, erasing the max should move the output more than erasing a random weight.
// Row: {jsd_max, jsd_random, flip_max, flip_random, max_attention, random_attention, num_tokens, predicted};
// single-token instances get {"skipped": "single token"} (likewise no tokens / out-of-range ids).
// Summary: {jsd_max_mean, jsd_random_mean, flip_rate_max, flip_rate_random, fraction_jsd_max_greater
// (strictly), n, n_used, n_skipped (rows skipped, and rows without both JSDs)}; "n" here counts the summarised rows, but run_experiment overwrites it
// with the number of all rows, so n_used is the count to read.
#include <cmath>
#include <limits>

#include "experiments/all.h"
#include "experiments/attention_measures.h"
#include "experiments/frozen_encoder.h"  // argmax

namespace attnlab {
namespace {

using nlohmann::json;

json run_erase_max(const AttentionModel& model, const Instance& inst, const ExperimentOptions&, Rng& rng, const void*) {
  json row = json::object();
  const std::unique_ptr<AttentionInstance> fi = freeze_or_skip(model, inst, 2, row);
  if (!fi) return row;
  const std::vector<double> alpha = fi->effective_attention();
  const int T = fi->size();
  const int top = argmax(alpha);
  int other = static_cast<int>(rng.below(static_cast<uint64_t>(T - 1)));
  if (other >= top) ++other;
  const ErasedOne e_max = erase_one(*fi, top), e_rnd = erase_one(*fi, other);
  row["jsd_max"] = e_max.jsd;
  row["jsd_random"] = e_rnd.jsd;
  row["flip_max"] = e_max.flipped;
  row["flip_random"] = e_rnd.flipped;
  row["max_attention"] = alpha[top];
  row["random_attention"] = alpha[other];
  row["num_tokens"] = T;
  row["predicted"] = fi->predicted();
  return row;
}

json summarize_erase_max(const AttentionModel&, const std::vector<json>& rows, const ExperimentOptions&) {
  std::vector<double> jsd_max, jsd_rnd;
  int flip_max = 0, flip_rnd = 0, greater = 0, skipped = 0;
  for (const json& r : rows) {
    if (r.contains("skipped")) {
      ++skipped;
      continue;
    }
    const double a = row_number(r, "jsd_max"), b = row_number(r, "jsd_random");
    if (!std::isfinite(a) || !std::isfinite(b)) {  // not a row of this experiment (rows may come from the page)
      ++skipped;
      continue;
    }
    jsd_max.push_back(a);
    jsd_rnd.push_back(b);
    if (a > b) ++greater;
    if (row_flag(r, "flip_max")) ++flip_max;
    if (row_flag(r, "flip_random")) ++flip_rnd;
  }
  const size_t n = jsd_max.size();
  const auto rate = [n](int k) { return n ? double(k) / n : kNaN; };
  json out;
  out["jsd_max_mean"] = mean_of(jsd_max);
  out["jsd_random_mean"] = mean_of(jsd_rnd);
  out["flip_rate_max"] = rate(flip_max);
  out["flip_rate_random"] = rate(flip_rnd);
  out["fraction_jsd_max_greater"] = rate(greater);
  out["n"] = n;
  out["n_used"] = n;
  out["n_skipped"] = skipped;
  return out;
}

}  // namespace

Experiment erase_max_experiment() {
  Experiment e;
  e.name = "erase-max";
  e.description = "Erase the highest attention weight vs a random one: JS divergence and decision flips (Serrano & Smith 4)";
  e.run = run_erase_max;
  e.summarize = summarize_erase_max;
  return e;
}

}  // namespace attnlab
